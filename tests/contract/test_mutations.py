"""The contract tests fail when a rendered job breaks a requirement, and pass when it is fixed.

Each test copies a golden's objects, changes them the way a future change of
t2gen could, and runs one contract test on the copy: it must fail (a
requirement broken) or, for the requirements t2gen breaks today, pass once the
copy is fixed (the strict ``xfail`` would then flip).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from tests.contract import (
    test_env,
    test_objects,
    test_pods,
    test_rbac,
    test_resources,
    test_runs,
    test_users,
)
from tests.contract.cases import Case, case, register

Objects = list[dict[str, Any]]


def _mutated(base: str, change: Callable[[Objects], None]) -> str:
    """Register a copy of case ``base`` with ``change`` applied to its objects; return its name."""
    original = case(base)
    copied = Case(
        name=f"mutated/{base}/{change.__name__}",
        job_file=copy.deepcopy(original.job_file),
        objects=copy.deepcopy(original.objects),
    )
    change(copied.objects)
    register(copied)
    return copied.name


def _find(objects: Objects, kind: str, name: str) -> dict[str, Any]:
    return next(
        o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name
    )


def _containers(objects: Objects, statefulset: str) -> list[dict[str, Any]]:
    found = _find(objects, "StatefulSet", statefulset)
    return list(found["spec"]["template"]["spec"]["containers"])


def _set_env(container: dict[str, Any], name: str, value: str) -> None:
    for entry in container["env"]:
        if entry["name"] == name:
            entry.clear()
            entry.update(name=name, value=value)


# --- each change breaks one requirement ---


def drop_worker_port(objects: Objects) -> None:
    container = _containers(objects, "wordcount-0")[1]
    container["env"] = [e for e in container["env"] if e["name"] != "WORKER_PORT"]


def pod_name_from_node(objects: Objects) -> None:
    container = _containers(objects, "wordcount-0")[0]
    for entry in container["env"]:
        if entry["name"] == "POD_NAME":
            entry["valueFrom"]["fieldRef"]["fieldPath"] = "spec.nodeName"


def package_name_without_job(objects: Objects) -> None:
    _set_env(
        _containers(objects, "wordcount-jm")[0], "JOB_PACKAGE_FILENAME", "job.tar.gz"
    )


def hostname_in_env(objects: Objects) -> None:
    _containers(objects, "openmpi-0")[0]["env"].append(
        {"name": "HOSTNAME", "value": "x"}
    )


def rename_container(objects: Objects) -> None:
    container = _containers(objects, "wordcount-0")[1]
    container["name"] = "worker-1"
    _set_env(container, "CONTAINER_NAME", "worker-1")


def container_without_index(objects: Objects) -> None:
    container = _containers(objects, "wordcount-0")[1]
    container["name"] = "twister2-container"
    _set_env(container, "CONTAINER_NAME", "twister2-container")


def memory_volume_elsewhere(objects: Objects) -> None:
    _containers(objects, "wordcount-jm")[0]["volumeMounts"][0]["mountPath"] = "/tmp/mem"


def drop_persistent_mount(objects: Objects) -> None:
    container = _containers(objects, "persistent-nfs-0")[2]
    container["volumeMounts"] = [
        m for m in container["volumeMounts"] if m["name"] != "persistent-volume"
    ]


def kill_key_in_config_map(objects: Objects) -> None:
    _find(objects, "ConfigMap", "wordcount")["data"]["KILL_JOB"] = "false"


def config_map_unlabelled(objects: Objects) -> None:
    del _find(objects, "ConfigMap", "wordcount")["metadata"]["labels"]["t2-job"]


def rename_worker_statefulset(objects: Objects) -> None:
    _find(objects, "StatefulSet", "heterogeneous-1")["metadata"]["name"] = (
        "heterogeneous-small"
    )


def worker_label_on_job_master(objects: Objects) -> None:
    template = _find(objects, "StatefulSet", "wordcount-jm")["spec"]["template"]
    template["metadata"]["labels"]["t2-wp"] = "wordcount"


def job_master_service_selects_workers(objects: Objects) -> None:
    _find(objects, "Service", "wordcount-jm")["spec"]["selector"] = {
        "t2-job": "wordcount"
    }


def extra_replica(objects: Objects) -> None:
    _find(objects, "StatefulSet", "heterogeneous-0")["spec"]["replicas"] = 5


def same_worker_port(objects: Objects) -> None:
    container = _containers(objects, "heterogeneous-1")[1]
    container["ports"][0]["containerPort"] = 9000
    _set_env(container, "WORKER_PORT", "9000")


def big_heap(objects: Objects) -> None:
    # container 0 holds the worker's 1Gi and the 128Mi memory volume: a heap of 2Gi cannot fit
    _set_env(_containers(objects, "wordcount-0")[0], "JVM_MEMORY_MB", "2048")


def fractional_bound_cpu(objects: Objects) -> None:
    for container in _containers(objects, "pinned-same-node-0"):
        container["resources"] = {"limits": {"cpu": "1500m", "memory": "2Gi"}}


def no_service_delete(objects: Objects) -> None:
    for role in (o for o in objects if o["kind"] == "Role"):
        for rule in role["rules"]:
            if rule["resources"] == ["services"]:
                rule["verbs"] = [v for v in rule["verbs"] if v != "delete"]


def no_configmap_list(objects: Objects) -> None:
    for role in (o for o in objects if o["kind"] == "Role"):
        for rule in role["rules"]:
            if rule["resources"] == ["configmaps"] and "resourceNames" not in rule:
                rule["verbs"] = ["watch"]


def workers_run_as_job_master(objects: Objects) -> None:
    spec = _find(objects, "StatefulSet", "wordcount-0")["spec"]["template"]["spec"]
    spec["serviceAccountName"] = "wordcount-jm"


def worker_may_read_secrets(objects: Objects) -> None:
    _find(objects, "Role", "wordcount-worker")["rules"].append(
        {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list"]}
    )


def job_master_may_delete_any_service(objects: Objects) -> None:
    for rule in _find(objects, "Role", "wordcount-jm")["rules"]:
        if rule["resources"] == ["services"]:
            del rule["resourceNames"]


def no_token(objects: Objects) -> None:
    spec = _find(objects, "StatefulSet", "wordcount-0")["spec"]["template"]["spec"]
    spec["automountServiceAccountToken"] = False


def mpi_as_non_root(objects: Objects) -> None:
    spec = _find(objects, "StatefulSet", "openmpi-0")["spec"]["template"]["spec"]
    spec["securityContext"]["runAsNonRoot"] = True


def no_job_master(objects: Objects) -> None:
    objects.remove(_find(objects, "StatefulSet", "wordcount-jm"))


def restore_forgotten(objects: Objects) -> None:
    _set_env(_containers(objects, "restore-0")[1], "RESTORE_JOB", "false")


def restore_with_a_new_claim(objects: Objects) -> None:
    objects.append(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": "restore",
                "labels": {"app": "twister2", "t2-job": "restore"},
            },
            "spec": {
                "accessModes": ["ReadWriteMany"],
                "resources": {"requests": {"storage": "8Gi"}},
            },
        }
    )


def restore_without_the_claim_mounted(objects: Objects) -> None:
    container = _containers(objects, "restore-0")[0]
    container["volumeMounts"] = [
        m for m in container["volumeMounts"] if m["name"] != "persistent-volume"
    ]


def restart_count_in_config_map(objects: Objects) -> None:
    _find(objects, "ConfigMap", "wordcount")["data"]["RESTART_COUNT_FOR_JOB_MASTER"] = (
        "0"
    )


def restart_count_of_a_worker(objects: Objects) -> None:
    data = _find(objects, "ConfigMap", "heterogeneous")["data"]
    data["RESTART_COUNT_FOR_WORKER_15"] = "2"


def restart_counts_reset_by_apply(objects: Objects) -> None:
    # a ConfigMap that re-sets the counts to -1 ("never started") on every apply:
    # a re-run over leftovers would then start fresh, and the docs would be wrong
    data = _find(objects, "ConfigMap", "wordcount")["data"]
    data["RESTART_COUNT_FOR_JOB_MASTER"] = "-1"
    data.update({f"RESTART_COUNT_FOR_WORKER_{w}": "-1" for w in range(8)})


def non_root_without_volatile(objects: Objects) -> None:
    spec = _find(objects, "StatefulSet", "gpu-cluster-0")["spec"]["template"]["spec"]
    spec["volumes"] = [
        v for v in spec["volumes"] if v["name"] != "twister2-volatile-dir"
    ]
    for container in spec["containers"]:
        container["volumeMounts"] = [
            m for m in container["volumeMounts"] if m["name"] != "twister2-volatile-dir"
        ]


def non_root_home_at_root(objects: Objects) -> None:
    _set_env(_containers(objects, "gpu-cluster-jm")[0], "HOME", "/")


def non_root_jvm_home_unset(objects: Objects) -> None:
    container = _containers(objects, "gpu-cluster-0")[0]
    container["env"] = [e for e in container["env"] if e["name"] != "JAVA_TOOL_OPTIONS"]


def mpi_key_world_readable(objects: Objects) -> None:
    spec = _find(objects, "StatefulSet", "openmpi-0")["spec"]["template"]["spec"]
    for volume in spec["volumes"]:
        if "secret" in volume:
            volume["secret"]["defaultMode"] = 0o644


BREAKS: list[tuple[str, Callable[[Objects], None], Callable[[str], None]]] = [
    ("golden/wordcount", drop_worker_port, test_env.test_env_present),
    ("golden/wordcount", pod_name_from_node, test_env.test_env_values),
    ("golden/wordcount", package_name_without_job, test_env.test_env_values),
    ("golden/openmpi", hostname_in_env, test_env.test_env_not_shadowed),
    ("golden/wordcount", rename_container, test_pods.test_container_names_and_commands),
    ("golden/wordcount", container_without_index, test_pods.test_worker_ids_unique_and_contiguous),
    ("golden/wordcount", memory_volume_elsewhere, test_pods.test_volumes_and_mount_paths),
    ("golden/persistent-nfs", drop_persistent_mount, test_pods.test_volumes_and_mount_paths),
    ("golden/wordcount", kill_key_in_config_map, test_objects.test_config_map),
    ("golden/wordcount", config_map_unlabelled, test_objects.test_config_map),
    ("golden/heterogeneous", rename_worker_statefulset, test_objects.test_statefulsets_found_and_deleted),
    ("golden/wordcount", worker_label_on_job_master, test_pods.test_pod_labels_for_watches),
    ("golden/wordcount", job_master_service_selects_workers, test_pods.test_job_master_service),
    ("golden/heterogeneous", extra_replica, test_pods.test_worker_ids_unique_and_contiguous),
    ("golden/heterogeneous", same_worker_port, test_pods.test_ports_unique_per_pod),
    ("golden/wordcount", big_heap, test_resources.test_heap_fits_the_container),
    ("golden/pinned-same-node", fractional_bound_cpu, test_resources.test_bound_workers_are_guaranteed),
    ("golden/wordcount", no_service_delete, test_rbac.test_rbac_allows_every_runtime_call),
    ("golden/openmpi", no_configmap_list, test_rbac.test_rbac_allows_every_runtime_call),
    ("golden/wordcount", no_token, test_rbac.test_service_account_token_mounted),
    ("golden/wordcount", workers_run_as_job_master, test_rbac.test_rbac_grants_nothing_more),
    ("golden/wordcount", worker_may_read_secrets, test_rbac.test_rbac_grants_nothing_more),
    ("golden/wordcount", job_master_may_delete_any_service, test_rbac.test_rbac_grants_nothing_more),
    ("golden/openmpi", mpi_as_non_root, test_pods.test_mpi_pods),
    ("golden/wordcount", no_job_master, test_runs.test_every_job_runs_its_job_master),
    ("golden/restore", restore_forgotten, test_runs.test_restore_is_rendered_as_the_launcher_renders_it),
    ("golden/restore", restore_with_a_new_claim, test_runs.test_restore_is_rendered_as_the_launcher_renders_it),
    ("golden/restore", restore_without_the_claim_mounted, test_runs.test_restore_is_rendered_as_the_launcher_renders_it),
    ("golden/wordcount", restart_count_in_config_map, test_runs.test_a_first_run_starts_fresh),
    ("golden/heterogeneous", restart_count_of_a_worker, test_runs.test_a_first_run_starts_fresh),
    ("golden/gpu-cluster", non_root_without_volatile, test_users.test_non_root_containers_can_write_their_logs_and_home),
    ("golden/gpu-cluster", non_root_home_at_root, test_users.test_non_root_containers_can_write_their_logs_and_home),
    ("golden/gpu-cluster", non_root_jvm_home_unset, test_users.test_non_root_containers_can_write_their_logs_and_home),
    ("golden/openmpi", mpi_key_world_readable, test_users.test_openmpi_runs_as_the_base_image_sets_it_up),
    ("golden/wordcount", restart_counts_reset_by_apply, test_runs.test_a_rerun_over_a_leftover_config_map_starts_restarted),
]  # fmt: skip


@pytest.mark.parametrize(
    ("base", "change", "test"),
    BREAKS,
    ids=[f"{change.__name__}-{test.__name__}" for _, change, test in BREAKS],
)
def test_broken_requirement_fails(
    base: str, change: Callable[[Objects], None], test: Callable[[str], None]
) -> None:
    test(base)  # the golden meets the requirement...
    with pytest.raises(AssertionError):
        test(_mutated(base, change))  # ...and the changed copy does not
