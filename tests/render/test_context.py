from __future__ import annotations

from typing import Any

from t2gen.render.context import build_context
from tests.helpers import job_text, valid_job


def _context(spec: str, **kwargs: Any) -> dict[str, Any]:
    return build_context(valid_job(job_text(spec, **kwargs)))


def _env(container: dict[str, Any]) -> dict[str, Any]:
    return {
        item["name"]: item.get("value", item.get("valueFrom"))
        for item in container["env"]
    }


def test_worker_group_layout() -> None:
    context = _context(
        "workers:\n  - {count: 8, perPod: 2, cpu: 0.5, memory: 2Gi, volatileDisk: 0.5Gi}\n"
    )
    (group,) = context["workerGroups"]
    assert group["replicas"] == 4
    assert group["metadata"]["name"] == "job-0"
    assert group["selector"] == {"t2-wp": "job", "t2-worker-group": "0"}
    assert [c["name"] for c in group["containers"]] == [
        "twister2-container-0",
        "twister2-container-1",
    ]
    assert [c["ports"][0]["containerPort"] for c in group["containers"]] == [9000, 9001]
    # Unbound: no CPU limit (the launcher's requests only); the first container
    # also holds the memory volume (twice jobPackage.maxSize, 128Mi by default).
    assert group["containers"][0]["resources"] == {
        "requests": {"cpu": "500m", "memory": "2176Mi", "ephemeral-storage": "512Mi"},
        "limits": {"memory": "2176Mi"},
    }
    assert group["containers"][1]["resources"] == {
        "requests": {"cpu": "500m", "memory": "2Gi", "ephemeral-storage": "512Mi"},
        "limits": {"memory": "2Gi"},
    }
    assert group["volumes"][0]["emptyDir"] == {"medium": "Memory", "sizeLimit": "128Mi"}
    assert group["volumes"][1] == {
        "name": "twister2-volatile-dir",
        "emptyDir": {"sizeLimit": "1Gi"},
    }


def test_port_stride_with_additional_ports() -> None:
    context = _context(
        "workers: [{count: 3, perPod: 3}]\nnetwork: {basePort: 9000, additionalPorts: [a, b]}\n"
    )
    ports = [
        [p["containerPort"] for p in c["ports"]]
        for c in context["workerGroups"][0]["containers"]
    ]
    assert ports == [[9000, 9001, 9002], [9003, 9004, 9005], [9006, 9007, 9008]]


def test_runtime_environment() -> None:
    context = _context(
        "workers: [{count: 1, memory: 1000Mi}]\njobPackage: {jarFile: wc.jar}\n"
    )
    env = _env(context["workerGroups"][0]["containers"][0])
    assert env["JOB_ID"] == "job"
    assert env["WORKER_PORT"] == "9000"
    assert env["JVM_MEMORY_MB"] == "800"
    assert env["USER_JOB_JAR_FILE"] == "wc.jar"
    assert (
        env["JOB_PACKAGE_URI"]
        == "http://twister2-uploader.default.svc.cluster.local/job.tar.gz"
    )
    assert env["POD_NAME"] == {"fieldRef": {"fieldPath": "metadata.name"}}
    assert env["JOB_SUBMISSION_TIME"] == "0" and "JOB_MASTER_IP" not in env
    master = _env(context["jobMaster"]["containers"][0])
    assert (
        master["CLASS_TO_RUN"].endswith("JobMasterStarter")
        and master["JVM_MEMORY_MB"] == "1024"  # the launcher's: all of its ram
    )


def test_user_labels_reach_objects_and_pods_but_never_selectors() -> None:
    context = _context(
        "workers: [{count: 1}]\n",
        metadata="labels: {team: data}\nannotations: {a: b}\n",
    )
    group = context["workerGroups"][0]
    assert group["metadata"]["labels"]["team"] == "data"
    assert group["podMetadata"]["labels"]["team"] == "data"
    assert group["podMetadata"]["annotations"] == {"a": "b"}
    assert "team" not in group["selector"]
    assert "team" not in context["jobMaster"]["selector"]
    assert context["metadata"]["configMap"]["annotations"] == {
        "a": "b",
        "t2gen.dev/package-namespace": "default",  # t2gen's own, last (issue 42)
    }


def test_namespace_only_when_given() -> None:
    assert (
        "namespace" not in _context("workers: [{count: 1}]\n")["metadata"]["configMap"]
    )
    assert (
        _context("workers: [{count: 1}]\n", metadata="namespace: ns\n")["metadata"][
            "configMap"
        ]["namespace"]
        == "ns"
    )


def test_the_config_map_records_the_packages_namespace() -> None:
    """The job file's namespace, else Twister2's default; with --package, the package's (issue 42)."""
    annotation = "t2gen.dev/package-namespace"
    plain = _context("workers: [{count: 1}]\n")["metadata"]["configMap"]
    assert plain["annotations"] == {annotation: "default"}
    named = _context("workers: [{count: 1}]\n", metadata="namespace: ns\n")
    assert named["metadata"]["configMap"]["annotations"] == {annotation: "ns"}
    # only the job's ConfigMap: the other objects keep the job's annotations alone
    assert "annotations" not in named["metadata"]["workerService"]


def _roles(context: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    return {role["role"]: role["rules"] for role in context["rbac"]["roles"]}


def _named(rules: list[dict[str, Any]]) -> dict[tuple[str, ...], list[str] | None]:
    return {
        (tuple(r["resources"]), *r["verbs"]): r.get("resourceNames")
        for r in rules
        if "resourceNames" in r
    }


def test_each_role_is_least_privilege_and_names_this_jobs_objects() -> None:
    context = _context("workers: [{count: 1}, {count: 1}]\n")
    roles = _roles(context)
    assert _named(roles["worker"]) == {(("configmaps",), "patch"): ["job"]}
    named = _named(roles["job-master"])
    assert named[(("configmaps",), "patch", "delete")] == ["job"]
    assert named[(("statefulsets/scale",), "patch")] == ["job-1"]  # the last group
    assert named[(("services",), "delete")] == ["job", "job-jm"]
    assert named[(("statefulsets",), "delete")] == ["job-0", "job-1", "job-jm"]
    for rules in roles.values():
        for rule in rules:
            assert not {"*", "create", "get", "update"} & set(rule["verbs"])
            if {"delete", "patch"} & set(rule["verbs"]):
                assert rule.get("resourceNames"), rule
    accounts = [role["serviceAccountName"] for role in context["rbac"]["roles"]]
    assert accounts == ["job-worker", "job-jm"]
    assert (
        context["workerGroups"][0]["podTemplate"]["spec"]["serviceAccountName"]
        == "job-worker"
    )
    assert context["jobMaster"]["podTemplate"]["spec"]["serviceAccountName"] == "job-jm"


def test_openmpi_job_master_may_not_scale() -> None:
    context = _context("workers: [{count: 2, perPod: 2}]\nmpi: {enabled: true}\n")
    roles = _roles(context)
    assert not any("statefulsets/scale" in r["resources"] for r in roles["job-master"])
    assert {"resources": ["pods"], "verbs": ["watch"], "apiGroups": [""]} in roles[
        "worker"
    ]


def test_binding_sets_limits_equal_to_requests_and_marks_worker_pods() -> None:
    context = _context(
        "workers: [{count: 2, cpu: 2, memory: 3Gi}]\nbindWorkersToCpu: true\n"
        "jobPackage: {maxSize: 256Mi}\n"
    )
    resources = context["workerGroups"][0]["containers"][0]["resources"]
    assert resources == {  # the memory volume (2 x 256Mi) in request and limit alike
        "requests": {"cpu": "2", "memory": "3584Mi"},
        "limits": {"cpu": "2", "memory": "3584Mi"},
    }
    bind = "t2gen.dev/bind-workers-to-cpu"
    assert context["workerGroups"][0]["podMetadata"]["annotations"] == {bind: "true"}
    assert "annotations" not in context["jobMaster"]["podMetadata"]


def test_binding_with_openmpi_binds_the_pods_combined_container() -> None:
    context = _context(
        "workers: [{count: 4, perPod: 2, cpu: 0.5, memory: 1Gi}]\nbindWorkersToCpu: true\nmpi: {enabled: true}\n"
        "storage: {memoryVolumeSize: 512Mi}\njobPackage: {maxSize: 256Mi}\n"
    )
    (container,) = context["workerGroups"][0]["containers"]
    # 2 x 1Gi + the memory volume (512Mi) + the MPI master's 512Mi (group 0)
    assert container["resources"]["limits"] == {"cpu": "1", "memory": "3Gi"}
    assert container["resources"]["requests"] == container["resources"]["limits"]


def test_placement_applies_to_every_worker_group_and_not_to_the_job_master() -> None:
    context = _context(
        "workers: [{count: 1}, {count: 2}]\n"
        "placement:\n"
        "  nodeAffinity:\n"
        "    required: [{key: cores, operator: Gt, values: [8]}]\n"
        "    preferred: [{weight: 10, key: disk, operator: Exists}]\n"
        "  uniform: all-separate-nodes\n"
    )
    first, second = (group["affinity"] for group in context["workerGroups"])
    assert first == second
    node = first["nodeAffinity"]
    assert node["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ] == [
        {"matchExpressions": [{"key": "cores", "operator": "Gt", "values": ["8"]}]}
    ]  # an integer value is written as the string Kubernetes needs
    assert node["preferredDuringSchedulingIgnoredDuringExecution"] == [
        {
            "weight": 10,
            "preference": {"matchExpressions": [{"key": "disk", "operator": "Exists"}]},
        }
    ]
    assert first["podAntiAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ] == [
        {
            "labelSelector": {"matchLabels": {"t2-wp": "job"}},
            "topologyKey": "kubernetes.io/hostname",
        }
    ]
    assert context["jobMaster"]["affinity"] is None


def test_persistent_claim_size_is_exact() -> None:
    # 3 workers x 0.1Gi is exactly 0.3Gi: 322,122,547.2 bytes (the legacy launcher
    # computed 0.30000000000000004Gi and crashed). Kubernetes wants whole bytes, so
    # the request is rounded up, once, at the end: 322,122,548.
    from decimal import Decimal

    from t2gen.kube.quantity import parse_quantity

    context = _context(
        "workers: [{count: 3}]\nstorage: {persistent: {perWorker: 0.1Gi}}\n"
    )
    claim = context["persistentVolumeClaim"]
    assert (
        parse_quantity("0.1Gi").value * 3
        == parse_quantity("0.3Gi").value
        == Decimal("322122547.2")
    )
    assert claim["storage"] == "322122548"
    assert (
        claim["accessModes"] == ["ReadWriteMany"] and claim["storageClassName"] is None
    )


def test_fractional_byte_sizes_are_rounded_up_to_whole_bytes() -> None:
    context = _context(
        "workers: [{count: 2, perPod: 2, memory: 0.1Gi, volatileDisk: 0.1Gi}]\n"
    )
    group = context["workerGroups"][0]
    assert group["containers"][1]["resources"]["requests"]["memory"] == "107374183"
    assert group["volumes"][1]["emptyDir"]["sizeLimit"] == "214748365"


def test_claim_includes_the_job_masters_share_and_is_mounted_everywhere() -> None:
    context = _context(
        "workers: [{count: 4, perPod: 2}]\njobMaster: {persistentDisk: 512Mi}\nstorage: {persistent: {perWorker: 1Gi}}\n"
    )
    assert context["persistentVolumeClaim"]["storage"] == "4608Mi"
    for group in [*context["workerGroups"], context["jobMaster"]]:
        for container in group["containers"]:
            assert {
                "name": "persistent-volume",
                "mountPath": "/persistent",
            } in container["volumeMounts"]


def test_job_master_without_a_share_does_not_mount_the_claim() -> None:
    context = _context(
        "workers: [{count: 1}]\nstorage: {persistent: {perWorker: 1Gi}}\n"
    )
    assert context["persistentVolumeClaim"]["storage"] == "1Gi"
    assert all(
        v["name"] != "persistent-volume" for v in context["jobMaster"]["volumes"]
    )


def test_no_claim_without_per_worker_storage() -> None:
    context = _context("workers: [{count: 1}]\n")
    assert context["persistentVolumeClaim"] is None
    assert all(
        v["name"] != "persistent-volume" for v in context["workerGroups"][0]["volumes"]
    )


def test_rbac_can_be_left_to_the_cluster() -> None:
    from t2gen.pipeline.load import builtin_template_set
    from t2gen.render.engine import render

    for rbac, account in (
        ("{create: false}", None),
        ("{create: false, serviceAccountName: runner}", "runner"),
    ):
        context = _context(f"workers: [{{count: 1}}]\nrbac: {rbac}\n")
        documents = render(context, builtin_template_set())
        assert {d.kind for d in documents} == {"ConfigMap", "Service", "StatefulSet"}
        pods = [
            d.obj["spec"]["template"]["spec"]
            for d in documents
            if d.kind == "StatefulSet"
        ]
        assert all(pod.get("serviceAccountName") == account for pod in pods)


def test_node_port_service_is_the_workers_service() -> None:
    """As the launcher makes it, so the job master deletes it (JobTerminator.java:45-47)."""
    context = _context(
        "workers: [{count: 2}]\nnetwork: {basePort: 7000, protocol: UDP, service: {type: NodePort}}\n"
    )
    assert context["nodePortService"] == {
        "selector": {"t2-wp": "job"},
        "ports": [
            {"name": "worker", "port": 7000, "targetPort": 7000, "protocol": "UDP"}
        ],
    }
    assert context["workerGroups"][0]["serviceName"] == "job"
    assert context["metadata"]["workerService"]["name"] == "job"


def test_openmpi_pods_have_one_container_with_the_pods_resources() -> None:
    context = _context(
        "workers: [{count: 6, perPod: 3, cpu: 500m, memory: 1Gi}, {count: 3, perPod: 3}]\n"
        "mpi: {enabled: true}\n"
    )
    (container,) = context["workerGroups"][0]["containers"]
    assert container["args"] == ["-c", "./init_openmpi.sh"]
    # 3 x 1Gi + the memory volume (128Mi) + 512Mi for the MPI master JVM, mpirun and sshd
    assert container["resources"] == {
        "requests": {"cpu": "1500m", "memory": "3712Mi"},
        "limits": {"memory": "3712Mi"},
    }
    # group 1 runs no MPI master: 3 x 1Gi + 128Mi + 64Mi for sshd and orted
    (other,) = context["workerGroups"][1]["containers"]
    assert other["resources"]["requests"]["memory"] == "3264Mi"
    assert _env(container)["CLASS_TO_RUN"].endswith("mpi.MPIMasterStarter")
    assert (
        _env(container)["JVM_MEMORY_MB"] == "819"
    )  # per worker: each MPI worker is its own JVM
    assert {
        "name": "kube-openmpi-ssh-key",
        "mountPath": "/ssh-key/openmpi",
    } in container["volumeMounts"]
    secret = next(
        v
        for v in context["workerGroups"][0]["volumes"]
        if v["name"] == "kube-openmpi-ssh-key"
    )
    assert secret["secret"] == {
        "secretName": "job-ssh",  # the job's own key by default
        "defaultMode": 0o400,
    }


def test_job_object_goes_into_the_config_map() -> None:
    job = valid_job(job_text())
    assert build_context(job)["configMap"]["data"] == {"JOB_ID": "job"}
    data = build_context(job, job_object=b"\x00\x01binary")["configMap"]["data"]
    assert data == {"JOB_ID": "job", "TWISTER2_JOB_OBJECT": "AAFiaW5hcnk="}


def test_pod_template_is_built_once_and_its_parts_stay_for_user_templates() -> None:
    context = _context(
        "workers: [{count: 2, perPod: 2}]\nplacement: {uniform: all-separate-nodes}\n"
        "imagePullSecrets: [regcred]\n"
    )
    for owner in (context["workerGroups"][0], context["jobMaster"]):
        template = owner["podTemplate"]
        assert list(template) == ["metadata", "spec"]
        assert template["metadata"] == owner["podMetadata"]
        spec = template["spec"]
        assert spec["containers"] == owner["containers"]
        assert spec["volumes"] == owner["volumes"]
        assert spec.get("affinity") == owner["affinity"]
        role = "jobMaster" if owner is context["jobMaster"] else "worker"
        assert spec["serviceAccountName"] == context["pod"]["serviceAccounts"][role]
        assert spec["imagePullSecrets"] == [{"name": "regcred"}]
    assert "affinity" not in context["jobMaster"]["podTemplate"]["spec"]
    assert list(context["workerGroups"][0]["podTemplate"]["spec"]) == [
        "serviceAccountName",
        "imagePullSecrets",
        "terminationGracePeriodSeconds",
        "securityContext",
        "affinity",
        "containers",
        "volumes",
    ]
