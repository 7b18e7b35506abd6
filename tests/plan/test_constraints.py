"""The CONSTRAINT ``t2gen plan --nodes`` names: what the rendered pods carry.

``all-separate-nodes`` and ``all-same-node`` are ``spec.placement.uniform``'s
values and name only its whole-worker term (``t2-wp: <job>``); a required task
topology (``spec.scheduling.affinity``/``antiAffinity`` with ``topologyMode:
required``) is named as a required pod (anti-)affinity with the tasks it selects.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from t2gen.pipeline.job import generate
from t2gen.plan import parse_nodes, plan, plan_to_dict
from t2gen.plan.filters.interpod import constraint
from t2gen.plan.templates import workload_templates
from tests.conftest import ROOT

NODES = parse_nodes(
    json.loads((ROOT / "examples" / "nodes.json").read_text(encoding="utf-8")),
    "nodes.json",
)


def _objects(tmp_path: Path, spec_extra: str) -> list[dict[str, Any]]:
    path = tmp_path / "job.yaml"
    path.write_text(
        "apiVersion: t2gen/v1\n"
        "kind: Twister2Job\n"
        "metadata:\n  name: tt\n"
        "spec:\n"
        "  image: twister2/twister2-k8s:0.8.0\n"
        "  workers:\n"
        "    - {name: w, count: 4, cpu: 1, memory: 1Gi}\n"
        "    - {name: v, count: 2, cpu: 1, memory: 1Gi}\n"
        "  jobPackage: {jarFile: tt.jar}\n" + spec_extra,
        encoding="utf-8",
    )
    return [d.obj for d in generate([str(path)])]


def _constraints(objects: list[dict[str, Any]]) -> dict[str, str]:
    return {t.name: constraint(t) for t in workload_templates(objects)}


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (
            "  scheduling: {antiAffinity: [[w]], topologyMode: required}\n",
            {
                "tt-0": "required pod anti-affinity (task topology: w)",
                "tt-1": "none",
                "tt-jm": "none",
            },
        ),
        (
            "  scheduling: {affinity: [[w, v]], topologyMode: required}\n",
            {
                "tt-0": "required pod affinity (task topology: w, v)",
                "tt-1": "required pod affinity (task topology: w, v)",
                "tt-jm": "none",
            },
        ),
        (
            "  placement: {uniform: all-separate-nodes}\n",
            {
                "tt-0": "all-separate-nodes",
                "tt-1": "all-separate-nodes",
                "tt-jm": "none",
            },
        ),
        (
            "  placement: {uniform: all-same-node}\n",
            {"tt-0": "all-same-node", "tt-1": "all-same-node", "tt-jm": "none"},
        ),
        # Both: the uniform mapping's name wins for the pods that carry it.
        (
            "  placement: {uniform: all-separate-nodes}\n"
            "  scheduling: {antiAffinity: [[w]], topologyMode: required}\n",
            {
                "tt-0": "all-separate-nodes",
                "tt-1": "all-separate-nodes",
                "tt-jm": "none",
            },
        ),
        # A preferred task topology renders no required term: nothing to name.
        (
            "  scheduling: {antiAffinity: [[w]]}\n",
            {"tt-0": "none", "tt-1": "none", "tt-jm": "none"},
        ),
    ],
)
def test_constraint_names_the_rendered_rule(
    tmp_path: Path, extra: str, expected: dict[str, str]
) -> None:
    assert _constraints(_objects(tmp_path, extra)) == expected


def test_task_topology_verdict_does_not_claim_uniform(tmp_path: Path) -> None:
    objects = _objects(
        tmp_path, "  scheduling: {antiAffinity: [[w]], topologyMode: required}\n"
    )
    # 9 pods of w, one per node, on the 8 nodes that pass (node05 tainted, node10 cordoned).
    for obj in objects:
        if obj["kind"] == "StatefulSet" and obj["metadata"]["name"] == "tt-0":
            obj["spec"]["replicas"] = 9
    result = plan(objects, NODES)
    assert not result.feasible
    text = "\n".join(result.reasons)
    assert "all-separate-nodes" not in text
    assert text.startswith(
        "tt-0: required pod anti-affinity (task topology: w) needs 9 nodes (one pod each), "
        "but only 8 pass every filter"
    )
    assert plan_to_dict(result)["statefulSets"][0]["constraint"] == (
        "required pod anti-affinity (task topology: w)"
    )


def test_same_node_reason_names_the_task_affinity(tmp_path: Path) -> None:
    objects = _objects(
        tmp_path,
        "  placement: {nodeSelector: {no-such-label: x}}\n"
        "  scheduling: {affinity: [[w, v]], topologyMode: required}\n",
    )
    result = plan(objects, NODES)
    assert not result.feasible
    assert result.reasons[0] == (
        "required pod affinity (task topology: w, v): no node passes every filter "
        "for tt-0, tt-1 (see the rejected nodes)"
    )
