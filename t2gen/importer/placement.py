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

from t2gen.importer.model import Origin, Setting
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
        _missing_mapping(
            conv, mapping[0], key=key_pair is None, operator=op_pair is None
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
    if fixed in _NEED_VALUES and not (values_pair and values_pair[1]):
        at = conv.commented_at(_MAPPING_VALUES)
        where = f" (commented out at {_line_of(at, op_pair[0])})" if at else ""
        conv.error(
            op_pair[0].at(),
            op_pair[0].name,
            f"operator {fixed} needs {_NEED_VALUES[fixed]} in {_MAPPING_VALUES}{where}, "
            "which is not set or is empty: Twister2 would send the requirement without "
            "values, which the API server refuses (RequestObjectBuilder.java:506-516); "
            f"set it, e.g. {_MAPPING_VALUES}: {_EXAMPLE_VALUES[fixed in ('Gt', 'Lt')]}",
        )
        return []
    if values_pair is not None and values_pair[1]:
        conv.put(
            (*base, "values"),
            values_pair[1],
            named(values_pair[0]),
            values_pair[0].at(),
        )
    return [(mapping[0], "node mapping")]


_MAPPING_KEY = "twister2.resource.kubernetes.worker.mapping.key"
_MAPPING_OPERATOR = "twister2.resource.kubernetes.worker.mapping.operator"
_MAPPING_VALUES = "twister2.resource.kubernetes.worker.mapping.values"
_NEED_VALUES = {
    "In": "at least one value",
    "NotIn": "at least one value",
    "Gt": "one integer value",
    "Lt": "one integer value",
}
"""What each operator needs in ``values`` (Kubernetes ``ValidateNodeSelectorRequirement``)."""
_EXAMPLE_VALUES = ("['gpu']", "['4']")


def _line_of(at: Origin, near: Setting) -> str:
    """``line 217`` when ``at`` is in ``near``'s file, else ``path:line``."""
    return f"line {at.line}" if at.path == near.origin.path else str(at)


def _missing_mapping(
    conv: Conversion, mapping: Setting, *, key: bool, operator: bool
) -> None:
    """Node mapping is on without its key or operator: an error naming each missing key and where it is commented out.

    Twister2 builds the requirement from both as they are, null included
    (``RequestObjectBuilder.java:506-516``, ``KubernetesContext.java:159-165``),
    and the API server refuses a node-selector requirement without a key or
    operator, so the StatefulSet of compute resource 0 would never be created.
    """
    missing = [
        name
        for name, gone in ((_MAPPING_KEY, key), (_MAPPING_OPERATOR, operator))
        if gone
    ]
    shown = []
    for name in missing:
        at = conv.commented_at(name)
        shown.append(
            f"{name} (commented out at {_line_of(at, mapping)})" if at else name
        )
    them = "it" if len(missing) == 1 else "them"
    conv.error(
        mapping.at(),
        mapping.name,
        f"true here, but {' and '.join(shown)} {'is' if them == 'it' else 'are'} not set: "
        f"Twister2 would send a node-selector requirement without {them}, which the API "
        "server refuses, so the StatefulSet of compute resource 0 would never be created "
        f"(RequestObjectBuilder.java:506-516); set {them} (the node label key, and In, "
        "NotIn, Exists, DoesNotExist, Gt or Lt; .values for In and NotIn), or set "
        "kubernetes.worker.to.node.mapping: false",
    )


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
