"""The contract on CPU and memory: binding, heaps and the memory volume.

See :mod:`tests.contract` for what the contract is and where it comes from.
"""

from __future__ import annotations

import pytest

from tests.contract import runtime as t2
from tests.contract.cases import case, quantity, rendered
from tests.contract.helpers import (
    cases_for,
    containers_of,
    env_value,
    memory_of,
    mib,
    resources_of,
    twister2_containers,
    volumes_of,
)

# ----------------------------------------------------------- CPU and memory


@pytest.mark.parametrize(
    "name", cases_for("bound-guaranteed", [n for n in rendered() if case(n).bound])
)
def test_bound_workers_are_guaranteed(name: str) -> None:
    """Bound workers get whole cores: CPU and memory limits equal to the requests, a whole number of CPUs.

    ``K8S/RequestObjectBuilder.java:320-322`` sets limits only (Kubernetes
    copies them into the requests: Guaranteed QoS, whole cores with the static
    CPU manager); ``K8S/KubernetesLauncher.java:526-538`` refuses a fractional CPU.
    """
    c = case(name)
    for role, pod, container in twister2_containers(c):
        if role != "worker":
            continue
        requests, limits = resources_of(container)
        for resource in ("cpu", "memory"):
            assert resource in limits, f"{pod}/{container['name']}: no {resource} limit"
            assert quantity(requests.get(resource, limits[resource])) == quantity(
                limits[resource]
            )
        assert quantity(limits["cpu"]) % 1 == 0, (
            f"{pod}/{container['name']}: fractional CPU"
        )


@pytest.mark.parametrize(
    "name",
    cases_for("unbound-no-cpu-limit", [n for n in rendered() if not case(n).bound]),
)
def test_unbound_workers_have_no_cpu_limit(name: str) -> None:
    """Unbound workers are not pinned: CPU requests only, as the launcher sets them.

    ``K8S/RequestObjectBuilder.java:323-326``: without ``kubernetes.bind.worker.to.cpu``
    the launcher sets requests, no limits, so no pod is Guaranteed and the
    static CPU manager gives none exclusive cores.
    """
    c = case(name)
    limited = [
        f"{pod}/{container['name']}"
        for role, pod, container in twister2_containers(c)
        if role == "worker" and "cpu" in resources_of(container)[1]
    ]
    assert not limited, f"CPU limits on unbound workers: {limited}"


@pytest.mark.parametrize("name", cases_for("heap-fits"))
def test_heap_fits_the_container(name: str) -> None:
    """The JVM heaps a container starts fit in its memory.

    ``java -Xms${JVM_MEMORY_MB}m -Xmx${JVM_MEMORY_MB}m`` (``IMG/init.sh:27``); with
    OpenMPI ``mpirun -npernode P ... java -Xmx<JVM_MEMORY_MB>m`` runs P worker
    JVMs in the one container (``K8S/mpi/MPIMasterStarter.java:237,254-256``).
    The launcher's heap is ram x fraction of a container of ram
    (``K8S/RequestObjectBuilder.java:368-369``; job master: ram of ram + 128Mi,
    ``K8S/master/JobMasterRequestObject.java:170-173,204``).
    """
    c = case(name)
    problems = []
    for statefulset, pod, spec in c.pods():
        is_worker = statefulset["metadata"]["name"] != f"{c.job}-jm"
        for container in containers_of(spec):
            heap, memory = env_value(container, "JVM_MEMORY_MB"), memory_of(container)
            if heap is None or memory is None:
                continue
            jvms = (
                c.groups[t2.index_from_name(statefulset["metadata"]["name"])].per_pod
                if c.mpi and is_worker
                else 1
            )
            if jvms * int(heap) >= memory:
                problems.append(
                    f"{pod}/{container['name']}: {jvms} x {heap} MiB of heap in {memory} MiB"
                )
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", cases_for("heap-and-memory-volume-fit"))
def test_heap_and_memory_volume_fit(name: str) -> None:
    """The package-fetching container's memory limit holds its heap and the memory volume.

    The ``-0`` container downloads the package into the memory-backed volume
    and unpacks it there (``IMG/get_job_package.sh:80,89``; the archive stays,
    so the volume holds it twice): tmpfs pages are charged to that container's
    memory, next to its heap of ``JVM_MEMORY_MB`` (``IMG/init.sh:27``). When the
    volume has a ``sizeLimit`` and the container a memory limit, both fit.
    """
    c = case(name)
    problems = []
    for _statefulset, pod, spec in c.pods():
        size = (volumes_of(spec).get(t2.MEMORY_VOLUME, {}).get("emptyDir") or {}).get(
            "sizeLimit"
        )
        first = next((k for k in containers_of(spec) if k["name"].endswith("-0")), None)
        if size is None or first is None or c.mpi:
            continue
        limit = resources_of(first)[1].get("memory")
        heap = env_value(first, "JVM_MEMORY_MB")
        if (
            limit is not None
            and heap is not None
            and int(heap) + mib(size) > mib(limit)
        ):
            problems.append(
                f"{pod}/{first['name']}: heap {heap} MiB + volume {size} > limit {limit}"
            )
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "name", cases_for("mpi-master-memory", [n for n in rendered() if case(n).mpi])
)
def test_mpi_master_memory(name: str) -> None:
    """Pod ``<job>-0-0``'s container holds the worker heaps and the MPI master JVM.

    With OpenMPI the first pod runs the MPI master JVM with no ``-Xmx``
    (``IMG/init_openmpi.sh:60-63``), whose heap may grow to a quarter of the
    container's memory (the JVM 8 default; ``BASE/:14-16`` installs OpenJDK 8), next
    to the P worker JVMs of ``JVM_MEMORY_MB`` each (``K8S/mpi/MPIMasterStarter.java:237,254-256``).
    """
    c = case(name)
    statefulset = c.worker_statefulsets[0]
    (container,) = containers_of(statefulset["spec"]["template"]["spec"])
    limit = resources_of(container)[1].get("memory")
    if limit is None:
        pytest.skip("no memory limit")
    heaps = c.groups[0].per_pod * int(env_value(container, "JVM_MEMORY_MB") or 0)
    assert heaps + mib(limit) / 4 <= mib(limit), (
        f"{heaps} MiB of worker heaps + a quarter of {limit}"
    )


@pytest.mark.parametrize("name", cases_for("package-fits-memory-volume"))
def test_package_fits_memory_volume(name: str) -> None:
    """A memory volume with a ``sizeLimit`` holds the job package twice (archive and unpacked).

    ``IMG/get_job_package.sh:26,49,80,89`` keeps the archive ``<job>.tar.gz``
    and unpacks it beside it; ``JOB_PACKAGE_FILE_SIZE`` is the archive's size
    in bytes (``K8S/RequestObjectBuilder.java:458-460``), when the job says it.
    """
    c = case(name)
    for _statefulset, pod, spec in c.pods():
        size = (volumes_of(spec).get(t2.MEMORY_VOLUME, {}).get("emptyDir") or {}).get(
            "sizeLimit"
        )
        for container in containers_of(spec):
            package = env_value(container, "JOB_PACKAGE_FILE_SIZE")
            if size is not None and package is not None:
                assert 2 * int(package) <= quantity(size), (
                    f"{pod}: package {package} B, volume {size}"
                )
