"""The size of what a job renders: t2gen's own limit on environment entries."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules._base import (
    Rule,
    as_dict,
    as_int,
    as_list,
    groups,
    problem,
    rule,
)

__all__ = ["MAX_ENV_ENTRIES"]

MAX_ENV_ENTRIES = 100_000
"""Most environment variables over all container templates of a job (about 6 MB of YAML).

Containers x (runtime variables + ``spec.env``): 50 groups of 1 worker per pod
with 1,000 extra variables is 51,000; 4 workers per pod would be 204,000.
"""

_RUNTIME_ENV = 20  # variables t2gen sets in each container (K8sEnvVariables), at most


@rule(
    "manifest-size",
    fields=("spec.env", "spec.workers[].perPod", "spec.mpi.enabled"),
)
def check_size(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """The pod templates hold at most 100,000 environment entries (``MAX_ENV_ENTRIES``).

    Every container template repeats the runtime's variables (up to 20, from
    Twister2's ``K8sEnvVariables``) and every ``spec.env`` entry, once per
    container: a worker pod has ``perPod`` containers, an OpenMPI pod one, per
    worker group. A t2gen limit, so that every job renders in seconds and its
    manifests stay a size ``kubectl apply`` handles (about 6 MB of YAML at the
    limit).
    """
    spec = as_dict(data.get("spec"))
    mpi = as_dict(spec.get("mpi")).get("enabled") is True
    containers = sum(
        1 if mpi else (as_int(group.get("perPod")) or 1) for _, group in groups(data)
    )
    variables = len(as_list(spec.get("env"))) + _RUNTIME_ENV
    entries = containers * variables
    if entries > MAX_ENV_ENTRIES:
        # Blame the larger factor: the job's own variables, or the containers.
        where = (
            ("spec", "env")
            if variables - _RUNTIME_ENV > containers
            else ("spec", "workers")
        )
        yield problem(
            doc,
            where,
            f"the job's pod templates would hold {entries:,} environment variables ({containers} containers x "
            f"{variables}); t2gen renders at most {MAX_ENV_ENTRIES:,}: use fewer extra variables, fewer workers "
            "per pod or fewer worker groups",
        )


APPLY_LIMIT_BYTES = 262_144
"""Most bytes of one object for ``kubectl apply`` (Kubernetes' TotalAnnotationSizeLimitB,
256 KiB: kubectl keeps the object in its ``last-applied-configuration`` annotation;
``staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go``)."""

_CONTAINER_BYTES = 1200
"""Bytes of a worker container's JSON that are there whatever the job file says
(name, command, ports, runtime variables, resources, mounts): about 1,500 measured
for ``examples/wordcount.yaml``; the estimate takes less, so it never overstates."""

_OBJECT_BYTES = 800
"""Bytes of a worker StatefulSet's JSON besides its containers (about 1,000 measured)."""


def _json_bytes(value: Any) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON (what kubectl stores)."""
    import json

    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def _mapping_bytes(value: Any) -> int:
    return _json_bytes(value) if isinstance(value, dict) and value else 0


@rule(
    "object-size",
    fields=(
        "spec.workers[].perPod",
        "spec.env",
        "spec.image",
        "spec.mpi.enabled",
        "metadata.labels",
        "metadata.annotations",
        "spec.placement",
    ),
)
def check_object_size(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Every worker StatefulSet fits ``kubectl apply``'s 256 KiB, judged before anything renders.

    ``kubectl apply`` keeps each object in an annotation of at most 256 KiB
    (``TotalAnnotationSizeLimitB``, kubernetes/kubernetes
    ``staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go``). A worker
    StatefulSet repeats the image and every ``spec.env`` variable in each of its
    ``perPod`` containers (one with OpenMPI), and carries the job's labels and
    annotations on itself and on its pod template. This rule adds those up from
    the job file, as a lower bound of the object's JSON, and refuses a job whose
    StatefulSet surely cannot fit, naming the fields that multiply; so a 64 KiB
    variable with 64 workers per pod is refused at once, without rendering 4 MB
    per group. ``render`` and ``validate`` measure exactly every rendered object
    of a job the upper bound ``surely_fits`` cannot clear, so a job just under
    this estimate can still be refused there.
    """
    spec = as_dict(data.get("spec"))
    metadata = as_dict(data.get("metadata"))
    mpi = as_dict(spec.get("mpi")).get("enabled") is True
    env = as_list(spec.get("env"))
    env_bytes = sum(_json_bytes(entry) + 1 for entry in env)
    image = spec.get("image")
    image_bytes = len(image.encode()) if isinstance(image, str) else 0
    labels = 2 * _mapping_bytes(metadata.get("labels"))  # the object and its pods
    annotations_raw = as_dict(metadata.get("annotations"))
    annotations = 2 * _mapping_bytes(annotations_raw) + sum(
        len(str(key)) + len(str(value)) for key, value in annotations_raw.items()
    )  # and counted once more against the annotation limit itself
    placement = _mapping_bytes(spec.get("placement"))
    worst: tuple[int, int, int] | None = None  # (size, group, containers)
    for index, group in groups(data):
        containers = 1 if mpi else (as_int(group.get("perPod")) or 1)
        size = (
            _OBJECT_BYTES
            + containers * (_CONTAINER_BYTES + image_bytes + env_bytes)
            + labels
            + annotations
            + placement
        )
        if size > APPLY_LIMIT_BYTES and (worst is None or size > worst[0]):
            worst = (size, index, containers)
    if worst is None:
        return
    size, index, containers = worst
    parts: dict[tuple[str | int, ...], int] = {
        ("spec", "env"): containers * env_bytes,
        ("metadata", "labels"): labels,
        ("metadata", "annotations"): annotations,
        ("spec", "placement"): placement,
        ("spec", "workers", index, "perPod"): containers
        * (_CONTAINER_BYTES + image_bytes),
    }
    where = max(parts, key=lambda path: parts[path])
    name = as_dict(data.get("metadata")).get("name", "")
    per_pod = f"spec.workers[{index}].perPod" if not mpi else "one OpenMPI container"
    env_reason = (
        f"{containers} containers ({per_pod}) x {env_bytes:,} bytes of spec.env "
        f"({len(env)} variables)"
    )
    reasons: dict[tuple[str | int, ...], str] = {
        ("spec", "env"): env_reason,
        ("metadata", "labels"): "metadata.labels, on the StatefulSet and its pods",
        ("metadata", "annotations"): "metadata.annotations, on it and its pods",
        ("spec", "placement"): "spec.placement",
    }
    factors = reasons.get(
        where, f"{containers} containers ({per_pod}) x the image and runtime settings"
    )
    yield problem(
        doc,
        where,
        f"StatefulSet {name}-{index} would take at least {size // 1024:,} KiB, mostly "
        f"{factors}, but kubectl apply keeps each object in an annotation of at most "
        f"{APPLY_LIMIT_BYTES // 1024} KiB: use fewer or shorter variables, labels or "
        "annotations, or fewer workers per pod",
    )


RULES: tuple[Rule, ...] = (check_size, check_object_size)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
