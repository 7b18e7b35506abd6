"""Placement: Twister2's node mapping (a node-affinity expression) and uniform mapping.

The Twister2 launcher sets a pod affinity on compute resource 0 only
(cylondata/twister2 ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/
schedulers/k8s/RequestObjectBuilder.java:229-231``), so the import writes both to
``spec.workers[0]`` (a group's own placement, docs/placement.md) and the rendered
job places its pods as Twister2 would. The operator is passed through verbatim by
Twister2, so its case is fixed here; the uniform mapping is compared
case-insensitively (``RequestObjectBuilder.java:247-248,549-553``), and any other
value means none.
"""

from __future__ import annotations

import difflib

from t2gen.importer.model import Setting
from t2gen.importer.state import Conversion, named
from t2gen.inputs.yaml import JsonPath

__all__ = ["UNIFORM_MAPPINGS", "convert_placement"]

UNIFORM_MAPPINGS = ("all-same-node", "all-separate-nodes", "none")
"""The uniform mappings Twister2 names (``KubernetesContext.java:69-71``)."""

_GROUP_0: JsonPath = ("spec", "workers", 0)
_ONLY_GROUP_0 = (
    "Twister2 applies it to compute resource 0 only (RequestObjectBuilder.java:229-231)"
)


def convert_placement(conv: Conversion) -> None:
    """spec.workers[0]: the node-affinity expression and the uniform mapping."""
    if not conv.job.get("spec", {}).get("workers"):
        return  # no worker group: reported by convert_workers
    scoped = _node_mapping(conv)
    uniform = _uniform(conv)
    if uniform is not None:
        scoped.append((uniform, "uniform mapping"))
    groups = len(conv.job["spec"]["workers"])
    if groups > 1:
        for setting, what in scoped:
            conv.warn(
                setting.origin,
                setting.name,
                f"Twister2 applies {what} to compute resource 0 only (RequestObjectBuilder.java:229-231), "
                "so the job file sets it on spec.workers[0] (StatefulSet <job>-0) only; "
                f"move it to spec.placement to apply it to all {groups} groups",
            )


def _node_mapping(conv: Conversion) -> list[tuple[Setting, str]]:
    """The node-affinity expression of group 0, when node mapping is on."""
    mapping = conv.get("kubernetes.worker.to.node.mapping")
    parts = {
        part: conv.get(f"twister2.resource.kubernetes.worker.mapping.{part}")
        for part in ("key", "operator", "values")
    }
    if mapping is None or not mapping[1]:
        for pair in parts.values():
            if pair is not None:
                conv.skip(
                    pair[0], "ignored: kubernetes.worker.to.node.mapping is not true"
                )
        return []
    key_pair, op_pair, values_pair = parts["key"], parts["operator"], parts["values"]
    if key_pair is None or op_pair is None:
        conv.error(
            mapping[0].at(),
            mapping[0].name,
            "node mapping is on but twister2.resource.kubernetes.worker.mapping.key and .operator are not both set",
        )
        return []
    base: JsonPath = (*_GROUP_0, "nodeAffinity", "required", 0)
    conv.job["spec"]["workers"][0].setdefault("nodeAffinity", {})["required"] = [{}]
    conv.put(
        (*base, "key"), key_pair[1], named(key_pair[0]), key_pair[0].at(), _ONLY_GROUP_0
    )
    operator = op_pair[1]
    fixed = {
        o.lower(): o for o in ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
    }.get(operator.lower(), operator)
    conv.put((*base, "operator"), fixed, named(op_pair[0]), op_pair[0].at())
    if fixed != operator:
        conv.warn(
            op_pair[0].at(),
            op_pair[0].name,
            f"operator {operator!r} written as {fixed!r}: Twister2 passes it through verbatim and the API server accepts only {fixed!r}",
        )
    if values_pair is not None and values_pair[1]:
        conv.put(
            (*base, "values"),
            values_pair[1],
            named(values_pair[0]),
            values_pair[0].at(),
        )
    return [(mapping[0], "node mapping")]


def _uniform(conv: Conversion) -> Setting | None:
    """Group 0's uniform mapping; the setting when one is written, else None."""
    got = conv.get("kubernetes.worker.mapping.uniform")
    if got is None:
        return None
    setting, value = got
    lowered = value.lower()
    if lowered not in UNIFORM_MAPPINGS:
        close = difflib.get_close_matches(lowered, UNIFORM_MAPPINGS, n=1, cutoff=0.7)
        conv.warn(
            setting.value_at(),
            setting.name,
            f"{value!r} is none of {', '.join(UNIFORM_MAPPINGS)}, so Twister2 applies no uniform mapping "
            "(RequestObjectBuilder.java:247-248) and neither does the job file"
            + (f"; did you mean {close[0]!r}?" if close else ""),
        )
        return None
    if lowered == "none":
        return None
    note = _ONLY_GROUP_0 + (
        f"; written {value!r}, which Twister2 compares case-insensitively"
        if value != lowered
        else ""
    )
    conv.field(
        "kubernetes.worker.mapping.uniform", (*_GROUP_0, "uniform"), lowered, note
    )
    return setting
