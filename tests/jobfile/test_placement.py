"""Per-group placement: the merge rules (docs/placement.md), render, rules and import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from t2gen.kube.yamlio import load_all_yaml
from t2gen.render.context import build_context
from tests.helpers import Completed, job_text, problems, run_cli, valid_job

T2GEN = Path(sys.executable).parent / "t2gen"

MERGED = job_text(
    """\
    workers:
      - count: 2
      - count: 4
        nodeSelector: {pool: gpu, zone: a}
        nodeAffinity:
          required: [{key: gpu, operator: Exists}]
          preferred: [{weight: 5, key: disk, operator: In, values: [ssd]}]
        tolerations:
          - {key: dedicated, operator: Exists}
          - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
        uniform: all-separate-nodes
      - count: 2
        uniform: none
    placement:
      nodeSelector: {pool: cpu, arch: amd64}
      nodeAffinity:
        required: [{key: rack, operator: NotIn, values: [r9]}]
        preferred: [{weight: 1, key: fast, operator: Exists}]
      tolerations: [{key: dedicated, operator: Exists}]
      uniform: all-same-node
    """
)


def _pod_specs(text: str) -> dict[str, dict[str, Any]]:
    """The pod spec of each worker StatefulSet, by name."""
    return {
        group["metadata"]["name"]: group["podTemplate"]["spec"]
        for group in build_context(valid_job(text))["workerGroups"]
    }


def _required(spec: dict[str, Any]) -> list[dict[str, Any]]:
    affinity = spec.get("affinity", {}).get("nodeAffinity", {})
    terms = affinity.get("requiredDuringSchedulingIgnoredDuringExecution", {})
    [term] = terms.get("nodeSelectorTerms", [{"matchExpressions": []}])
    return list(term["matchExpressions"])


def test_merge_rules() -> None:
    inherit, own, off = valid_job(MERGED).spec.workers
    # a group without placement of its own gets the job-wide one
    assert inherit.placement.uniform == "all-same-node"
    assert inherit.placement.node_selector == (("arch", "amd64"), ("pool", "cpu"))
    # required ANDed (job's first), preferred concatenated, nodeSelector by key
    # with the group's value winning, tolerations each once, uniform replaced
    assert [r.key for r in own.placement.required] == ["rack", "gpu"]
    assert [p.requirement.key for p in own.placement.preferred] == ["fast", "disk"]
    assert own.placement.node_selector == (
        ("arch", "amd64"),
        ("pool", "gpu"),
        ("zone", "a"),
    )
    assert [t.key for t in own.placement.tolerations] == [
        "dedicated",
        "nvidia.com/gpu",
    ]
    assert own.placement.uniform == "all-separate-nodes"
    # `uniform: none` turns the job-wide mapping off for one group
    assert off.placement.uniform == "none"


def test_render_places_each_group_by_its_own_placement() -> None:
    specs = _pod_specs(MERGED)
    assert "podAffinity" in specs["job-0"]["affinity"]
    own = specs["job-1"]
    assert "podAffinity" not in own["affinity"]
    assert own["affinity"]["podAntiAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ] == [
        {
            "labelSelector": {"matchLabels": {"t2-wp": "job"}},
            "topologyKey": "kubernetes.io/hostname",
        }
    ]
    assert _required(own) == [
        {"key": "rack", "operator": "NotIn", "values": ["r9"]},
        {"key": "gpu", "operator": "Exists"},
    ]
    # nodeSelector as written, where admission policies read it (issue 34, item 4)
    assert own["nodeSelector"] == {"arch": "amd64", "pool": "gpu", "zone": "a"}
    assert [t["key"] for t in own["tolerations"]] == ["dedicated", "nvidia.com/gpu"]
    off = specs["job-2"]
    assert set(off["affinity"]) == {"nodeAffinity"}
    assert [t["key"] for t in off["tolerations"]] == ["dedicated"]


def test_group_only_placement_leaves_other_groups_free() -> None:
    specs = _pod_specs(
        job_text(
            """\
            workers:
              - count: 2
                nodeSelector: {gpu: "yes"}
                uniform: all-separate-nodes
              - count: 2
            """
        )
    )
    assert set(specs["job-0"]["affinity"]) == {"podAntiAffinity"}
    assert specs["job-0"]["nodeSelector"] == {"gpu": "yes"}
    assert "affinity" not in specs["job-1"]
    assert "nodeSelector" not in specs["job-1"]
    assert "tolerations" not in specs["job-1"]


def test_separate_nodes_counts_the_groups_own_pods() -> None:
    hosts = "[{key: kubernetes.io/hostname, operator: In, values: [e012, e013]}]"
    # Twister2's case: the list and all-separate-nodes on group 0 only (2 pods)
    assert valid_job(
        job_text(
            f"""\
            workers:
              - count: 2
                nodeAffinity: {{required: {hosts}}}
                uniform: all-separate-nodes
              - count: 4
            """
        )
    )
    # 3 pods of group 1 on 2 allowed nodes: refused at the group's uniform
    ((line, _, path, message),) = problems(
        job_text(
            f"""\
            workers:
              - count: 2
              - count: 3
                nodeAffinity: {{required: {hosts}}}
                uniform: all-separate-nodes
            """
        )
    )
    assert (line, path) == (11, "spec.workers[1].uniform")
    assert "worker group 1's 3 worker pods" in message
    assert "allows only 2 nodes (e012, e013)" in message
    # each group alone fits, but together the separated groups need 4 nodes
    ((_, _, path, message),) = problems(
        job_text(
            f"""\
            workers:
              - count: 2
              - count: 2
            placement:
              nodeAffinity: {{required: {hosts}}}
              uniform: all-separate-nodes
            """
        )
    )
    assert path == "spec.placement.uniform"
    assert "the job's 4 worker pods" in message


def test_contradiction_between_job_and_group_is_at_the_group() -> None:
    found = problems(
        job_text(
            """\
            workers:
              - count: 2
                nodeAffinity:
                  required: [{key: pool, operator: DoesNotExist}]
              - count: 2
                nodeSelector: {pool: gpu}
            placement:
              nodeSelector: {pool: cpu}
            """
        )
    )
    assert [(p[2], "contradict" in p[3]) for p in found] == [
        ("spec.workers[0].nodeAffinity.required[0]", True)
    ]
    assert "worker group 0" in found[0][3]


def test_group_expressions_are_checked() -> None:
    ((_, _, path, message),) = problems(
        job_text(
            """\
            workers:
              - count: 2
              - count: 2
                nodeAffinity:
                  required: [{key: gpu, operator: In, values: []}]
            """
        )
    )
    assert path == "spec.workers[1].nodeAffinity.required[0].values"
    assert "at least one value" in message


def _run(cwd: Path, *argv: str) -> Completed:
    """``t2gen ARGV`` from ``cwd``, run in this process (:func:`tests.helpers.run_cli`)."""
    return run_cli(list(argv), cwd=cwd)


def _process(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``t2gen ARGV`` from ``cwd``, run by the console script."""
    return subprocess.run(
        [str(T2GEN), *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )


TWO_GROUPS = """\
twister2.job.id: "two-groups"
twister2.resource.kubernetes.docker.image: "twister2/twister2-k8s:0.8.0"
twister2.network.channel.class: "edu.iu.dsc.tws.comms.tcp.TWSTCPChannel"
twister2.resource.worker.compute.resources:
  - cpu: 1.0
    ram: 1024
    disk: 0.0
    instances: 2
  - cpu: 1.0
    ram: 1024
    disk: 0.0
    instances: 4
kubernetes.bind.worker.to.cpu: true
kubernetes.worker.to.node.mapping: true
twister2.resource.kubernetes.worker.mapping.key: "kubernetes.io/hostname"
twister2.resource.kubernetes.worker.mapping.operator: "In"
twister2.resource.kubernetes.worker.mapping.values: ['e012', 'e013']
kubernetes.worker.mapping.uniform: "{uniform}"
"""


def test_import_places_twister2_mapping_on_group_0_only(tmp_path: Path) -> None:
    """A config Twister2 schedules (2 pods of group 0 on 2 named nodes) imports and renders."""
    (tmp_path / "resource.yaml").write_text(
        TWO_GROUPS.format(uniform="All-Separate-Nodes"), encoding="utf-8"
    )
    imported = _run(
        tmp_path,
        "import",
        "resource.yaml",
        "--jar",
        "x.jar",
        "--output-file",
        "job.yaml",
    )
    assert imported.returncode == 0, imported.stderr
    assert "kustomize" not in imported.stderr
    assert (
        "resource.yaml:14:1: kubernetes.worker.to.node.mapping: Twister2 applies node mapping to "
        "compute resource 0 only (RequestObjectBuilder.java:229-231), so the job file sets it on "
        "spec.workers[0]"
    ) in imported.stderr
    rendered = _run(tmp_path, "render", "job.yaml")
    assert rendered.returncode == 0, rendered.stderr
    # The console script prints the same as the in-process run.
    process = _process(tmp_path, "render", "job.yaml")
    assert (process.returncode, process.stdout, process.stderr) == (
        rendered.returncode,
        rendered.stdout,
        rendered.stderr,
    )
    specs = {
        obj["metadata"]["name"]: obj["spec"]["template"]["spec"]
        for obj in load_all_yaml(rendered.stdout)
        if obj["kind"] == "StatefulSet"
    }
    first = specs["two-groups-0"]
    assert _required(first) == [
        {"key": "kubernetes.io/hostname", "operator": "In", "values": ["e012", "e013"]}
    ]
    assert "podAntiAffinity" in first["affinity"]
    assert "affinity" not in specs["two-groups-1"]


def test_import_uniform_typo_means_none_as_in_twister2(tmp_path: Path) -> None:
    (tmp_path / "resource.yaml").write_text(
        TWO_GROUPS.format(uniform="all-seperate-nodes"), encoding="utf-8"
    )
    imported = _run(tmp_path, "import", "resource.yaml", "--jar", "x.jar")
    assert imported.returncode == 0, imported.stderr
    assert "  uniform:" not in imported.stdout
    assert (
        "resource.yaml:18:36: kubernetes.worker.mapping.uniform: 'all-seperate-nodes' is none of "
        "all-same-node, all-separate-nodes, none, so Twister2 applies no uniform mapping"
    ) in imported.stderr
    assert "did you mean 'all-separate-nodes'?" in imported.stderr
