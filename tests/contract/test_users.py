"""The contract on who a container runs as: non-root pods the runtime can live in, and OpenMPI as the image sets it up.

See :mod:`tests.contract` for what the contract is and where it comes from.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.contract import runtime as t2
from tests.contract.cases import case, rendered
from tests.contract.helpers import (
    cases_for,
    containers_of,
    env_of,
    env_value,
    mounts_of,
    volumes_of,
)

BASE_SSH_USER = "openmpi"  # BASE/:70-71 (ARG SSH_USER=openmpi, ENV SSH_USER=$SSH_USER)


def _runs_as_root(pod: dict[str, Any], container: dict[str, Any]) -> bool:
    """Whether a container runs as uid 0: the image has no USER, so unless a securityContext says otherwise."""
    context = {
        **(pod.get("securityContext") or {}),
        **(container.get("securityContext") or {}),
    }
    return context.get("runAsNonRoot") is not True and context.get("runAsUser", 0) == 0


def _non_root_cases() -> list[str]:
    found = []
    for name in rendered():
        for statefulset in case(name).of_kind("StatefulSet"):
            pod = statefulset["spec"]["template"]["spec"]
            if any(not _runs_as_root(pod, c) for c in containers_of(pod)):
                found.append(name)
                break
    return found


def _writable_path(pod: dict[str, Any], container: dict[str, Any], path: str) -> bool:
    """Whether ``path`` lies on an emptyDir the container mounts (writable by any user)."""
    volumes = volumes_of(pod)
    for name, mount in mounts_of(container).items():
        volume = volumes.get(name) or {}
        if "emptyDir" in volume and (path == mount or path.startswith(mount + "/")):
            return True
    return False


@pytest.mark.parametrize("name", cases_for("non-root-writable", _non_root_cases()))
def test_non_root_containers_can_write_their_logs_and_home(name: str) -> None:
    """A container that does not run as root has a writable ``/twister2-volatile``, ``HOME`` and JVM ``user.home``.

    The runtime logs to files under ``/twister2-volatile/logs`` by default
    (``twister2/config/src/yaml/conf/common/logger.properties:31``,
    ``twister2/api/src/java/edu/iu/dsc/tws/api/config/FileSystemContext.java:56-61``,
    ``twister2/common/src/java/edu/iu/dsc/tws/common/logging/LoggingContext.java:156-180``)
    and ``K8S/worker/K8sWorkerUtils.java:105-114`` throws "Failed to create the log
    directory" when ``mkdirs`` fails: in the image ``/`` is root's, so for any
    other user the path must be a volume. The container runtime gives a user with
    no passwd entry ``HOME=/``, and the image's JDK 8 (``BASE/:14-16``) takes
    ``user.home`` from the passwd entry only, so both must point at such a volume
    (``-Duser.home`` in ``JAVA_TOOL_OPTIONS``, which every JVM reads).
    """
    c = case(name)
    problems = []
    for statefulset in c.of_kind("StatefulSet"):
        pod = statefulset["spec"]["template"]["spec"]
        for container in containers_of(pod):
            if _runs_as_root(pod, container):
                continue
            where = f"{statefulset['metadata']['name']}/{container['name']}"
            if not _writable_path(pod, container, f"{t2.VOLATILE_MOUNT}/logs"):
                problems.append(f"{where}: no writable volume at {t2.VOLATILE_MOUNT}")
            home = env_value(container, "HOME")
            if home is None or not _writable_path(pod, container, home):
                problems.append(f"{where}: HOME {home!r} is not on a writable volume")
            options = (env_value(container, "JAVA_TOOL_OPTIONS") or "").split()
            homes = [
                o.split("=", 1)[1] for o in options if o.startswith("-Duser.home=")
            ]
            if not homes or not _writable_path(pod, container, homes[-1]):
                problems.append(
                    f"{where}: the JVM's user.home is not on a writable volume"
                )
    assert not problems, "\n".join(problems)


def test_the_restricted_example_is_covered() -> None:
    """``examples/gpu-cluster.yaml`` (``profile: restricted``, no ``volatileDisk``) is the issue's case."""
    assert {"example/gpu-cluster", "golden/gpu-cluster", "golden/hardened"} <= set(
        _non_root_cases()
    )


@pytest.mark.parametrize(
    "name", cases_for("openmpi-as-the-image", [n for n in rendered() if case(n).mpi])
)
def test_openmpi_runs_as_the_base_image_sets_it_up(name: str) -> None:
    """OpenMPI pods run as root with the per-job key where the image's sshd looks, and keep port 2022 free.

    The base image makes ``SSH_USER=openmpi`` and expects its key files under
    ``/ssh-key/$SSH_USER`` (``BASE/:65-74``); ``start_sshd.sh`` copies them from
    there as root (``chown``, ``IMG/../start_sshd.sh:23-36``), writes its
    configuration under ``/.sshd`` (``:18-19,39``, directories ``BASE/:81-86``
    creates for root and ``openmpi``) and listens on 2022 (``:44``). So: every
    container runs as root, mounts the job's key Secret (``spec.mpi.sshSecretName``,
    ``<job>-ssh`` by default, made by ``t2gen secret ssh``) at
    ``/ssh-key/openmpi`` with mode 0400 (``K8S/RequestObjectBuilder.java:277-285,349-355``),
    does not override ``SSH_USER``, and declares no port 2022 of its own.
    """
    c = case(name)
    secret = (c.spec.get("mpi") or {}).get("sshSecretName") or f"{c.job}-ssh"
    assert f"/ssh-key/{BASE_SSH_USER}" == t2.SECRET_MOUNT
    for statefulset in c.worker_statefulsets:
        pod = statefulset["spec"]["template"]["spec"]
        volume = volumes_of(pod).get(t2.SECRET_VOLUME) or {}
        assert (volume.get("secret") or {}).get("secretName") == secret
        assert (volume.get("secret") or {}).get("defaultMode") == 0o400
        for container in containers_of(pod):
            assert _runs_as_root(pod, container), container["name"]
            assert mounts_of(container).get(t2.SECRET_VOLUME) == t2.SECRET_MOUNT
            assert "SSH_USER" not in env_of(container)
            ports = [int(p["containerPort"]) for p in container.get("ports") or []]
            assert t2.SSHD_PORT not in ports
