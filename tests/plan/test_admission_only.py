"""``plan --quota`` without ``--nodes`` (issue 42, item 6): admission only, saying plainly that placement was not judged.

A tenant of a shared cluster may read its namespace's quotas and queues
(``kubectl get resourcequota,limitrange,localqueue -n ns``) but not list the
nodes. Before, ``--quota`` refused to run without ``--nodes``; now it answers
what it can (LimitRanges, ResourceQuotas, Kueue and Volcano queues) with an exit
status by admission, and says what it did not judge.
"""

from __future__ import annotations

import json
from pathlib import Path

from t2gen.plan.admission import NOT_PLACED
from tests.conftest import ROOT
from tests.helpers import run_console

QUOTA = ROOT / "tests" / "fixtures" / "quota"
WORDCOUNT = str(ROOT / "examples" / "wordcount.yaml")


def _plan(*argv: str) -> tuple[int, str, str]:
    result = run_console(["plan", *argv])
    return result.exit_code, result.stdout, result.stderr


def test_admitted_without_nodes_exits_0_and_says_placement_was_not_judged() -> None:
    code, out, err = _plan(
        WORDCOUNT, "-n", "analytics", "--quota", str(QUOTA / "admitted.json")
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == (
        "admitted: ResourceQuota compute (namespace analytics) admits all 5 pods "
        "(requests.memory 16000Mi/24576Mi after them)"
    )
    assert lines[-1] == NOT_PLACED
    assert lines[-1].startswith("placement not judged: no --nodes")
    assert "feasible" not in out and "STATEFULSET" not in out


def test_refused_without_nodes_exits_1_with_the_limit() -> None:
    code, out, _ = _plan(
        WORDCOUNT,
        "-n",
        "analytics",
        "--quota",
        str(QUOTA / "limits-cpu-default-8.json"),
    )
    assert code == 1
    assert out.startswith(
        "not admitted: ResourceQuota compute (namespace analytics) admits 2 of the job's 5 "
        "pods, then refuses pod wordcount-0-2: limits.cpu: used 32 + 16 > hard 40\n"
    )
    assert out.splitlines()[-1] == NOT_PLACED


def test_json_has_the_admission_and_null_placement() -> None:
    code, out, err = _plan(
        WORDCOUNT,
        "-n",
        "analytics",
        "--quota",
        str(QUOTA / "admitted.json"),
        "-o",
        "json",
    )
    assert code == 0, err
    doc = json.loads(out)
    assert doc["feasible"] is None and doc["nodes"] is None
    assert doc["placement"] == [] and doc["statefulSets"] == []
    assert doc["admission"]["admitted"] is True and doc["pods"] == 5
    assert doc["notes"] == [NOT_PLACED]


def test_kueue_and_volcano_queues_are_judged_without_nodes(tmp_path: Path) -> None:
    kueue = str(ROOT / "examples" / "kueue-gang.yaml")
    code, out, err = _plan(
        kueue, "-n", "analytics", "--quota", str(QUOTA / "kueue.json")
    )
    assert code == 0, err
    assert "  Kueue ClusterQueue team-a-cq: admits the pod group as one workload" in out
    # Volcano: the queue's capability (12 cpu, 4 allocated) refuses the gang's 10.2
    # whatever the cluster holds, since the cluster's total only lowers it.
    volcano = str(ROOT / "examples" / "volcano-gang.yaml")
    code, out, _ = _plan(
        volcano, "-n", "analytics", "--quota", str(QUOTA / "volcano.json")
    )
    assert code == 1
    assert out.startswith(
        "not admitted: Volcano Queue default: the gang's minimum does not fit the queue's "
        "capability (realCapability): cpu: allocated 4 + 10.2 > 12\n"
    )
    # With room in the capability, the cap by the cluster's total (which needs the
    # nodes) is not judged, and the verdict says so.
    doc = json.loads((QUOTA / "volcano.json").read_text(encoding="utf-8"))
    doc["items"][0]["spec"]["capability"]["cpu"] = "24"
    roomy = tmp_path / "volcano.json"
    roomy.write_text(json.dumps(doc), encoding="utf-8")
    code, out, err = _plan(volcano, "-n", "analytics", "--quota", str(roomy))
    assert code == 0, err
    line = next(x for x in out.splitlines() if "Volcano Queue default" in x)
    assert line.endswith(
        "(the cluster's total, which caps the capability, was not judged: no --nodes)"
    )


def test_options_of_the_placement_still_need_nodes() -> None:
    quota = str(QUOTA / "admitted.json")
    for extra in (
        ["--pods", str(ROOT / "examples" / "pods.json")],
        ["--gang"],
        ["--summary"],
    ):
        code, _, err = _plan(WORDCOUNT, "-n", "analytics", "--quota", quota, *extra)
        assert code == 2, (extra, err)
