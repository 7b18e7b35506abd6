"""The real-API-server tier's fixtures: one control plane per test process, a namespace per test.

``cluster`` (session scope, the widest) starts a control plane the first time a
test of this folder asks for it, in that test process only: each pytest-xdist
worker owns its own (own free ports, own directory under its own temporary
directory), and stops it at the end of the session; the stop fails the run if
any process of it survives. Where no binaries are found the whole tier is
skipped with the reason (docs/development.md, "The real-API-server tier");
``T2GEN_KUBEAPI=require`` (set by ``.ci/run`` when ``../shared/kube`` exists)
turns that skip into a failure.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import _kubectl_path
from tests.kubeapi import binaries
from tests.kubeapi.client import ApiError
from tests.kubeapi.controlplane import ControlPlane
from tests.kubeapi.kubelet import Kubelet
from tests.kubeapi.logserver import LogServer


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControlPlane]:
    """A real control plane (API server, and the controllers and scheduler when their binaries are there)."""
    found = binaries.find()
    if isinstance(found, str):
        if os.environ.get("T2GEN_KUBEAPI") == "require":
            pytest.fail(f"T2GEN_KUBEAPI=require, but {found}")
        pytest.skip(found)
    plane = ControlPlane(found, tmp_path_factory.mktemp("kube"))
    try:
        plane.start()
    except BaseException:
        plane.stop()
        raise
    yield plane
    survivors = plane.stop()
    assert not survivors, f"processes of the control plane outlived it: {survivors}"


@pytest.fixture(scope="session")
def controllers(cluster: ControlPlane) -> ControlPlane:
    """The control plane, with its controllers and scheduler (skips where only the API server is there)."""
    if not cluster.controllers:
        pytest.skip(
            "the control plane's binaries have no kube-controller-manager and kube-scheduler "
            "(KUBEBUILDER_ASSETS with envtest's set): this test needs the StatefulSet, Job, "
            "garbage-collector and TTL controllers"
        )
    return cluster


@pytest.fixture(scope="session")
def log_server(
    cluster: ControlPlane, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LogServer]:
    """The played kubelets' log endpoint (one for every Node of the session)."""
    server = LogServer(tmp_path_factory.mktemp("kubelet"))
    yield server
    server.close()


def namespace_name(test: str) -> str:
    """A DNS-1123 label, unique per test: ``t-<test's name>-<its digest>``."""
    digest = hashlib.sha256(test.encode()).hexdigest()[:8]
    stem = re.sub(r"[^a-z0-9]+", "-", test.lower()).strip("-")[:40].strip("-")
    return f"t-{stem}-{digest}"


@pytest.fixture
def namespace(cluster: ControlPlane, request: pytest.FixtureRequest) -> Iterator[str]:
    """A namespace of this test's own, deleted afterwards (its pods at once, as no kubelet will)."""
    name = namespace_name(request.node.name)
    cluster.admin.request(
        "POST",
        "/api/v1/namespaces",
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
    )
    yield name
    try:
        cluster.admin.request(
            "DELETE",
            f"/api/v1/namespaces/{name}/pods",
            query={"gracePeriodSeconds": "0"},
        )
        cluster.admin.request("DELETE", f"/api/v1/namespaces/{name}")
    except ApiError:
        pass  # a test that deleted it itself


@pytest.fixture
def kubelet(
    controllers: ControlPlane,
    log_server: LogServer,
    namespace: str,
    tmp_path: Path,
) -> Iterator[Kubelet]:
    """A Node of this test's own, its kubelet played (pods run, the supervisor's script runs locally)."""
    node = Kubelet(
        controllers.admin,
        log_server,
        namespace,
        tmp_path / "node",
        str(_kubectl_path()),
    )
    node.start()
    yield node
    errors = node.stop()
    assert not errors, f"the played kubelet's watch failed: {errors}"
