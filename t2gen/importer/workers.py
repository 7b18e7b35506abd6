"""Worker groups: Twister2's compute resources (or the legacy single-group keys), and binding.

A compute resource (``Twister2Job.loadComputeResources``) counts pods
(``instances``) of ``workersPerPod`` workers each, with ``ram`` in MB per worker
and ``disk`` in GB of volatile disk; t2gen counts workers. Twister2 casts each
field (``(Double)``, ``(Integer)``), so a number of the other type fails
``twister2 submit``: the import converts it and warns.
"""

from __future__ import annotations

from typing import Any

from t2gen.importer.keys import COMPUTE_RESOURCE_FIELDS, LEGACY_WORKER_KEYS
from t2gen.importer.model import Setting
from t2gen.importer.state import Conversion, named
from t2gen.importer.values import (
    BadValue,
    cpu,
    decimal_text,
    gib,
    java_literal,
    mib,
    shown,
    typed,
)
from t2gen.inputs.yaml import JsonPath

COMPUTE_RESOURCES = "twister2.resource.worker.compute.resources"
"""The key of Twister2 0.8's worker groups (``SchedulerContext.java:54-55``)."""

__all__ = [
    "COMPUTE_RESOURCES",
    "convert_binding",
    "convert_compute_resources",
    "convert_legacy_group",
    "convert_workers",
]


def convert_workers(conv: Conversion) -> None:
    """spec.workers: from the compute resources list, or else from the legacy keys."""
    got = conv.get(COMPUTE_RESOURCES)
    legacy = {name: conv.get(name) for name in LEGACY_WORKER_KEYS}
    present = {name: pair for name, pair in legacy.items() if pair is not None}
    if got is not None:
        for name, (setting, _) in present.items():
            conv.warn(
                setting.origin,
                name,
                "legacy single-group key, ignored: Twister2 0.8 reads the compute resources list "
                f"({got[0].origin})",
            )
        convert_compute_resources(conv, *got)
    elif present:
        convert_legacy_group(conv, present)
    else:
        conv.problems.append(
            conv.missing(
                "no worker groups: uncomment the compute resources and set each one's cpu (cores), "
                "ram (MB per worker), disk (GB) and instances (pods), or add one line such as "
                f"`{COMPUTE_RESOURCES}: [{{cpu: 1.0, ram: 1024, disk: 0.0, instances: 2}}]`",
                COMPUTE_RESOURCES,
                "twister2.worker.instances",
            )
        )


def convert_compute_resources(
    conv: Conversion, setting: Setting, items: list[Any]
) -> None:
    """One worker group per compute resource; count = instances (pods) x workersPerPod."""
    name = named(setting)
    if not items:
        conv.error(
            setting.at(),
            setting.name,
            "an empty list; give at least one compute resource",
        )
        return
    order = _twister2_order(conv, setting, items)
    for index, item in enumerate(items):
        ok = True
        values: dict[str, Any] = {}
        for field_name, spec in COMPUTE_RESOURCE_FIELDS.items():
            origin = setting.at(index, field_name)
            if field_name not in item or item[field_name] is None:
                if spec.required:
                    conv.error(
                        setting.at(index),
                        setting.name,
                        f"compute resource {index} has no {field_name}; cpu, ram, disk and instances are required",
                    )
                    ok = False
                values[field_name] = spec.default
                continue
            raw = item[field_name]
            try:
                values[field_name] = typed(spec.kind, raw)
            except BadValue as err:
                conv.error(
                    origin,
                    f"{setting.name}[{index}].{field_name}",
                    f"{err}, not {shown(raw)}",
                )
                ok = False
                continue
            java = spec.java_type
            if java is not None and type(raw) is not java:
                conv.warn(
                    origin,
                    f"{setting.name}[{index}].{field_name}",
                    f"Twister2 casts {field_name} to {'Double' if java is float else 'Integer'}; "
                    f"write {java_literal(values[field_name], java)} or twister2 submit fails with a ClassCastException",
                )
        for extra in sorted(set(item) - set(COMPUTE_RESOURCE_FIELDS)):
            hint = [
                f for f in COMPUTE_RESOURCE_FIELDS if f.lower() == str(extra).lower()
            ]
            conv.error(
                setting.at(index, extra),
                f"{setting.name}[{index}]",
                f"unknown compute resource field {extra!r}"
                + (
                    f"; did you mean {hint[0]}?"
                    if hint
                    else f"; the fields are {', '.join(COMPUTE_RESOURCE_FIELDS)}"
                ),
            )
            ok = False
        if not ok:
            continue
        per_pod = values["workersPerPod"]
        instances = values["instances"]
        base: JsonPath = ("spec", "workers", order[index])
        workers = conv.job.setdefault("spec", {}).setdefault("workers", [])
        while len(workers) <= order[index]:
            workers.append({})
        item_key = f"{name}[{index}]"
        conv.put(
            (*base, "count"),
            instances * per_pod,
            item_key,
            setting.at(index, "instances"),
            f"instances {instances} (pods) x workersPerPod {per_pod}",
        )
        conv.put(
            (*base, "perPod"),
            per_pod,
            item_key,
            setting.at(index, "workersPerPod")
            if "workersPerPod" in item
            else setting.at(index),
            "workersPerPod" + ("" if "workersPerPod" in item else " (default 1)"),
        )
        conv.put(
            (*base, "cpu"),
            cpu(values["cpu"]),
            item_key,
            setting.at(index, "cpu"),
            "cpu (cores)",
        )
        conv.put(
            (*base, "memory"),
            mib(values["ram"]),
            item_key,
            setting.at(index, "ram"),
            f"ram {values['ram']} (MB)",
        )
        if values["disk"] > 0:
            conv.put(
                (*base, "volatileDisk"),
                gib(values["disk"]),
                item_key,
                setting.at(index, "disk"),
                f"disk {decimal_text(values['disk'])} (GB)",
            )
        if values["scalable"] and conv.is_mpi:
            conv.warn(
                setting.at(index, "scalable"),
                f"{setting.name}[{index}].scalable",
                "not imported: Twister2 never scales an OpenMPI job (K8sScaler.isScalable)",
            )
        elif values["scalable"]:
            conv.put(
                (*base, "scalable"),
                True,
                item_key,
                setting.at(index, "scalable"),
                "scalable",
            )


def _twister2_order(conv: Conversion, setting: Setting, items: list[Any]) -> list[int]:
    """The index each compute resource gets in the job object: Twister2 moves the scalable one last.

    ``Twister2Job.updateIndexesForComputeResources`` (DSC-SPIDAL/twister2
    ``twister2/api/src/java/edu/iu/dsc/tws/api/Twister2Job.java:137-168``)
    moves the one scalable compute resource to the end and renumbers those
    after it; workers find their compute resource by that index. It does so
    for every job, OpenMPI's too: ``serialize()`` runs before any launcher
    (``Twister2Job.java:93-96``), and an OpenMPI pod looks its compute resource
    up by that index as well (``K8S/mpi/MPIWorkerStarter.java:176``), although
    the scalable flag itself means nothing there. More than one scalable
    resource is an error, as in Twister2 (``:139-142``).
    """
    order = list(range(len(items)))
    scalable = [
        index
        for index, item in enumerate(items)
        if isinstance(item, dict) and item.get("scalable") is True
    ]
    if len(scalable) > 1:
        conv.error(
            setting.at(scalable[1], "scalable"),
            f"{setting.name}[{scalable[1]}].scalable",
            f"compute resource {scalable[0]} is already scalable; Twister2 refuses a job with more than "
            "one scalable compute resource: keep scalable on one",
        )
    elif scalable and scalable[0] != len(items) - 1:
        moved = scalable[0]
        order = [i if i < moved else i - 1 for i in range(len(items))]
        order[moved] = len(items) - 1
        conv.warn(
            setting.at(moved, "scalable"),
            f"{setting.name}[{moved}].scalable",
            f"imported as the last worker group, spec.workers[{len(items) - 1}] (StatefulSet "
            f"<job>-{len(items) - 1}): Twister2 moves the scalable compute resource to the last index, and "
            + (
                f"compute resource {moved + 1} moves up one, as its workers will look it up"
                if moved + 1 == len(items) - 1
                else f"compute resources {moved + 1}-{len(items) - 1} move up one, "
                "as their workers will look them up"
            )
            + (" (in OpenMPI jobs too, which never scale)" if conv.is_mpi else ""),
        )
    return order


def convert_legacy_group(
    conv: Conversion, present: dict[str, tuple[Setting, Any]]
) -> None:
    """One worker group from the pre-0.8 keys, whose instances count workers."""
    base: JsonPath = ("spec", "workers", 0)
    conv.job.setdefault("spec", {}).setdefault("workers", [{}])
    instances = present.get("twister2.worker.instances")
    if instances is None:
        conv.problems.append(
            conv.missing(
                f"no worker count: set {COMPUTE_RESOURCES} (or the legacy twister2.worker.instances)",
                "twister2.worker.instances",
                COMPUTE_RESOURCES,
            )
        )
        return
    setting, count = instances
    conv.put(
        (*base, "count"), count, setting.name, setting.at(), "legacy: total workers"
    )
    for name, where, make, unit in (
        ("kubernetes.workers.per.pod", "perPod", lambda v: v, ""),
        ("twister2.worker.cpu", "cpu", cpu, " (cores)"),
        ("twister2.worker.ram", "memory", mib, " (MB)"),
        ("twister2.worker.volatile.disk", "volatileDisk", gib, " (GB)"),
    ):
        pair = present.get(name)
        key = LEGACY_WORKER_KEYS[name]
        if pair is None:
            if (
                name in ("twister2.worker.cpu", "twister2.worker.ram")
                and key.default is not None
            ):
                default: Any = key.default
                conv.put(
                    (*base, where),
                    make(default),
                    name,
                    None,
                    f"not set; Twister2's default {default}{unit}",
                )
            continue
        setting, value = pair
        if where == "volatileDisk" and not value > 0:
            continue
        conv.put(
            (*base, where),
            make(value),
            setting.name,
            setting.at(),
            f"{decimal_text(value) if isinstance(value, float) else value}{unit}",
        )
    conv.warn(
        setting.origin,
        setting.name,
        "legacy worker keys (removed in 2018): twister2.worker.instances counts workers, not pods; "
        "Twister2 0.8 reads twister2.resource.worker.compute.resources instead",
    )


def convert_binding(conv: Conversion) -> None:
    """spec.bindWorkersToCpu, written only when it differs from the default (false)."""
    got = conv.get("kubernetes.bind.worker.to.cpu")
    if got is not None and got[1]:
        conv.field("kubernetes.bind.worker.to.cpu", ("spec", "bindWorkersToCpu"))
