"""The init container of ``jobPackage.source``: built by the one pod builder, counted once, bounded."""

from __future__ import annotations

from typing import Any

from t2gen.kube.quantity import parse_quantity
from t2gen.plan.podspec import is_guaranteed, pod_requests
from t2gen.render.context import build_context
from t2gen.render.context.package import TOOLS_MEMORY
from t2gen.render.context.resources import pod_requests as gang_pod_requests
from tests.helpers import job_text, valid_job

DIGEST = "a" * 64
URL_SOURCE = (
    "jobPackage:\n"
    f"  source: {{url: 'https://example.com/job.tar.gz', sha256: {DIGEST}, size: 1000}}\n"
)


def _templates(
    spec: str, kube_version: tuple[int, int] | None = None
) -> list[dict[str, Any]]:
    context = build_context(valid_job(job_text(spec)), kube_version=kube_version)
    templates = [group["podTemplate"] for group in context["workerGroups"]]
    if context["jobMaster"]:
        templates.append(context["jobMaster"]["podTemplate"])
    return templates


def test_every_pod_places_the_package_before_its_twister2_containers() -> None:
    for template in _templates("workers:\n  - {count: 4, perPod: 2}\n" + URL_SOURCE):
        spec = template["spec"]
        (init,) = spec["initContainers"]
        assert init["name"] == "job-package"
        assert list(spec).index("initContainers") < list(spec).index("containers")
        assert init["image"] == "twister2/twister2-k8s:0.8.0"
        assert init["securityContext"]["readOnlyRootFilesystem"] is True
        assert init["securityContext"]["allowPrivilegeEscalation"] is False
        assert init["volumeMounts"] == [
            {"name": "twister2-memory-dir", "mountPath": "/twister2-memory-dir"}
        ]
        first = spec["containers"][0]
        assert (
            init["resources"]["requests"]["cpu"]
            == first["resources"]["requests"]["cpu"]
        )
        volume = next(v for v in spec["volumes"] if v["name"] == "twister2-memory-dir")
        memory = parse_quantity(volume["emptyDir"]["sizeLimit"]) + TOOLS_MEMORY
        assert parse_quantity(init["resources"]["requests"]["memory"]) == memory
        assert (
            init["resources"]["limits"]["memory"]
            == init["resources"]["requests"]["memory"]
        )
        for container in spec["containers"]:
            env = {e["name"]: e.get("value") for e in container["env"]}
            assert env["UPLOAD_METHOD"] == "client-to-pods"
            assert env["JOB_PACKAGE_FILE_SIZE"] == "1000"
            assert "JOB_PACKAGE_URI" not in env
        assert (
            template["metadata"]["annotations"]["t2gen.dev/job-package-sha256"]
            == DIGEST
        )


def test_the_package_is_counted_once_as_the_scheduler_counts() -> None:
    for template in _templates(
        "workers:\n  - {count: 4, perPod: 2, memory: 1Gi}\n" + URL_SOURCE
    ):
        without = {**template["spec"], "initContainers": []}
        # the init container asks for no more than the first app container: no change
        assert pod_requests(template["spec"]) == pod_requests(without)
        assert gang_pod_requests(template) == gang_pod_requests({"spec": without})


def test_a_larger_init_container_is_what_a_gang_counts() -> None:
    template = {
        "spec": {
            "containers": [{"resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
            "initContainers": [
                {"resources": {"requests": {"cpu": "2", "memory": "512Mi"}}}
            ],
        }
    }
    assert gang_pod_requests(template) == {
        "cpu": parse_quantity("2"),
        "memory": parse_quantity("1Gi"),
    }


def test_a_bound_pod_stays_guaranteed() -> None:
    spec = (
        "bindWorkersToCpu: true\nworkers:\n  - {count: 2, cpu: 2, memory: 2Gi}\n"
        + URL_SOURCE
    )
    worker = _templates(spec)[0]
    assert is_guaranteed(worker["spec"])
    (init,) = worker["spec"]["initContainers"]
    assert init["resources"]["limits"]["cpu"] == "2"


def test_restricted_and_the_users_env_and_volumes_reach_it() -> None:
    spec = (
        "security: {profile: restricted}\n"
        "env: [{name: HTTPS_PROXY, value: 'http://proxy:3128'}]\n"
        "volumes: [{name: ca, mountPath: /etc/ca, configMap: {name: ca}}]\n"
        "workers:\n  - {count: 2}\n" + URL_SOURCE
    )
    worker = _templates(spec)[0]
    (init,) = worker["spec"]["initContainers"]
    names = [e["name"] for e in init["env"]]
    assert names[:6] == [
        "POD_MEMORY_VOLUME",
        "JOB_PACKAGE_FILENAME",
        "JOB_PACKAGE_FILE_SIZE",
        "JOB_PACKAGE_SHA256",
        "JOB_PACKAGE_URL",
        "JOB_PACKAGE_DEADLINE_SECONDS",
    ]
    assert "HOME" in names and "HTTPS_PROXY" in names
    assert init["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    assert {"name": "ca", "mountPath": "/etc/ca"} in [
        {k: m[k] for k in ("name", "mountPath")} for m in init["volumeMounts"]
    ]


def test_an_oci_source_is_an_image_volume_mounted_read_only() -> None:
    spec = (
        "workers:\n  - {count: 2}\n"
        f"jobPackage:\n  source: {{oci: 'r.example.com/j@sha256:{DIGEST}', size: 1000}}\n"
    )
    for template in _templates(spec, kube_version=(1, 35)):
        volumes = template["spec"]["volumes"]
        assert volumes[1] == {
            "name": "job-package",
            "image": {
                "reference": f"r.example.com/j@sha256:{DIGEST}",
                "pullPolicy": "IfNotPresent",
            },
        }
        (init,) = template["spec"]["initContainers"]
        assert {
            "name": "job-package",
            "mountPath": "/t2gen/job-package",
            "readOnly": True,
        } in init["volumeMounts"]
        env = {e["name"]: e["value"] for e in init["env"]}
        assert env["JOB_PACKAGE_PATH"] == "/t2gen/job-package/job.tar.gz"
        assert "JOB_PACKAGE_URL" not in env and "JOB_PACKAGE_SHA256" not in env
        # only the init container mounts the artifact
        for container in template["spec"]["containers"]:
            assert all(m["name"] != "job-package" for m in container["volumeMounts"])
