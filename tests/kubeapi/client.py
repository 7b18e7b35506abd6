"""A small Kubernetes REST client over ``http.client``: the calls the tests make as a user, a kubelet or the Twister2 runtime.

The runtime's calls are played with exactly the method, path, query and body the
Java client sends (``K8S/KubernetesController.java`` of DSC-SPIDAL/twister2; see
:mod:`tests.kubeapi.runtime`), so this client takes them literally rather than
through a typed library. Each client authenticates one way (the admin's client
certificate, or a bearer token from a TokenRequest) and records every call it
made with the status the API server answered, so a test can show that no call
of a ServiceAccount was refused.

API conventions: https://kubernetes.io/docs/reference/using-api/api-concepts/.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import ssl
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"


class ApiError(Exception):
    """The API server answered a call with an error status."""

    def __init__(self, status: int, method: str, path: str, body: Any) -> None:
        self.status, self.body = status, body
        message = body.get("message") if isinstance(body, dict) else body
        super().__init__(f"{method} {path}: {status}: {message}")


class Client:
    """Calls one API server as one user.

    Args:
        server: ``https://127.0.0.1:PORT``.
        ca: the cluster's CA certificate (PEM file).
        cert: the client certificate and key (PEM files), or None.
        token: a bearer token, or None.
        user: who the calls are made as, for the record.
    """

    def __init__(
        self,
        server: str,
        ca: Path,
        *,
        cert: tuple[Path, Path] | None = None,
        token: str | None = None,
        user: str = "",
    ) -> None:
        url = urllib.parse.urlsplit(server)
        self.host, self.port = url.hostname or "127.0.0.1", url.port or 443
        self.server, self.ca, self.cert, self.token, self.user = (
            server,
            ca,
            cert,
            token,
            user,
        )
        self.context = ssl.create_default_context(cafile=str(ca))
        if cert is not None:
            self.context.load_cert_chain(str(cert[0]), str(cert[1]))
        self.calls: list[tuple[str, str, int]] = []
        """Every call made: ``(method, path, status)``."""
        self.warnings: dict[str, list[str]] = {}
        """The ``Warning`` headers of the answers, by path (the API server's warnings)."""
        self._lock = threading.Lock()

    def with_token(self, token: str, user: str) -> Client:
        """A client of the same server that authenticates with ``token``."""
        return Client(self.server, self.ca, token=token, user=user)

    def _connection(self, timeout: float | None) -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection(
            self.host, self.port, context=self.context, timeout=timeout
        )

    def _headers(self, content_type: str | None) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if content_type:
            headers["Content-Type"] = content_type
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        content_type: str = "application/json",
        query: dict[str, str] | None = None,
        ok: tuple[int, ...] = (),
    ) -> Any:
        """One call; returns the decoded JSON answer.

        Args:
            ok: error statuses to return as the answer instead of raising
                (e.g. ``(404,)`` where a missing object is success, as Twister2
                treats it: ``K8S/KubernetesController.java:256-259``).

        Raises:
            ApiError: the API server answered with any other status >= 400.
        """
        target = path + ("?" + urllib.parse.urlencode(query) if query else "")
        data = None
        if body is not None:
            data = body if isinstance(body, str) else json.dumps(body)
        headers = self._headers(content_type if data is not None else None)
        response, raw = self._exchange(method, target, data, headers)
        with self._lock:
            self.calls.append((method, target, response.status))
            found = response.headers.get_all("Warning") or []
            if found:
                self.warnings.setdefault(path, []).extend(found)
        answer = json.loads(raw) if raw.strip().startswith(b"{") else raw.decode()
        if response.status >= 400 and response.status not in ok:
            raise ApiError(response.status, method, target, answer)
        return answer

    def _exchange(
        self, method: str, target: str, data: str | None, headers: dict[str, str]
    ) -> tuple[http.client.HTTPResponse, bytes]:
        """Send on a connection of its own, closed after the answer."""
        connection = self._connection(60)
        try:
            connection.request(method, target, body=data, headers=headers)
            response = connection.getresponse()
            return response, response.read()
        finally:
            connection.close()

    def status_of(self, method: str, path: str, body: Any = None, **kw: Any) -> int:
        """The status the API server answers a call with (no exception for errors)."""
        try:
            self.request(method, path, body, **kw)
        except ApiError as error:
            return error.status
        return 200

    def watch(self, path: str, query: dict[str, str]) -> Watch:
        """A watch (``?watch=1``) of ``path``: iterate it for ``{type, object}`` events; ``close()`` ends it.

        Raises:
            ApiError: the API server refused the watch.
        """
        connection = self._connection(None)
        target = f"{path}?{urllib.parse.urlencode({**query, 'watch': '1'})}"
        connection.request("GET", target, headers=self._headers(None))
        response = connection.getresponse()
        with self._lock:
            self.calls.append(("WATCH", target, response.status))
        if response.status >= 400:
            body = response.read()
            connection.close()
            raise ApiError(response.status, "WATCH", target, json.loads(body or b"{}"))
        return Watch(connection, response)


class Watch:
    """The events of one watch, until the API server ends it or :meth:`close` is called (from any thread)."""

    def __init__(
        self,
        connection: http.client.HTTPSConnection,
        response: http.client.HTTPResponse,
    ) -> None:
        self.connection, self.response = connection, response
        self.closed = threading.Event()

    def __iter__(self) -> Iterator[dict[str, Any]]:
        try:
            while not self.closed.is_set():
                try:
                    line = self.response.readline()
                except (OSError, ValueError, http.client.HTTPException):
                    return  # closed under us
                if not line:
                    return
                yield json.loads(line)
        finally:
            self.connection.close()

    def close(self) -> None:
        """End the watch: shut its socket down, which ends a blocked read."""
        self.closed.set()
        sock = self.connection.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


def kubeconfig(server: str, ca: Path, token: str, user: str) -> dict[str, Any]:
    """A kubeconfig that authenticates with a bearer token (what a pod's in-cluster config amounts to).

    https://kubernetes.io/docs/concepts/configuration/organize-cluster-access-kubeconfig/
    """
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": "local",
                "cluster": {"server": server, "certificate-authority": str(ca)},
            }
        ],
        "users": [{"name": user, "user": {"token": token}}],
        "contexts": [{"name": "local", "context": {"cluster": "local", "user": user}}],
        "current-context": "local",
    }
