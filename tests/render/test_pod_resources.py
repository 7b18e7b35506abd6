"""Limits, extended resources, tolerations, priority, security and runtime env in rendered pods."""

from __future__ import annotations

from typing import Any

import pytest

from t2gen.render.context import build_context
from tests.helpers import job_text, valid_job


def _context(spec: str) -> dict[str, Any]:
    return build_context(valid_job(job_text(spec)))


def _worker_pod(spec: str) -> dict[str, Any]:
    return _context(spec)["workerGroups"][0]["podTemplate"]["spec"]  # type: ignore[no-any-return]


def _env(container: dict[str, Any]) -> dict[str, str]:
    return {e["name"]: e.get("value", "") for e in container["env"]}


def test_unbound_workers_get_no_cpu_limit_unless_asked_and_bound_ones_do() -> None:
    (container,) = _worker_pod("workers:\n  - count: 1\n    cpu: 2\n")["containers"]
    # memory: 1Gi + the memory volume (128Mi); no CPU limit, as the Twister2 launcher
    assert container["resources"]["limits"] == {"memory": "1152Mi"}
    (container,) = _worker_pod(
        "workers:\n  - count: 1\n    cpu: 2\nbindWorkersToCpu: true\n"
    )["containers"]
    assert container["resources"]["limits"] == {"cpu": "2", "memory": "1152Mi"}
    (container,) = _worker_pod(
        "workers:\n  - count: 1\n    cpuLimit: 1500m\n    memoryLimit: 2Gi\n"
    )["containers"]
    assert container["resources"]["limits"] == {"cpu": "1500m", "memory": "2176Mi"}
    (container,) = _worker_pod("workers:\n  - count: 1\n    memoryLimit: none\n")[
        "containers"
    ]
    assert "limits" not in container["resources"]


def test_openmpi_container_gets_per_pod_times_extended_resources_and_limits() -> None:
    pod = _worker_pod(
        "workers:\n  - count: 4\n    perPod: 2\n    volatileDisk: 1Gi\n    cpuLimit: 1\n"
        "    extendedResources: {nvidia.com/gpu: 1}\nmpi: {enabled: true}\n"
        "jobPackage: {maxSize: 256Mi}\n"
    )
    (container,) = pod["containers"]
    # 2 x 1Gi, + 512Mi of memory volume, + 512Mi for the MPI master of group 0
    assert container["resources"] == {
        "requests": {
            "cpu": "2",
            "memory": "3Gi",
            "ephemeral-storage": "2Gi",
            "nvidia.com/gpu": "2",
        },
        "limits": {"cpu": "2", "memory": "3Gi", "nvidia.com/gpu": "2"},
    }
    # sshd runs as root: no allowPrivilegeEscalation in the default profile
    assert container["securityContext"] == {"capabilities": {"drop": ["NET_RAW"]}}


def test_node_selector_is_the_pods_node_selector_and_tolerations_merge() -> None:
    """Issue 34, item 4: a nodeSelector is ``spec.nodeSelector``, where admission policies
    (Kyverno, Gatekeeper) look for it; the scheduler ANDs it with the required term."""
    pod = _worker_pod(
        "workers:\n  - count: 1\n    tolerations: [{key: b, operator: Exists}]\n"
        "placement:\n  nodeSelector: {nvidia.com/gpu.present: 'true'}\n"
        "  nodeAffinity:\n    required: [{key: zone, operator: In, values: [a]}]\n"
        "  tolerations: [{key: a, value: x, effect: NoSchedule}]\n"
    )
    assert pod["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    term = pod["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]
    assert term["nodeSelectorTerms"] == [
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
    ]
    assert pod["tolerations"] == [
        {"key": "a", "operator": "Equal", "value": "x", "effect": "NoSchedule"},
        {"key": "b", "operator": "Exists"},
    ]


def test_job_master_has_its_own_placement_priority_and_no_worker_placement() -> None:
    context = _context(
        "workers:\n  - count: 1\nplacement:\n  nodeSelector: {gpu: 'yes'}\n"
        "scheduling: {priorityClassName: batch}\n"
        "jobMaster:\n  placement:\n    nodeSelector: {role: infra}\n"
    )
    pod = context["jobMaster"]["podTemplate"]["spec"]
    assert pod["priorityClassName"] == "batch"
    assert pod["terminationGracePeriodSeconds"] == 0
    assert pod["nodeSelector"] == {"role": "infra"}  # its own, not the workers' gpu
    assert "affinity" not in pod


def test_jar_file_defaults_to_the_job_name_and_submission_time_to_zero() -> None:
    (container,) = _worker_pod("workers:\n  - count: 1\n")["containers"]
    env = _env(container)
    assert env["USER_JOB_JAR_FILE"] == "job.jar"
    assert env["JOB_SUBMISSION_TIME"] == "0"
    (container,) = _worker_pod(
        "workers:\n  - count: 1\nenv: [{name: JOB_SUBMISSION_TIME, value: '1700000000000'}]\n"
    )["containers"]
    assert [
        e["value"] for e in container["env"] if e["name"] == "JOB_SUBMISSION_TIME"
    ] == ["1700000000000"]


def test_restricted_profile_sets_what_pod_security_admission_checks() -> None:
    pod = _worker_pod(
        "workers:\n  - count: 1\nsecurity: {profile: restricted, runAsUser: 20000}\n"
    )
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == 20000
    assert pod["containers"][0]["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
    }
    assert "securityContext" not in _worker_pod(
        "workers:\n  - count: 1\nsecurity: {profile: none}\n"
    )


def test_restricted_ids_default_above_what_trivy_and_checkov_flag() -> None:
    pod = _worker_pod("workers:\n  - count: 1\nsecurity: {profile: restricted}\n")
    context = pod["securityContext"]
    # trivy KSV020/KSV021: > 10000; checkov CKV_K8S_40: >= 10000
    assert context["runAsUser"] == context["runAsGroup"] == context["fsGroup"] == 65532


@pytest.mark.parametrize("gang", ["", "volcano", "coscheduling", "kueue", "kubernetes"])
def test_read_only_root_covers_every_container_with_writable_runtime_paths(
    gang: str,
) -> None:
    queue = ", queue: team-a" if gang == "kueue" else ""
    scheduling = f"scheduling: {{gang: {gang}{queue}}}\n" if gang else ""
    context = _context(
        "workers:\n  - count: 2\n    perPod: 2\n  - count: 1\n    volatileDisk: 1Gi\n"
        "security: {readOnlyRootFilesystem: true}\n" + scheduling
    )
    pods = [g["podTemplate"]["spec"] for g in context["workerGroups"]]
    pods.append(context["jobMaster"]["podTemplate"]["spec"])
    for pod in pods:
        volumes = {v["name"]: v for v in pod["volumes"]}
        assert volumes["twister2-tmp"] == {"name": "twister2-tmp", "emptyDir": {}}
        assert "emptyDir" in volumes["twister2-volatile-dir"]
        for container in pod["containers"]:
            assert container["securityContext"]["readOnlyRootFilesystem"] is True
            assert {m["mountPath"] for m in container["volumeMounts"]} >= {
                "/twister2-memory-dir",
                "/twister2-volatile",
                "/tmp",
            }
    # the scratch disk keeps its size; without one, the emptyDir is unbounded (as the writable layer was)
    assert pods[1]["volumes"][1]["emptyDir"] == {"sizeLimit": "1Gi"}
    assert pods[0]["volumes"][1]["emptyDir"] == {}


def test_no_read_only_root_means_no_tmp_volume_and_non_root_a_volatile_one() -> None:
    """A writable root needs no ``/tmp`` volume; a non-root user still needs ``/twister2-volatile`` (issue 31).

    ``/`` is root's, so the runtime's log directory there needs a volume
    (``K8sWorkerUtils.java:105-114``); root (the default profile) can create it.
    """
    pod = _worker_pod("workers:\n  - count: 1\nsecurity: {profile: restricted}\n")
    assert [v["name"] for v in pod["volumes"]] == [
        "twister2-memory-dir",
        "twister2-volatile-dir",
    ]
    assert pod["volumes"][1]["emptyDir"] == {}
    assert "readOnlyRootFilesystem" not in pod["containers"][0]["securityContext"]
    pod = _worker_pod("workers:\n  - count: 1\n")
    assert [v["name"] for v in pod["volumes"]] == ["twister2-memory-dir"]


def test_checkov_skips_name_only_checks_a_twister2_job_cannot_pass() -> None:
    def skips(spec: str, group: int | None = 0) -> dict[str, str]:
        context = _context(spec)
        holder = (
            context["workerGroups"][group]
            if group is not None
            else context["jobMaster"]
        )
        return {
            key: value
            for key, value in holder["metadata"].get("annotations", {}).items()
            if key.startswith("checkov.io/")
        }

    assert skips("workers:\n  - count: 1\n") == {}
    plain = skips("workers:\n  - count: 1\nsecurity: {checkovSkips: true}\n")
    assert [v.split("=")[0] for v in plain.values()] == [
        "CKV_K8S_8",
        "CKV_K8S_9",
        "CKV_K8S_38",
    ]
    assert all(v.count("=") == 1 for v in plain.values())  # checkov splits at "="
    mpi = "workers:\n  - count: 2\n    perPod: 2\nmpi: {enabled: true}\nsecurity: {checkovSkips: true}\n"
    assert [v.split("=")[0] for v in skips(mpi).values()] == [
        "CKV_K8S_8",
        "CKV_K8S_9",
        "CKV_K8S_20",
        "CKV_K8S_22",
        "CKV_K8S_23",
        "CKV_K8S_37",
        "CKV_K8S_38",
        "CKV_K8S_40",
    ]
    assert "CKV_K8S_20" not in str(skips(mpi, None))  # the job master escalates nothing
    # a user's own checkov.io/skip1 (on every object of the job) keeps its number
    context = build_context(
        valid_job(
            job_text(
                "workers:\n  - count: 1\nsecurity: {checkovSkips: true}\n",
                metadata="annotations: {checkov.io/skip1: CKV_K8S_43=pinned by tag}\n",
            )
        )
    )
    annotations = context["workerGroups"][0]["metadata"]["annotations"]
    assert annotations["checkov.io/skip1"] == "CKV_K8S_43=pinned by tag"
    assert [annotations[f"checkov.io/skip{n}"].split("=")[0] for n in (2, 3, 4)] == [
        "CKV_K8S_8",
        "CKV_K8S_9",
        "CKV_K8S_38",
    ]
