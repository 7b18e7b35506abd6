"""The rest of the pod surface: runtime class, extra volumes, /dev/shm, env valueFrom/envFrom, ephemeral-storage limits."""

from __future__ import annotations

from typing import Any

from t2gen.render.context import build_context
from tests.helpers import job_text, valid_job

SPEC = """\
runtimeClassName: kata
volumes:
  - {name: data, mountPath: /data, readOnly: true, persistentVolumeClaim: {claimName: ds}}
env:
  - {name: KEY, valueFrom: {secretKeyRef: {name: s, key: k}}}
envFrom:
  - {secretRef: {name: all}, prefix: S_}
shmSize: 512Mi
workers:
  - count: 4
    perPod: 2
    volatileDisk: 1Gi
    ephemeralStorageLimit: 3Gi
    runtimeClassName: nvidia
    shmSize: 0
    volumes:
      - {name: inline, mountPath: /scratch, csi: {driver: inline.storage.example.com}}
    env:
      - {name: MEM, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 1Mi}}}
  - {count: 2, perPod: 2, memory: 2Gi}
jobMaster: {memory: 2Gi}
mpi: {enabled: true}
"""


def _pods() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    context = build_context(valid_job(job_text(SPEC)))
    first, second = (g["podTemplate"]["spec"] for g in context["workerGroups"])
    return first, second, context["jobMaster"]["podTemplate"]["spec"]


def test_a_group_overrides_runtime_class_and_shm_and_adds_volumes_and_env() -> None:
    gpu, cpu, master = _pods()
    assert (gpu["runtimeClassName"], cpu["runtimeClassName"]) == ("nvidia", "kata")
    assert master["runtimeClassName"] == "kata"
    (container,) = gpu["containers"]  # OpenMPI: one container for the pod's workers
    mounts = {m["name"]: m for m in container["volumeMounts"]}
    assert mounts["data"] == {"name": "data", "mountPath": "/data", "readOnly": True}
    assert "inline" in mounts and "dshm" not in mounts  # shmSize: 0 turns /dev/shm off
    volumes = {v["name"]: v for v in gpu["volumes"]}
    assert volumes["data"]["persistentVolumeClaim"] == {
        "claimName": "ds",
        "readOnly": True,
    }
    assert volumes["inline"]["csi"] == {"driver": "inline.storage.example.com"}
    # spec.env then the group's env, after every runtime variable
    assert [e["name"] for e in container["env"]][-2:] == ["KEY", "MEM"]
    assert container["env"][-2]["valueFrom"] == {
        "secretKeyRef": {"name": "s", "key": "k"}
    }
    assert container["envFrom"] == [{"secretRef": {"name": "all"}, "prefix": "S_"}]
    # ephemeral-storage: request volatileDisk, limit ephemeralStorageLimit, x perPod
    assert container["resources"]["requests"]["ephemeral-storage"] == "2Gi"
    assert container["resources"]["limits"]["ephemeral-storage"] == "6Gi"


def test_job_wide_fields_reach_the_other_group_and_the_job_master() -> None:
    _, cpu, master = _pods()
    for pod in (cpu, master):
        shm = next(v for v in pod["volumes"] if v["name"] == "dshm")
        assert shm["emptyDir"] == {"medium": "Memory", "sizeLimit": "512Mi"}
        (container,) = pod["containers"]
        assert {"name": "dshm", "mountPath": "/dev/shm"} in container["volumeMounts"]
        assert "ephemeral-storage" not in container["resources"].get("limits", {})
    # the user's job-wide volumes and environment are the workers' (issue 34,
    # item 4; tests/render/test_job_wide.py)
    (container,) = cpu["containers"]
    assert container["env"][-1]["name"] == "KEY"
    assert "data" in {v["name"] for v in cpu["volumes"]}
    (container,) = master["containers"]
    assert "KEY" not in {e["name"] for e in container["env"]}
    assert "envFrom" not in container
    assert "data" not in {v["name"] for v in master["volumes"]}


def test_service_links_are_the_scopes_else_the_jobs_else_unwritten() -> None:
    """``enableServiceLinks``: a worker group or the job master replaces ``spec``'s (issue 29's new field)."""
    context = build_context(
        valid_job(
            job_text(
                "enableServiceLinks: false\n"
                "workers: [{count: 2, enableServiceLinks: true}, {count: 2}]\n"
            )
        )
    )
    first, second = (g["podTemplate"]["spec"] for g in context["workerGroups"])
    master = context["jobMaster"]["podTemplate"]["spec"]
    assert (first["enableServiceLinks"], second["enableServiceLinks"]) == (True, False)
    assert master["enableServiceLinks"] is False
    # it stands with the other pod-level fields, before the containers
    keys = list(second)
    assert keys.index("enableServiceLinks") < keys.index("containers")
    plain = build_context(
        valid_job(
            job_text("workers: [{count: 2}]\njobMaster: {enableServiceLinks: false}\n")
        )
    )
    assert "enableServiceLinks" not in plain["workerGroups"][0]["podTemplate"]["spec"]
    assert plain["jobMaster"]["podTemplate"]["spec"]["enableServiceLinks"] is False
