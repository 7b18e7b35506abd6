"""Every golden manifest applied server-side to the real API server, with no warning (issue 40, item 3).

Each golden whose output is Kubernetes objects (``render`` and ``secret``),
read as kubectl reads it, goes into a namespace of the test's own
(``metadata.namespace`` and the RoleBindings' subjects moved there) and
through ``kubectl apply --server-side`` as kubectl sends it: first with
``--dry-run=server``, then for real. Each must succeed with no ``Warning:``
line: the API server's field validation
(strict under server-side apply), defaulting, admission (PodSecurity,
ServiceAccount, LimitRanger) and deprecation warnings all run. The
namespace's ResourceQuota of 0 pods keeps the StatefulSet and Job controllers
from making pods nobody runs; it does not touch the objects applied.

Not applied, with the reason each test prints: a golden rendered for another
Kubernetes version than the server's (``--kube-version 1.35``), and objects
of an API version the server does not serve (the default render targets
Kubernetes 1.37, whose Workload API is ``scheduling.k8s.io/v1beta1``; 1.36
serves ``v1alpha2``). The Volcano and coscheduling PodGroups are validated
against CRDs made from t2gen's schemas of them (:mod:`tests.kubeapi.crds`).
"""

from __future__ import annotations

import json
import shlex
from typing import Any

import pytest

from tests.conftest import GOLDEN, kubectl_objects
from tests.kubeapi.client import APPLY_PATCH, ApiError
from tests.kubeapi.controlplane import ControlPlane
from tests.kubeapi.crds import GANG_KINDS, definition
from tests.kubeapi.kubelet import until


def _manifest_goldens() -> list[str]:
    found = []
    for directory in sorted(GOLDEN.iterdir()):
        args = directory / "args"
        if not (args.is_file() and (directory / "expected.stdout").is_file()):
            continue
        if (directory / "expected.exit_code").exists():
            continue
        command = shlex.split(args.read_text())[:1]
        if command in (["render"], ["secret"]):
            found.append(directory.name)
    return found


GOLDENS = _manifest_goldens()


@pytest.fixture(scope="session")
def gang_crds(cluster: ControlPlane) -> None:
    """The Volcano and coscheduling PodGroup CRDs, installed once and Established."""
    for group, version in GANG_KINDS:
        crd = definition(group, version)
        try:
            cluster.admin.request(
                "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd
            )
        except ApiError as error:
            if error.status != 409:
                raise
        until(
            lambda crd=crd: _established(cluster, crd["metadata"]["name"]),
            f"CRD {crd['metadata']['name']} to be established",
        )


def _established(cluster: ControlPlane, name: str) -> bool:
    path = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}"
    status = cluster.admin.request("GET", path).get("status") or {}
    return any(
        c["type"] == "Established" and c["status"] == "True"
        for c in status.get("conditions") or []
    )


def _resources(cluster: ControlPlane, api_version: str) -> dict[str, dict[str, Any]]:
    """Discovery: kind -> resource of ``api_version`` ({} when the server does not serve it)."""
    if api_version not in _DISCOVERY:
        path = f"/apis/{api_version}" if "/" in api_version else f"/api/{api_version}"
        try:
            listed = cluster.admin.request("GET", path)["resources"]
        except ApiError:
            listed = []
        _DISCOVERY[api_version] = {r["kind"]: r for r in listed if "/" not in r["name"]}
    return _DISCOVERY[api_version]


_DISCOVERY: dict[str, dict[str, dict[str, Any]]] = {}


def _apply(cluster: ControlPlane, obj: dict[str, Any], dry_run: bool) -> list[str]:
    """``kubectl apply --server-side`` of one object, as kubectl sends it; returns the ``Warning:`` lines.

    kubectl sends a ``PATCH`` of type ``application/apply-patch+yaml`` with
    ``fieldManager=kubectl`` (and ``dryRun=All`` for ``--dry-run=server``), and
    prints each ``Warning`` header of the answer as a ``Warning:`` line
    (https://kubernetes.io/docs/reference/using-api/server-side-apply/,
    https://kubernetes.io/blog/2020/09/03/warnings/).

    Raises:
        ApiError: the API server refused the object.
    """
    resource = _resources(cluster, obj["apiVersion"])[obj["kind"]]
    base = "/apis" if "/" in obj["apiVersion"] else "/api"
    meta = obj["metadata"]
    path = f"{base}/{obj['apiVersion']}/namespaces/{meta['namespace']}/{resource['name']}/{meta['name']}"
    query = {"fieldManager": "kubectl", **({"dryRun": "All"} if dry_run else {})}
    cluster.admin.request("PATCH", path, obj, content_type=APPLY_PATCH, query=query)
    return [f"Warning: {text}" for text in cluster.admin.warnings.pop(path, [])]


def _in_namespace(obj: dict[str, Any], namespace: str) -> dict[str, Any]:
    moved = json.loads(json.dumps(obj))
    moved["metadata"]["namespace"] = namespace
    for subject in moved.get("subjects") or []:
        if subject.get("kind") == "ServiceAccount":
            subject["namespace"] = namespace
    return dict(moved)


@pytest.mark.parametrize("case", GOLDENS)
def test_golden_applies_server_side_without_warnings(
    cluster: ControlPlane, gang_crds: None, namespace: str, kubectl: Any, case: str
) -> None:
    args = shlex.split((GOLDEN / case / "args").read_text())
    minor = ".".join(cluster.version().lstrip("v").split(".")[:2])
    if "--kube-version" in args and args[args.index("--kube-version") + 1] != minor:
        pytest.skip(
            f"rendered for Kubernetes {args[args.index('--kube-version') + 1]} (--kube-version); the server is {minor}"
        )
    objects = kubectl_objects(kubectl, GOLDEN / case / "expected.stdout")
    served = [o for o in objects if o["kind"] in _resources(cluster, o["apiVersion"])]
    for obj in objects:
        if obj not in served:
            print(
                f"{case}: not applied: {obj['apiVersion']} {obj['kind']} {obj['metadata']['name']}: the server ({minor}) does not serve {obj['apiVersion']}"
            )
    cluster.admin.request(
        "POST",
        f"/api/v1/namespaces/{namespace}/resourcequotas",
        {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": {"name": "no-pods"},
            "spec": {"hard": {"pods": "0"}},
        },
    )
    moved = [_in_namespace(o, namespace) for o in served]
    for dry_run in (True, False):  # a dry run, then for real
        for obj in moved:
            try:
                warnings = _apply(cluster, obj, dry_run)
            except ApiError as error:
                # A PodGroup of the Workload API is admitted only once its Workload
                # exists, which a first dry run does not create.
                assert dry_run and "PodGroup rejected: Workload" in str(error), error
                continue
            assert not warnings, (obj["kind"], obj["metadata"]["name"], warnings)
