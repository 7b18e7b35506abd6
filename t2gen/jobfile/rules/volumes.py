"""Extra volumes (``volumes``): one source each, names and paths clear of t2gen's own and of each other."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from t2gen.errors import Problem, Warning_, format_json_path
from t2gen.inputs.yaml import JsonPath, SourceDoc
from t2gen.jobfile.rules._base import (
    Rule,
    as_dict,
    as_list,
    as_quantity,
    groups,
    problem,
    rule,
    warning,
)
from t2gen.twister2 import names

VOLUME_SOURCES = ("configMap", "secret", "persistentVolumeClaim", "emptyDir", "csi")
"""The volume sources a job may name (Kubernetes' ``Volume``, one of them)."""

# t2gen's own volumes: name -> mount path (t2gen/twister2/names.py, after Twister2's
# KubernetesConstants: POD_MEMORY_VOLUME_NAME, POD_VOLATILE_VOLUME_NAME,
# PERSISTENT_VOLUME_NAME and the OpenMPI key's volume) and /dev/shm of `shmSize`.
_OWN = {
    names.MEMORY_VOLUME: names.MEMORY_VOLUME_PATH,
    names.VOLATILE_VOLUME: names.VOLATILE_VOLUME_PATH,
    names.PERSISTENT_VOLUME: names.PERSISTENT_VOLUME_PATH,
    names.SSH_KEY_VOLUME: names.SSH_KEY_VOLUME_PATH,
    "dshm": "/dev/shm",
}


def _own(data: dict[str, Any]) -> dict[str, str]:
    """t2gen's own volumes of this job: :data:`_OWN`, and ``/tmp`` with a read-only root filesystem."""
    security = as_dict(as_dict(data.get("spec")).get("security"))
    if security.get("readOnlyRootFilesystem") is True:
        return {**_OWN, names.TMP_VOLUME: names.TMP_VOLUME_PATH}
    return _OWN


def _scopes(data: dict[str, Any]) -> Iterator[tuple[JsonPath, dict[str, Any]]]:
    """Yield (path, mapping) of ``spec``, every worker group and the job master."""
    spec = as_dict(data.get("spec"))
    yield ("spec",), spec
    for index, group in groups(data):
        yield ("spec", "workers", index), group
    yield ("spec", "jobMaster"), as_dict(spec.get("jobMaster"))


def _volumes(holder: dict[str, Any]) -> Iterator[tuple[int, dict[str, Any]]]:
    for index, volume in enumerate(as_list(holder.get("volumes"))):
        if isinstance(volume, dict):
            yield index, volume


def _overlaps(path: str, other: str) -> bool:
    """Whether one path is the other or lies under it."""
    a, b = posixpath.normpath(path), posixpath.normpath(other)
    return (
        a == b or a.startswith(b.rstrip("/") + "/") or b.startswith(a.rstrip("/") + "/")
    )


@rule(
    "volume-source",
    fields=("spec.volumes[]", "spec.workers[].volumes[]", "spec.jobMaster.volumes[]"),
)
def check_volume_source(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Each extra volume names exactly one source.

    A Kubernetes ``Volume`` has one source: ``configMap``, ``secret``,
    ``persistentVolumeClaim``, ``emptyDir`` or ``csi`` here; the API server
    refuses a volume with none or with two ("may not specify more than 1 volume type").

    Source: Kubernetes ``pkg/apis/core/validation/validation.go``
    (``validateVolumeSource``, kubernetes/kubernetes).
    """
    for path, holder in _scopes(data):
        for index, volume in _volumes(holder):
            given = [key for key in VOLUME_SOURCES if key in volume]
            if len(given) == 1:
                continue
            where = (*path, "volumes", index)
            if not given:
                yield problem(
                    doc,
                    where,
                    "a volume needs a source: one of " + ", ".join(VOLUME_SOURCES),
                )
            else:
                yield problem(
                    doc,
                    (*where, given[1]),
                    f"a volume has one source, this one has {' and '.join(given)}; "
                    "list them as two volumes",
                    key=True,
                )


@rule(
    "volume-reserved",
    fields=(
        "spec.volumes[].name",
        "spec.volumes[].mountPath",
        "spec.workers[].volumes[]",
        "spec.jobMaster.volumes[]",
        "spec.security.readOnlyRootFilesystem",
    ),
)
def check_volume_reserved(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """An extra volume's name and mount path are not t2gen's own, and the path is clean.

    t2gen mounts ``twister2-memory-dir`` at ``/twister2-memory-dir`` (the
    job package is unpacked there), ``twister2-volatile-dir`` at
    ``/twister2-volatile``, ``persistent-volume`` at ``/persistent``,
    ``kube-openmpi-ssh-key`` at ``/ssh-key/openmpi`` and, for ``shmSize``,
    ``dshm`` at ``/dev/shm``, and with ``security.readOnlyRootFilesystem``
    ``twister2-tmp`` at ``/tmp``. A volume of the same name is refused by the API
    server (duplicate name); one mounted at, above or below one of these paths
    hides the runtime's files or is hidden by them. A ``..`` in a mount path is
    refused by Kubernetes ("must not contain '..'").

    Sources: Twister2 ``KubernetesConstants`` and
    ``RequestObjectBuilder.constructContainer`` (DSC-SPIDAL/twister2,
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``);
    Kubernetes ``pkg/apis/core/validation/validation.go`` (``ValidateVolumeMounts``).
    """
    own = _own(data)
    for path, holder in _scopes(data):
        for index, volume in _volumes(holder):
            where = (*path, "volumes", index)
            name = volume.get("name")
            if isinstance(name, str) and name in own:
                hint = (
                    "use shmSize for /dev/shm"
                    if name == "dshm"
                    else "choose another name"
                )
                yield problem(
                    doc,
                    (*where, "name"),
                    f"{name} is the name of t2gen's own volume at {own[name]}; {hint}",
                )
            mount = volume.get("mountPath")
            if not isinstance(mount, str):
                continue
            if ".." in mount.split("/"):
                yield problem(
                    doc,
                    (*where, "mountPath"),
                    f"{mount} contains '..', which Kubernetes refuses; write the path without it",
                )
                continue
            for own_name, own_path in own.items():
                if _overlaps(mount, own_path):
                    hint = (
                        "set shmSize instead"
                        if own_path == "/dev/shm"
                        else "with readOnlyRootFilesystem it is the containers' writable /tmp: mount yours elsewhere (e.g. /data)"
                        if own_name == names.TMP_VOLUME
                        else "mount it elsewhere (e.g. /data)"
                    )
                    yield problem(
                        doc,
                        (*where, "mountPath"),
                        f"{mount} overlaps {own_path}, where t2gen mounts its {own_name} volume; {hint}",
                    )
                    break


@rule(
    "volume-duplicate",
    fields=("spec.volumes[]", "spec.workers[].volumes[]", "spec.jobMaster.volumes[]"),
)
def check_volume_duplicate(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """No two volumes of one pod share a name or a mount path.

    A worker pod takes ``spec.volumes`` and then its group's ``volumes``; the
    job master's pod only ``jobMaster.volumes`` (so it may list a volume of
    ``spec.volumes`` again, to mount it too). The API server refuses two volumes of one name
    ("Duplicate value") and two mounts at one path in a container
    ("must be unique"), and a mount under another mount's path depends on
    mount order.

    Source: Kubernetes ``pkg/apis/core/validation/validation.go``
    (``ValidateVolumes``, ``ValidateVolumeMounts``).
    """
    spec = as_dict(data.get("spec"))
    common: list[tuple[JsonPath, dict[str, Any]]] = [
        (("spec", "volumes", i), v) for i, v in _volumes(spec)
    ]
    scopes: list[list[tuple[JsonPath, dict[str, Any]]]] = [common]
    for path, holder in list(_scopes(data))[1:]:
        own = [((*path, "volumes", i), v) for i, v in _volumes(holder)]
        scopes.append(own if path == ("spec", "jobMaster") else common + own)
    reported: set[JsonPath] = set()
    for pod in scopes:
        names_seen: dict[str, JsonPath] = {}
        paths_seen: list[tuple[str, JsonPath]] = []
        for where, volume in pod:
            name, mount = volume.get("name"), volume.get("mountPath")
            if isinstance(name, str):
                if name in names_seen and where not in reported:
                    reported.add(where)
                    yield problem(
                        doc,
                        (*where, "name"),
                        f"volume {name} is already defined at {format_json_path(names_seen[name])}; "
                        "give each volume of a pod its own name",
                    )
                names_seen.setdefault(name, where)
            if isinstance(mount, str) and ".." not in mount.split("/"):
                for other, other_where in paths_seen:
                    if _overlaps(mount, other) and where not in reported:
                        reported.add(where)
                        yield problem(
                            doc,
                            (*where, "mountPath"),
                            f"{mount} overlaps {other} of {format_json_path(other_where)}; "
                            "mount each volume at its own, separate path",
                        )
                        break
                paths_seen.append((mount, where))


@rule(
    "shm-memory",
    fields=(
        "spec.shmSize",
        "spec.workers[].shmSize",
        "spec.jobMaster.shmSize",
        "spec.jvmMemoryFraction",
    ),
)
def check_shm_memory(data: dict[str, Any], doc: SourceDoc) -> Iterator[Warning_]:
    """``/dev/shm`` and the JVM heap fit in the memory limit (a warning).

    ``shmSize`` is tmpfs (an emptyDir of medium ``Memory``), whose pages count
    against the container's memory limit beside the JVM heap (``JVM_MEMORY_MB``:
    ``memory`` x ``spec.jvmMemoryFraction`` for a worker; all of ``memory`` for
    the job master, whose limit is 128Mi above ``memoryLimit``): once both fill,
    the container is OOM-killed. The memory volume
    (``storage.memoryVolumeSize``) is tmpfs too, but t2gen adds it to the
    request and limit of the container that holds it
    (:mod:`t2gen.render.context.memory`), so it is not counted here. Reported
    for each worker group and the job master with a memory limit
    (``memoryLimit`` not ``none``), per worker.

    Sources: Kubernetes, "Volumes", emptyDir
    (https://kubernetes.io/docs/concepts/storage/volumes/#emptydir);
    Twister2 ``RequestObjectBuilder.constructContainer`` (``JVM_MEMORY_MB``).
    """
    spec = as_dict(data.get("spec"))
    default_shm = as_quantity(spec.get("shmSize", 0))
    raw_fraction = spec.get("jvmMemoryFraction", names.JVM_MEMORY_FRACTION)
    if isinstance(raw_fraction, bool) or not isinstance(
        raw_fraction, (int, float, Decimal)
    ):
        return
    worker_fraction = Decimal(str(raw_fraction))
    for path, holder in list(_scopes(data))[1:]:
        own = holder.get("shmSize")
        shm = as_quantity(own) if own is not None else default_shm
        memory = as_quantity(holder.get("memory"))
        raw_limit = holder.get("memoryLimit", "request")
        if raw_limit == "none" or shm is None or shm.is_zero() or memory is None:
            continue
        limit = memory if raw_limit == "request" else as_quantity(raw_limit)
        if limit is None:
            continue
        master = path == ("spec", "jobMaster")
        heap = memory.value * (1 if master else worker_fraction)
        room = limit.value + (
            names.JOB_MASTER_MEMORY_OVERHEAD_MIB * 2**20 if master else 0
        )
        if heap + shm.value > room:
            mib = Decimal(2**20)
            yield warning(
                doc,
                (*path, "shmSize") if own is not None else ("spec", "shmSize"),
                f"at {format_json_path(path)}, the JVM heap ({int(heap / mib)} MiB) and /dev/shm "
                f"({int(shm.value / mib)} MiB) exceed the memory limit ({int(room / mib)} MiB) "
                "once they fill, and the container is OOM-killed; raise memory or lower shmSize",
            )


RULES: tuple[Rule, ...] = (
    check_volume_source,
    check_volume_reserved,
    check_volume_duplicate,
    check_shm_memory,
)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
