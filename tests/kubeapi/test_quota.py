"""``t2gen plan --quota`` against the real ResourceQuota and LimitRange admission (issue 40, item 3).

For each ``plan-quota-*`` golden, the namespace is made to hold what the
golden's ``--quota`` file says: pods that use what its ResourceQuota's
``status.used`` counts (created first, with no scheduler to place them, so
they take quota and no node), then its LimitRange and ResourceQuota, waited
for until the quota controller reports the same ``used``. The golden's
``--nodes`` are registered as Node objects. Then the job is rendered for the
namespace and applied: the real StatefulSet controller creates the pods, the
real admission admits or refuses each (a refused pod is a ``FailedCreate``
event on its StatefulSet: kubernetes/kubernetes
``pkg/controller/statefulset/stateful_pod_control.go``), and the real
scheduler binds the admitted ones it can. Compared with what ``plan -o json``
said: pods admitted, and pods placed per StatefulSet.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import GOLDEN, ROOT
from tests.contract.cases import quantity
from tests.helpers import run_console
from tests.kubeapi.controlplane import ControlPlane
from tests.kubeapi.kubelet import until

CASES = sorted(p.name for p in GOLDEN.glob("plan-quota-*"))
NO_SCHEDULER = "t2gen-test-no-scheduler"
"""The scheduler name of the pods that stand for a quota's ``used``: none binds them."""


@pytest.fixture
def nodes(controllers: ControlPlane) -> Iterator[list[str]]:
    """The nodes of ``examples/nodes.json``, registered as the control plane's Nodes for one test."""
    listed = json.loads((ROOT / "examples" / "nodes.json").read_text())["items"]
    names = []
    for node in listed:
        meta = {
            k: node["metadata"][k]
            for k in ("name", "labels", "annotations")
            if k in node["metadata"]
        }
        controllers.admin.request(
            "POST",
            "/api/v1/nodes",
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": meta,
                "spec": node["spec"],
                "status": node["status"],
            },
        )
        names.append(meta["name"])
    yield names
    for name in names:
        controllers.admin.request("DELETE", f"/api/v1/nodes/{name}", ok=(404,))


def _fillers(used: dict[str, str]) -> list[dict[str, Any]]:
    """Pods whose requests and limits add up to a quota's ``used`` (one holds all, the rest count as pods)."""
    requests = {
        k.removeprefix("requests."): v
        for k, v in used.items()
        if k.startswith("requests.")
    }
    limits = {
        k.removeprefix("limits."): v for k, v in used.items() if k.startswith("limits.")
    }
    count = int(used.get("pods", "1" if requests or limits else "0"))
    pods = []
    for index in range(count):
        resources = {"requests": requests, "limits": limits} if index == 0 else {}
        pods.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"earlier-{index}"},
                "spec": {
                    "schedulerName": NO_SCHEDULER,
                    "containers": [
                        {
                            "name": "c",
                            "image": "registry.k8s.io/pause:3.10",
                            "resources": resources,
                        }
                    ],
                },
            }
        )
    return pods


def _counts(cluster: ControlPlane, namespace: str, quota: dict[str, Any]) -> bool:
    """Whether the live quota's ``status.used`` is the ``status.used`` of ``quota``."""
    path = f"/api/v1/namespaces/{namespace}/resourcequotas/{quota['metadata']['name']}"
    found = (cluster.admin.request("GET", path).get("status") or {}).get("used") or {}
    wanted = quota["status"]["used"]
    return all(quantity(found.get(k, "0")) == quantity(v) for k, v in wanted.items())


def _settled(cluster: ControlPlane, namespace: str) -> dict[str, dict[str, Any]] | None:
    """Per StatefulSet: its pods, those bound, and the pod admission refused; None until the controller is done.

    Done: every pod exists, or the controller has a ``FailedCreate`` for
    exceeded quota on one it lacks (it then retries that one and creates no
    other: ``slowStartBatch`` stops at the first error,
    ``pkg/controller/statefulset/stateful_set_control.go``); and every pod is
    bound or unschedulable.
    """
    base = f"/api/v1/namespaces/{namespace}"
    sets = cluster.admin.request(
        "GET", f"/apis/apps/v1/namespaces/{namespace}/statefulsets"
    )["items"]
    pods = cluster.admin.request("GET", f"{base}/pods")["items"]
    events = cluster.admin.request("GET", f"{base}/events")["items"]
    found = {}
    for s in sets:
        name = s["metadata"]["name"]
        wanted = {f"{name}-{i}" for i in range(int(s["spec"]["replicas"]))}
        have = {
            p["metadata"]["name"]: p for p in pods if p["metadata"]["name"] in wanted
        }
        refused = {
            e["message"].split("Pod ")[1].split(" ")[0]
            for e in events
            if e["reason"] == "FailedCreate"
            and e["involvedObject"]["name"] == name
            and "exceeded quota" in e["message"]
        } - set(have)
        if wanted - set(have) and not refused:
            return None
        for pod in have.values():
            unscheduled = any(
                c["type"] == "PodScheduled" and c["status"] == "False"
                for c in pod["status"].get("conditions", [])
            )
            if not pod["spec"].get("nodeName") and not unscheduled:
                return None
        bound = sum(1 for p in have.values() if p["spec"].get("nodeName"))
        found[name] = {"created": len(have), "refused": sorted(refused), "bound": bound}
    return found


@pytest.mark.parametrize("case", CASES)
def test_plan_quota_agrees_with_admission(
    controllers: ControlPlane,
    nodes: list[str],
    namespace: str,
    tmp_path: Path,
    case: str,
) -> None:
    args = [
        a.replace("{case}", f"tests/golden/{case}")
        for a in shlex.split((GOLDEN / case / "args").read_text())
    ]
    plan = run_console([*args, "-o", "json"])
    said = json.loads(plan.stdout)
    quota_file = json.loads((ROOT / args[args.index("--quota") + 1]).read_text())
    base = f"/api/v1/namespaces/{namespace}"
    quotas = [o for o in quota_file["items"] if o["kind"] == "ResourceQuota"]
    for quota in quotas:
        for pod in _fillers(quota["status"]["used"]):
            controllers.admin.request("POST", f"{base}/pods", pod)
    for obj in quota_file["items"]:
        plural = {"ResourceQuota": "resourcequotas", "LimitRange": "limitranges"}[
            obj["kind"]
        ]
        controllers.admin.request(
            "POST",
            f"{base}/{plural}",
            {
                "apiVersion": "v1",
                "kind": obj["kind"],
                "metadata": {"name": obj["metadata"]["name"]},
                "spec": obj["spec"],
            },
        )
    for quota in quotas:
        until(
            lambda quota=quota: _counts(controllers, namespace, quota),
            f"ResourceQuota {quota['metadata']['name']} to count what {case}'s --quota says is used",
        )
    rendered = run_console(["render", args[1], "--namespace", namespace])
    assert rendered.exit_code == 0, rendered.stderr
    manifest = tmp_path / "job.yaml"
    manifest.write_text(rendered.stdout)
    controllers.kubectl("apply", "--server-side", "-f", str(manifest))
    real = until(
        lambda: _settled(controllers, namespace),
        "every pod created or refused, and every created pod bound or unschedulable",
    )
    admission = said["admission"]["resourceQuota"]
    created = sum(s["created"] for s in real.values())
    placed = {s["name"]: s["placed"] for s in said["statefulSets"]}
    bound = {name: s["bound"] for name, s in real.items()}
    print(
        f"\n| {case} | plan: admits {admission['admitted']}/{said['pods']} | server: created {created}/{said['pods']}, refused {[r for s in real.values() for r in s['refused']]} | plan placed {placed} | server bound {bound} |"
    )
    assert created == admission["admitted"], (real, said["admission"])
    for name, count in placed.items():
        # the scheduler binds only what admission let in; plan places every pod
        assert bound[name] == min(count, real[name]["created"]), (name, real, placed)


def test_plan_quota_counts_the_supervisor_pod(
    controllers: ControlPlane, namespace: str, tmp_path: Path
) -> None:
    """A quota of 5 pods for ``examples/supervised.yaml``: 5 Twister2 pods and the supervisor's.

    Issue 40, item 8 (and issue 42, item 6): ``plan`` counts the supervisor's pod,
    as the real quota admission does.
    """
    quota = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "pods", "namespace": "twister2"},
        "spec": {"hard": {"pods": "5"}},
        "status": {"hard": {"pods": "5"}, "used": {"pods": "0"}},
    }
    saved = tmp_path / "quota.json"
    saved.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [quota]}))
    job = str(ROOT / "examples" / "supervised.yaml")
    plan = run_console(
        [
            "plan",
            job,
            "--nodes",
            str(ROOT / "examples" / "nodes.json"),
            "--quota",
            str(saved),
            "-o",
            "json",
        ]
    )
    said = json.loads(plan.stdout)
    base = f"/api/v1/namespaces/{namespace}"
    controllers.admin.request(
        "POST",
        f"{base}/resourcequotas",
        {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": {"name": "pods"},
            "spec": quota["spec"],
        },
    )
    until(lambda: _counts(controllers, namespace, quota), "the quota's first count")
    rendered = run_console(["render", job, "--namespace", namespace])
    manifest = tmp_path / "job.yaml"
    manifest.write_text(rendered.stdout)
    controllers.kubectl("apply", "--server-side", "-f", str(manifest))

    def refused() -> list[str]:
        events = controllers.admin.request("GET", f"{base}/events")["items"]
        return [e["message"] for e in events if e["reason"] == "FailedCreate"]

    until(refused, "a pod refused by the quota")
    created = len(controllers.admin.request("GET", f"{base}/pods")["items"])
    wanted = created + 1  # the quota holds 5: one of the 6 pods waits
    admission = said["admission"]["resourceQuota"]
    assert (said["pods"], admission["admitted"]) == (wanted, created), said["admission"]
