"""The contract on pods: containers, commands, volumes, labels, worker IDs, ports and OpenMPI.

See :mod:`tests.contract` for what the contract is and where it comes from.
"""

from __future__ import annotations

import pytest

from tests.contract import runtime as t2
from tests.contract.cases import case, rendered, secret_cases
from tests.contract.helpers import (
    cases_for,
    compute_resources,
    containers_of,
    declared_ports,
    env_value,
    mounts_of,
    pod_label_sets,
    selects,
    twister2_containers,
    volumes_of,
)

# ---------------------------------------------------------- containers and commands


@pytest.mark.parametrize("name", cases_for("containers"))
def test_container_names_and_commands(name: str) -> None:
    """Containers are named and started as the runtime expects.

    Worker containers are ``twister2-container-<c>``, c = 0..perPod-1
    (``K8S/KubernetesConstants.java:23``, ``K8S/KubernetesUtils.java:135-137``; the
    worker ID reads c, ``K8S/worker/K8sWorkerUtils.java:142``); with OpenMPI one
    container per pod (``K8S/RequestObjectBuilder.java:218-221``); the job
    master's is ``twister2-job-master-0`` (``K8S/master/JobMasterRequestObject.java:158``).
    Exactly one container per pod has a name ending in ``-0``: it fetches the
    job package, the others wait for it (``IMG/get_job_package.sh:109-114``).
    Command ``/bin/bash -c ./init.sh`` (``./init_openmpi.sh`` with OpenMPI,
    ``K8S/RequestObjectBuilder.java:305-317``, ``JobMasterRequestObject.java:167-168``),
    relative to the image's ``WORKDIR /twister2/`` (``docker/kubernetes/image/Dockerfile:21``).
    """
    c = case(name)
    problems = []
    for statefulset, pod, spec in c.pods():
        is_job_master = statefulset["metadata"]["name"] == f"{c.job}-jm"
        containers = containers_of(spec)
        names = [container["name"] for container in containers]
        if is_job_master:
            expected = [t2.JOB_MASTER_CONTAINER]
        else:
            index = t2.index_from_name(statefulset["metadata"]["name"])
            per_pod = 1 if c.mpi else c.groups[index].per_pod
            expected = [f"{t2.CONTAINER_PREFIX}{i}" for i in range(per_pod)]
        if names != expected:
            problems.append(f"{pod}: containers {names}, the runtime needs {expected}")
        if sum(n.endswith("-0") for n in names) != 1:
            problems.append(f"{pod}: not exactly one container name ends in -0")
        script = "./init_openmpi.sh" if c.mpi and not is_job_master else "./init.sh"
        for container in containers:
            command = [*container.get("command", []), *container.get("args", [])]
            if command != ["/bin/bash", "-c", script]:
                problems.append(
                    f"{pod}/{container['name']}: runs {command}, not /bin/bash -c {script}"
                )
            if container.get("workingDir", "/twister2") not in (
                "/twister2",
                "/twister2/",
            ):
                problems.append(
                    f"{pod}/{container['name']}: workingDir is not the image's /twister2"
                )
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------- volumes


@pytest.mark.parametrize("name", cases_for("volumes"))
def test_volumes_and_mount_paths(name: str) -> None:
    """The volumes the runtime writes to are there, at the paths it writes to.

    Every Twister2 container mounts the memory-backed ``twister2-memory-dir`` at
    ``/twister2-memory-dir``, where the package is unpacked and the job read
    (``K8S/RequestObjectBuilder.java:185-191,329-333``, ``K8S/KubernetesConstants.java:19-20``,
    ``K8S/worker/K8sWorkerStarter.java:85-93``, ``IMG/get_job_package.sh:21-26``).
    A group with scratch disk mounts ``twister2-volatile-dir`` at
    ``/twister2-volatile`` (``K8S/RequestObjectBuilder.java:193-199,335-340``;
    ``K8S/worker/K8sVolatileVolume.java:25``). A job with a claim mounts
    ``persistent-volume`` (claim ``<job>``) at ``/persistent`` in every worker
    (``K8S/RequestObjectBuilder.java:201-205,342-347``). OpenMPI pods mount the
    SSH Secret ``kube-openmpi-ssh-key`` at ``/ssh-key/openmpi``
    (``K8S/RequestObjectBuilder.java:207-212,349-355``, ``IMG/../start_sshd.sh:28``).
    """
    c = case(name)
    claims = [
        pvc["metadata"]["name"]
        for pvc in c.of_kind("PersistentVolumeClaim")
        if pvc["metadata"]["name"] == c.job  # not spec.logs' <job>-logs
    ]
    problems = []
    for statefulset, pod, spec in c.pods():
        volumes = volumes_of(spec)
        is_worker = statefulset["metadata"]["name"] != f"{c.job}-jm"
        wanted = {t2.MEMORY_VOLUME: t2.MEMORY_MOUNT}
        if (volumes.get(t2.MEMORY_VOLUME) or {}).get("emptyDir") is None:
            problems.append(f"{pod}: no emptyDir volume {t2.MEMORY_VOLUME}")
        if is_worker:
            group = c.groups[t2.index_from_name(statefulset["metadata"]["name"])]
            if group.volatile:
                wanted[t2.VOLATILE_VOLUME] = t2.VOLATILE_MOUNT
            if claims:
                wanted[t2.PERSISTENT_VOLUME] = t2.PERSISTENT_MOUNT
            if c.mpi:
                wanted[t2.SECRET_VOLUME] = t2.SECRET_MOUNT
        for volume, path in (
            (t2.VOLATILE_VOLUME, t2.VOLATILE_MOUNT),
            (t2.PERSISTENT_VOLUME, t2.PERSISTENT_MOUNT),
        ):
            if volume in volumes:  # a job master with scratch or claim space
                wanted[volume] = path
        if t2.PERSISTENT_VOLUME in volumes:
            claim = (
                volumes[t2.PERSISTENT_VOLUME].get("persistentVolumeClaim") or {}
            ).get("claimName")
            if claim != c.job:
                problems.append(
                    f"{pod}: {t2.PERSISTENT_VOLUME} is claim {claim!r}, not {c.job!r}"
                )
        if c.mpi and is_worker:
            secret = volumes.get(t2.SECRET_VOLUME, {}).get("secret") or {}
            if not secret.get("secretName"):
                problems.append(f"{pod}: {t2.SECRET_VOLUME} is not a Secret volume")
        for container in containers_of(spec):
            mounts = mounts_of(container)
            for volume, path in wanted.items():
                if mounts.get(volume) != path:
                    problems.append(
                        f"{pod}/{container['name']}: {volume} must be mounted at {path}"
                    )
    assert not problems, "\n".join(problems)


def _read_only_cases() -> list[str]:
    return [
        name
        for name in rendered()
        if any(
            (container.get("securityContext") or {}).get("readOnlyRootFilesystem")
            for statefulset in case(name).of_kind("StatefulSet")
            for container in containers_of(statefulset["spec"]["template"]["spec"])
        )
    ]


@pytest.mark.parametrize("name", cases_for("read-only-root", _read_only_cases()))
def test_read_only_root_leaves_every_written_path_writable(name: str) -> None:
    """A container with a read-only root filesystem has a writable volume at each path the runtime writes.

    :data:`t2.WRITTEN_PATHS` (the memory volume, the volatile root with its logs,
    ``/tmp``) and ``/persistent`` when the pod has the claim; none of them a
    read-only mount, an emptyDir for the ones t2gen owns.
    """
    problems = []
    for statefulset in case(name).of_kind("StatefulSet"):
        pod = statefulset["metadata"]["name"]
        spec = statefulset["spec"]["template"]["spec"]
        volumes = volumes_of(spec)
        for container in containers_of(spec):
            if not (container.get("securityContext") or {}).get(
                "readOnlyRootFilesystem"
            ):
                continue
            by_path = {m["mountPath"]: m for m in container.get("volumeMounts") or []}
            wanted = list(t2.WRITTEN_PATHS)
            if t2.PERSISTENT_VOLUME in volumes:
                wanted.append(t2.PERSISTENT_MOUNT)
            for path in wanted:
                mount = by_path.get(path)
                if mount is None or mount.get("readOnly"):
                    problems.append(
                        f"{pod}/{container['name']}: {path} is not writable"
                    )
                elif path != t2.PERSISTENT_MOUNT and "emptyDir" not in volumes.get(
                    mount["name"], {}
                ):
                    problems.append(f"{pod}/{container['name']}: {path} is no emptyDir")
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------ labels and watches


@pytest.mark.parametrize("name", cases_for("labels"))
def test_pod_labels_for_watches(name: str) -> None:
    """Worker pods carry ``t2-wp=<job>``, the job master's ``t2-mp=<job>``, never the other's; all carry ``t2-job=<job>``.

    The MPI master counts the Running pods labelled ``t2-wp`` until it has one
    per worker pod (``K8S/PodWatchUtils.java:555-604``, ``K8S/mpi/MPIMasterStarter.java:98,140``);
    a worker takes the first Running pod labelled ``t2-mp`` as the job master
    (``K8S/PodWatchUtils.java:483-528``); the client copies the package into every
    pod labelled ``t2-job`` (``uploaders/k8s/DirectUploader.java:107-142``).
    """
    c = case(name)
    problems = []
    for role, statefulset, labels in pod_label_sets(c):
        own, other = (
            (t2.worker_pod_selector(c.job), "t2-mp")
            if role == "worker"
            else (t2.job_master_pod_selector(c.job), "t2-wp")
        )
        if not selects({**own, **t2.job_label_selector(c.job)}, labels):
            problems.append(f"{statefulset}: pods lack {own} or t2-job={c.job}")
        if other in labels:
            problems.append(
                f"{statefulset}: pods carry {other}, the other role's watch label"
            )
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", cases_for("job-master-service"))
def test_job_master_service(name: str) -> None:
    """A headless Service ``<job>-jm`` selects the job master's pod and no worker.

    Workers resolve ``<job>-jm.<namespace>.svc.cluster.local`` to the job
    master's address (``K8S/worker/K8sWorkerUtils.java:197-209``,
    ``K8S/worker/K8sWorkerStarter.java:234-236``); the launcher makes it headless
    (``K8S/master/JobMasterRequestObject.java:272-301``, ``K8S/KubernetesLauncher.java:387-391``).
    """
    c = case(name)
    service = c.named("Service", f"{c.job}-jm")
    assert service is not None, f"no Service {c.job}-jm"
    assert service["spec"].get("clusterIP") == "None"
    selector = service["spec"].get("selector") or {}
    assert selector
    for role, statefulset, labels in pod_label_sets(c):
        assert selects(selector, labels) == (role == "job-master"), statefulset


# -------------------------------------------------------------- worker IDs, ports


@pytest.mark.parametrize("name", cases_for("worker-ids"))
def test_worker_ids_unique_and_contiguous(name: str) -> None:
    """The worker IDs the runtime computes are 0..workers-1, each once.

    Without OpenMPI, per container: ``K8S/worker/K8sWorkerUtils.java:135-169``
    (:func:`tests.contract.runtime.worker_id`). With OpenMPI the ID is the MPI
    rank (``K8S/mpi/MPIWorkerStarter.java:90-93``): ``mpirun -npernode P`` over
    one hostfile line per worker pod with ``slots=P``, P the first group's
    workers per pod (``K8S/mpi/MPIMasterStarter.java:97-98,150,194-205,233-238``),
    so every group must share P (``K8S/KubernetesLauncher.java:512-524``).
    """
    c = case(name)
    workers = sum(g.count for g in c.groups)
    if c.mpi:
        per_pod = {g.per_pod for g in c.groups}
        assert len(per_pod) == 1, (
            f"OpenMPI groups have workers per pod {sorted(per_pod)}"
        )
        pods = sum(int(s["spec"].get("replicas", 1)) for s in c.worker_statefulsets)
        assert pods * per_pod.pop() == workers
        return
    try:
        resources = compute_resources(c)
        ids = [
            t2.worker_id(resources, pod, container["name"])
            for role, pod, container in twister2_containers(c)
            if role == "worker"
        ]
    except (ValueError, LookupError) as err:  # the worker would throw
        raise AssertionError(f"the runtime cannot compute a worker ID: {err}") from err
    assert sorted(ids) == list(range(workers)), f"worker IDs {sorted(ids)}"


@pytest.mark.parametrize("name", cases_for("ports"))
def test_ports_unique_per_pod(name: str) -> None:
    """Within a pod, no two workers listen on the same port, nor on sshd's.

    Container c's worker listens on ``WORKER_PORT`` (``K8S/worker/K8sWorkerStarter.java:70``)
    = basePort + c x (A + 1), A the additional ports (``K8S/RequestObjectBuilder.java:359-366``),
    which it opens at ``WORKER_PORT + 1..A`` (``K8S/worker/K8sWorkerUtils.java:263-278``);
    its first declared port is that port. With OpenMPI, rank r listens on
    basePort + r x (A + 1) (``K8S/mpi/MPIWorkerStarter.java:146-147``) next to
    sshd on 2022 (``IMG/../start_sshd.sh:44``).
    """
    c = case(name)
    problems = []
    stride = c.additional_ports + 1
    for _statefulset, pod, spec in c.pods():
        declared: list[int] = []
        runtime: list[int] = []
        base: int | None = None
        for container in containers_of(spec):
            ports = declared_ports(container)
            declared += ports
            worker_port = env_value(container, "WORKER_PORT")
            if worker_port is None:
                continue
            first = int(worker_port)
            if not ports or ports[0] != first:
                problems.append(
                    f"{pod}/{container['name']}: WORKER_PORT {first} is not its first port {ports[:1]}"
                )
            if c.mpi:
                workers = sum(g.count for g in c.groups)
                runtime += [
                    first + rank * stride + i
                    for rank in range(workers)
                    for i in range(stride)
                ]
                continue
            index = t2.index_from_name(container["name"])
            base = first if base is None else base
            if first != base + index * stride:
                problems.append(
                    f"{pod}/{container['name']}: WORKER_PORT {first} is not {base} + {index} x {stride}"
                )
            runtime += range(first, first + stride)
        for ports, what in ((declared, "declared"), (runtime, "worker")):
            twice = sorted({p for p in ports if ports.count(p) > 1})
            if twice:
                problems.append(f"{pod}: {what} ports used twice: {twice}")
        if c.mpi and t2.SSHD_PORT in runtime:
            problems.append(f"{pod}: a worker port is sshd's {t2.SSHD_PORT}")
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------ OpenMPI


@pytest.mark.parametrize(
    "name", cases_for("mpi-pods", [n for n in rendered() if case(n).mpi])
)
def test_mpi_pods(name: str) -> None:
    """OpenMPI: one pod named ``*-0-0`` starts the MPI master, and its containers can run sshd as root.

    ``IMG/init_openmpi.sh:49-63`` starts the MPI master only where ``$HOSTNAME``
    ends in ``-0-0`` (pod 0 of StatefulSet ``<job>-0``). ``IMG/../start_sshd.sh:8-36``
    copies the keys as root (``chown``, ``chmod``) and sshd switches users; the
    MPI master writes ``hostip.txt`` and the hostfile into the image's
    ``/twister2`` (``IMG/init_openmpi.sh:43-46``, ``K8S/mpi/MPIMasterStarter.java:194-205``)
    and runs ``mpirun --allow-run-as-root`` (``:236``).
    """
    c = case(name)
    masters = [
        pod
        for role, pod, _ in twister2_containers(c)
        if role == "worker" and pod.endswith("-0-0")
    ]
    assert masters == [f"{c.job}-0-0"]
    for statefulset in c.worker_statefulsets:
        spec = statefulset["spec"]["template"]["spec"]
        pod_context = spec.get("securityContext") or {}
        for container in containers_of(spec):
            context = {**pod_context, **(container.get("securityContext") or {})}
            assert context.get("runAsNonRoot") is not True
            assert context.get("runAsUser", 0) == 0
            dropped = set((context.get("capabilities") or {}).get("drop") or [])
            assert not dropped & {"ALL", "CHOWN", "SETUID", "SETGID", "DAC_OVERRIDE"}, (
                dropped
            )


@pytest.mark.parametrize("name", secret_cases())
def test_ssh_secret_keys(name: str) -> None:
    """The SSH Secret holds ``id_rsa`` and ``authorized_keys``.

    ssh reads ``IdentityFile /.sshd/user_keys/%u/id_rsa``
    (``docker/kubernetes/image/rootfs/etc/ssh/ssh_config:2``), sshd
    ``AuthorizedKeysFile /.sshd/user_keys/%u/authorized_keys``
    (``IMG/../start_sshd.sh:74``), both copied from the Secret's mount (``:28``).
    """
    import yaml

    from tests.conftest import GOLDEN

    text = (GOLDEN / name / "expected.stdout").read_text(encoding="utf-8")
    (secret,) = [d for d in yaml.safe_load_all(text) if d and d.get("kind") == "Secret"]
    keys = set(secret.get("data") or {}) | set(secret.get("stringData") or {})
    assert {"id_rsa", "authorized_keys"} <= keys
