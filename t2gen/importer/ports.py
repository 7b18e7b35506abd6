"""Additional ports: Twister2's free-form names as Kubernetes port names.

A Kubernetes port name is an IANA service name: at most 15 lower-case letters,
digits and single ``-``, with a letter (:func:`t2gen.kube.validators.is_port_name`).
Container ``c >= 1`` of a worker pod appends ``-<c>`` to each of its port names
(:func:`t2gen.twister2.topology.port_name`), so a name is cut short enough for the
pod's last container too (the job file rule ``port-name-length``). The runtime
reads only how many additional ports there are, not their names
(``K8sWorkerUtils.java:263-278``).
"""

from __future__ import annotations

import re

from t2gen.importer.state import Conversion, named
from t2gen.kube.validators import PORT_NAME_MAX, is_port_name
from t2gen.twister2.topology import port_name_suffix

__all__ = ["convert_additional_ports", "port_name"]


def port_name(raw: str, containers: int = 1) -> tuple[str | None, str]:
    """Convert a Twister2 additional-port name into a Kubernetes port name.

    Args:
        raw: the name as configured.
        containers: the most worker containers any pod of the job has (1 with
            OpenMPI, whose one container declares no additional port). The last
            container, ``containers - 1``, appends ``-<containers - 1>``, so the
            name is cut to leave room for that suffix: 15 characters for 1
            container, 13 for 2 to 10, 12 for 11 to 100.

    Returns:
        The converted name (None when it cannot be converted) and what was changed,
        or why it was refused ("" when the name was already valid).
    """
    suffix = port_name_suffix(containers - 1)
    longest = PORT_NAME_MAX - len(suffix)
    if len(raw) <= longest and is_port_name(raw):
        return raw, ""
    name = re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9-]", "-", raw.lower())).strip("-")
    if not name:
        return None, "has no letters or digits to make a port name from"
    changes = []
    if name != raw:
        changes.append("lower-cased, other characters replaced by '-'")
    if not re.search("[a-z]", name):
        name = f"port-{name}"
        changes.append("'port-' prefixed (a port name needs a letter)")
    if len(name) > longest:
        name = name[:longest].rstrip("-")
        changes.append(
            f"cut to {longest} characters"
            + (
                f", leaving room for the {suffix!r} that container {containers - 1} "
                f"of a pod of {containers} workers appends"
                if suffix
                else ""
            )
        )
        if not re.search("[a-z]", name):  # the letters were past the cut
            name = f"port-{name}"[:longest].rstrip("-")
            changes.append("'port-' prefixed (a port name needs a letter)")
    return name, "; ".join(changes)


def _containers_per_pod(conv: Conversion) -> int:
    """The most worker containers any pod of the job has (1 with OpenMPI)."""
    if conv.is_mpi:
        return 1
    groups = conv.job.get("spec", {}).get("workers", [])
    return max((group.get("perPod", 1) for group in groups), default=1)


def convert_additional_ports(conv: Conversion) -> None:
    """spec.network.additionalPorts, each name converted (or refused, with the reason)."""
    ports = conv.get("twister2.resource.worker.additional.ports")
    if ports is None or not ports[1]:
        return
    setting, names = ports
    containers = _containers_per_pod(conv)
    converted: list[str] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(names):
        new, why = port_name(str(raw), containers)
        origin = setting.at(index)
        key = f"{setting.name}[{index}]"
        if new is None:
            conv.error(origin, key, f"port name {raw!r} {why}; rename it")
            continue
        if new in seen:
            conv.error(
                origin,
                key,
                f"port name {raw!r} is {new!r} as a Kubernetes port name, like port {seen[new]} ({names[seen[new]]!r}); rename one of them",
            )
            continue
        seen[new] = index
        if why:
            what = (
                f"is {len(str(raw))} characters, too long for a port name with {containers} workers per pod"
                if is_port_name(str(raw))
                else "is not a Kubernetes port name"
            )
            conv.warn(
                origin,
                key,
                f"{raw!r} {what}, written as {new!r} ({why}); the runtime reads only how many ports there are, not their names",
            )
        converted.append(new)
    if converted and len(converted) == len(names):
        conv.put(
            ("spec", "network", "additionalPorts"),
            converted,
            named(setting),
            setting.at(),
        )
