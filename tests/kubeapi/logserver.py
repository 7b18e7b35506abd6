"""The kubelet's log endpoint, played: what ``kubectl logs`` reaches through the API server.

``kubectl logs POD -c C [--previous] [--tail N] [--follow]`` calls the API
server's ``pods/log`` subresource, which the API server proxies to the kubelet
of the pod's node at ``https://<node InternalIP>:<daemonEndpoints.kubeletEndpoint.Port>/containerLogs/<ns>/<pod>/<container>``
(kubernetes/kubernetes ``pkg/registry/core/pod/strategy.go``, ``LogLocation``;
the API server does not check the kubelet's certificate unless
``--kubelet-certificate-authority`` is set). This server answers those
requests from logs a test writes, so the supervisor's log handling, and its
Role's ``pods/log`` grant, run through the real API server.
"""

from __future__ import annotations

import datetime
import http.server
import ssl
import threading
import urllib.parse
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


class ContainerLog:
    """One container's log: the current run's lines, the previous run's, and whether the current one ended."""

    def __init__(self) -> None:
        self.current = ""
        self.previous = ""
        self.ended = False
        self.followers = 0
        self.changed = threading.Condition()

    def write(self, text: str) -> None:
        with self.changed:
            self.current += text
            self.changed.notify_all()

    def restart(self) -> None:
        """The container restarted: its log becomes the previous one."""
        with self.changed:
            self.previous, self.current = self.current, ""
            self.changed.notify_all()

    def end(self) -> None:
        """The container stopped: followers see the end of the stream."""
        with self.changed:
            self.ended = True
            self.changed.notify_all()


def _tail(text: str, lines: str | None) -> str:
    if lines is None:
        return text
    kept = text.splitlines(keepends=True)
    return "".join(kept[-int(lines) :]) if int(lines) > 0 else ""


class LogServer:
    """An HTTPS server on 127.0.0.1 (a free port: ``port``) serving ``/containerLogs/NS/POD/CONTAINER``."""

    def __init__(self, directory: Path) -> None:
        self.logs: dict[tuple[str, str, str], ContainerLog] = {}
        self.requests: list[str] = []
        self.lock = threading.Lock()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # the stream ends when the connection closes

            def log_message(self, format: str, *args: object) -> None:
                del format, args

            def do_GET(self) -> None:
                server.serve(self)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        cert, key = _self_signed(directory)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(cert), str(key))
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def log(self, namespace: str, pod: str, container: str) -> ContainerLog:
        """The log of one container (made empty on first use)."""
        with self.lock:
            return self.logs.setdefault((namespace, pod, container), ContainerLog())

    def serve(self, handler: http.server.BaseHTTPRequestHandler) -> None:
        url = urllib.parse.urlsplit(handler.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        parts = url.path.strip("/").split("/")
        with self.lock:
            self.requests.append(handler.path)
        if len(parts) != 4 or parts[0] != "containerLogs":
            handler.send_error(404)
            return
        log = self.log(parts[1], parts[2], parts[3])
        handler.send_response(200)
        handler.send_header("Content-Type", "text/plain")
        handler.end_headers()
        if query.get("previous") == "true":
            handler.wfile.write(_tail(log.previous, query.get("tailLines")).encode())
            return
        with log.changed:
            sent = len(log.current)
            text = _tail(log.current, query.get("tailLines"))
            follow = query.get("follow") == "true"
            if follow:
                log.followers += 1
                log.changed.notify_all()
        try:
            handler.wfile.write(text.encode())
            handler.wfile.flush()
            while follow:
                with log.changed:
                    log.changed.wait_for(
                        lambda at=sent: log.ended or len(log.current) > at
                    )
                    more, sent = log.current[sent:], len(log.current)
                    done = log.ended
                handler.wfile.write(more.encode())
                handler.wfile.flush()
                if done:
                    return
        except OSError:
            return  # the API server closed the stream (kubectl was stopped)
        finally:
            if follow:
                with log.changed:
                    log.followers -= 1

    def close(self) -> None:
        """Stop serving; end every log so no follower waits."""
        for log in list(self.logs.values()):
            log.end()
        self.httpd.shutdown()
        self.httpd.server_close()


def _self_signed(directory: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubelet")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=2))
        .sign(key, hashes.SHA256())
    )
    directory.mkdir(parents=True, exist_ok=True)
    cert_path, key_path = directory / "kubelet.crt", directory / "kubelet.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path
