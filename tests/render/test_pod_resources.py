"""Limits, extended resources, tolerations, priority, security and runtime env in rendered pods."""

from __future__ import annotations

from typing import Any

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
    # memory: 1Gi + the memory volume (1Gi); no CPU limit, as the Twister2 launcher
    assert container["resources"]["limits"] == {"memory": "2Gi"}
    (container,) = _worker_pod(
        "workers:\n  - count: 1\n    cpu: 2\nbindWorkersToCpu: true\n"
    )["containers"]
    assert container["resources"]["limits"] == {"cpu": "2", "memory": "2Gi"}
    (container,) = _worker_pod(
        "workers:\n  - count: 1\n    cpuLimit: 1500m\n    memoryLimit: 2Gi\n"
    )["containers"]
    assert container["resources"]["limits"] == {"cpu": "1500m", "memory": "3Gi"}
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


def test_node_selector_is_anded_into_the_required_term_and_tolerations_merge() -> None:
    pod = _worker_pod(
        "workers:\n  - count: 1\n    tolerations: [{key: b, operator: Exists}]\n"
        "placement:\n  nodeSelector: {nvidia.com/gpu.present: 'true'}\n"
        "  nodeAffinity:\n    required: [{key: zone, operator: In, values: [a]}]\n"
        "  tolerations: [{key: a, value: x, effect: NoSchedule}]\n"
    )
    term = pod["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]
    assert term["nodeSelectorTerms"] == [
        {
            "matchExpressions": [
                {"key": "zone", "operator": "In", "values": ["a"]},
                {"key": "nvidia.com/gpu.present", "operator": "In", "values": ["true"]},
            ]
        }
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
    required = pod["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]
    assert required["nodeSelectorTerms"][0]["matchExpressions"] == [
        {"key": "role", "operator": "In", "values": ["infra"]}
    ]


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
