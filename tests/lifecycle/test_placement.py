"""The supervisor pod's placement: the job master's by default, its own on request (issue 40, item 7).

On a cluster whose nodes are all tainted (dedicated pools) a supervisor pod
without tolerations stays Pending while the job runs unsupervised and its
deadline never starts.
"""

from __future__ import annotations

from typing import Any

import yaml

from t2gen.inputs.jobfile import read_job
from t2gen.pipeline.job import generate_loaded
from t2gen.pipeline.load import validate
from tests.conftest import ROOT

TAINTED = {
    "nodeSelector": {"pool": "twister2"},
    "tolerations": [
        {
            "key": "dedicated",
            "operator": "Equal",
            "value": "twister2",
            "effect": "NoSchedule",
        }
    ],
    "nodeAffinity": {
        "required": [{"key": "zone", "operator": "In", "values": ["a"]}],
    },
}


def _pods(tmp_path: Any, **lifecycle_and_master: Any) -> dict[str, dict[str, Any]]:
    data = yaml.safe_load((ROOT / "examples" / "supervised.yaml").read_text())
    spec = data["spec"]
    if "master" in lifecycle_and_master:
        spec.setdefault("jobMaster", {})["placement"] = lifecycle_and_master["master"]
    if "own" in lifecycle_and_master:
        spec["lifecycle"]["placement"] = lifecycle_and_master["own"]
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(data))
    doc = read_job(str(path))
    job = validate(doc)
    objects = [d.obj for d in generate_loaded([(job, doc)])]
    pods = {}
    for obj in objects:
        if obj["kind"] in ("Job", "StatefulSet"):
            pods[obj["metadata"]["name"]] = obj["spec"]["template"]["spec"]
    return pods


def _placement(pod: dict[str, Any]) -> tuple[Any, Any, Any]:
    return pod.get("nodeSelector"), pod.get("affinity"), pod.get("tolerations")


def test_the_job_masters_placement_by_default(tmp_path: Any) -> None:
    pods = _pods(tmp_path, master=TAINTED)
    supervisor = pods["wordcount-supervised-supervisor"]
    master = pods["wordcount-supervised-jm"]
    assert _placement(supervisor) == _placement(master)
    assert supervisor["tolerations"][0]["key"] == "dedicated"
    assert supervisor["nodeSelector"] == {"pool": "twister2"}
    assert supervisor["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]


def test_its_own_on_request(tmp_path: Any) -> None:
    own = {"nodeSelector": {"pool": "system"}, "tolerations": [{"operator": "Exists"}]}
    pods = _pods(tmp_path, master=TAINTED, own=own)
    supervisor = pods["wordcount-supervised-supervisor"]
    assert supervisor["nodeSelector"] == {"pool": "system"}
    assert supervisor["tolerations"] == [{"operator": "Exists"}]
    assert "affinity" not in supervisor


def test_none_without_either(tmp_path: Any) -> None:
    supervisor = _pods(tmp_path)["wordcount-supervised-supervisor"]
    assert _placement(supervisor) == (None, None, None)
