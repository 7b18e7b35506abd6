"""Placement: Twister2's node mapping (a node-affinity expression) and uniform mapping.

Twister2 applies both to compute resource 0 only
(``RequestObjectBuilder.java:229-257``); t2gen applies them to every worker
group, so the import warns and says how to keep the old behaviour. The operator
is passed through verbatim by Twister2, so its case is fixed here.
"""

from __future__ import annotations

from t2gen.importer.model import Setting
from t2gen.importer.state import Conversion, named
from t2gen.jobfile.yaml import JsonPath

__all__ = ["convert_placement"]


def convert_placement(conv: Conversion) -> None:
    """spec.placement: the node-affinity expression and the uniform mapping."""
    mapping = conv.get("kubernetes.worker.to.node.mapping")
    parts = {
        part: conv.get(f"twister2.resource.kubernetes.worker.mapping.{part}")
        for part in ("key", "operator", "values")
    }
    groups = len(conv.job.get("spec", {}).get("workers", []))
    scoped: list[tuple[Setting, str]] = []
    if mapping is not None and mapping[1]:
        key_pair, op_pair, values_pair = (
            parts["key"],
            parts["operator"],
            parts["values"],
        )
        if key_pair is None or op_pair is None:
            conv.error(
                mapping[0].at(),
                mapping[0].name,
                "node mapping is on but twister2.resource.kubernetes.worker.mapping.key and .operator are not both set",
            )
            return
        base: JsonPath = ("spec", "placement", "nodeAffinity", "required", 0)
        conv.job.setdefault("spec", {}).setdefault("placement", {}).setdefault(
            "nodeAffinity", {}
        )["required"] = [{}]
        conv.put((*base, "key"), key_pair[1], named(key_pair[0]), key_pair[0].at())
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
        scoped.append((mapping[0], "node mapping"))
    else:
        for pair in parts.values():
            if pair is not None:
                conv.skip(
                    pair[0], "ignored: kubernetes.worker.to.node.mapping is not true"
                )
    uniform = conv.get("kubernetes.worker.mapping.uniform")
    if uniform is not None and uniform[1] != "none":
        conv.field(
            "kubernetes.worker.mapping.uniform", ("spec", "placement", "uniform")
        )
        scoped.append((uniform[0], "uniform mapping"))
    if groups > 1:
        for setting, what in scoped:
            conv.warn(
                setting.origin,
                setting.name,
                f"Twister2 applies {what} to compute resource 0 only; t2gen applies it to all {groups} worker groups. "
                "To keep the old behaviour, render with -o DIR and remove the affinity from "
                + (
                    "StatefulSet <job>-1"
                    if groups == 2
                    else f"StatefulSets <job>-1 to <job>-{groups - 1}"
                )
                + " with a kustomize patch",
            )
