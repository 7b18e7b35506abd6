"""Job-wide ``volumes``, ``env`` and ``envFrom`` are the workers'; the job master has its own (issue 34, item 4).

Checked on every example (rendered now) and on every golden render (the
reviewed files themselves), then field by field: ``jobMaster.volumes``,
``jobMaster.env`` and ``jobMaster.envFrom`` reach the job master only, the
runtime's variables a job may set in ``spec.env`` reach every pod, and the rules
let the job master's section repeat what ``spec`` gives the workers.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from t2gen.kube.yamlio import load_all_yaml
from t2gen.pipeline.job import generate
from t2gen.plan.templates import workload_templates
from t2gen.render.context import build_context
from t2gen.twister2 import names
from tests.conftest import EXAMPLES, GOLDEN, ROOT
from tests.helpers import job_text, problems, valid_job


def _spec_of(job_file: Path) -> dict[str, Any]:
    spec: dict[str, Any] = yaml.safe_load(job_file.read_text(encoding="utf-8"))["spec"]
    return spec


def _golden_renders() -> list[tuple[str, Path]]:
    """``(case, job file)`` of every golden case that renders one job file to stdout."""
    cases = []
    for args in sorted(GOLDEN.glob("*/args")):
        argv = shlex.split(args.read_text(encoding="utf-8"))
        if argv[0] != "render":
            continue
        files = [a for a in argv[1:] if a.endswith(".yaml")]
        if len(files) == 1 and (args.parent / "expected.stdout").is_file():
            case = args.parent.name
            path = ROOT / files[0].replace("{case}", f"tests/golden/{case}")
            cases.append((case, path))
    return cases


def _names(items: list[dict[str, Any]] | None) -> set[str]:
    return {item["name"] for item in items or ()}


def _check_pods(
    spec: dict[str, Any], workers: list[dict[str, Any]], master: dict[str, Any]
) -> int:
    """Assert the job-wide split on pod specs; return how many job-wide items were checked."""
    volumes = _names(spec.get("volumes"))
    env = _names(spec.get("env"))
    env_from = spec.get("envFrom") or []
    for pod in workers:
        assert volumes <= _names(pod["volumes"])
        for container in pod["containers"]:
            assert volumes <= _names(container["volumeMounts"])
            assert env <= _names(container["env"])
            for item in env_from:
                assert item in container.get("envFrom", [])
    own = spec.get("jobMaster") or {}
    (container,) = master["containers"]
    may_have = _names(own.get("volumes"))
    assert not (volumes - may_have) & _names(master["volumes"])
    assert not (volumes - may_have) & _names(container["volumeMounts"])
    may_have = _names(own.get("env")) | names.ENV_SET_BY_THE_JOB
    assert not (env - may_have) & _names(container["env"])
    assert container.get("envFrom", []) == (own.get("envFrom") or [])
    return len(volumes) + len(env) + len(env_from)


def test_every_example_mounts_job_wide_items_on_workers_only() -> None:
    checked = 0
    for example in EXAMPLES:
        context = build_context(valid_job(example.read_text(encoding="utf-8")))
        workers = [group["podTemplate"]["spec"] for group in context["workerGroups"]]
        master = context["jobMaster"]["podTemplate"]["spec"]
        checked += _check_pods(_spec_of(example), workers, master)
    assert checked >= 5  # gpu-dataset's volume, two env, envFrom; heterogeneous's env


def test_every_golden_render_mounts_job_wide_items_on_workers_only() -> None:
    checked = 0
    cases = _golden_renders()
    assert {"gpu-dataset", "hardened", "heterogeneous", "restore"} <= dict(cases).keys()
    for case, job_file in cases:
        text = (GOLDEN / case / "expected.stdout").read_text(encoding="utf-8")
        objects = [
            item
            for obj in load_all_yaml(text)
            if obj
            for item in (obj["items"] if obj["kind"] == "List" else [obj])
        ]
        sets = [o for o in objects if o["kind"] == "StatefulSet"]
        master = [s for s in sets if names.JOB_MASTER_POD_LABEL in _pod_labels(s)]
        workers = [s for s in sets if names.WORKER_POD_LABEL in _pod_labels(s)]
        assert len(master) == 1 and workers, case
        checked += _check_pods(
            _spec_of(job_file),
            [w["spec"]["template"]["spec"] for w in workers],
            master[0]["spec"]["template"]["spec"],
        )
    # gpu-dataset, heterogeneous, hardened (and restore's runtime variable)
    assert checked >= 6


def _pod_labels(statefulset: dict[str, Any]) -> dict[str, str]:
    labels: dict[str, str] = statefulset["spec"]["template"]["metadata"]["labels"]
    return labels


SPEC = """\
volumes:
  - {name: dataset, mountPath: /data, readOnly: true, persistentVolumeClaim: {claimName: imagenet}}
env:
  - {name: JOB_SUBMISSION_TIME, value: "1767225600000"}
  - {name: ENCODED_NODE_INFO_LIST, value: "10.0.0.1:node1:rack1:dc1"}
  - {name: HOME, value: /data/home}
  - {name: STORE_KEY, valueFrom: {secretKeyRef: {name: store, key: key}}}
envFrom:
  - {secretRef: {name: store-all}}
workers:
  - count: 2
jobMaster:
  volumes:
    - {name: state, mountPath: /state, configMap: {name: jm-state}}
  env:
    - {name: JM_ONLY, value: "1"}
  envFrom:
    - {configMapRef: {name: jm-settings}}
security: {profile: restricted}
"""


def _pods(spec: str) -> tuple[dict[str, Any], dict[str, Any]]:
    context = build_context(valid_job(job_text(spec)))
    (worker,) = (g["podTemplate"]["spec"] for g in context["workerGroups"])
    return worker, context["jobMaster"]["podTemplate"]["spec"]


def _env(container: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container["env"]}


def test_the_job_master_gets_only_its_own_section() -> None:
    worker, master = _pods(SPEC)
    (jm,) = master["containers"]
    assert "dataset" not in _names(master["volumes"]) | _names(jm["volumeMounts"])
    assert {"name": "state", "mountPath": "/state"} in jm["volumeMounts"]
    assert {"name": "state", "configMap": {"name": "jm-state"}} in master["volumes"]
    assert jm["envFrom"] == [{"configMapRef": {"name": "jm-settings"}}]
    env = _env(jm)
    assert "STORE_KEY" not in env and env["JM_ONLY"] == "1"
    # spec.env's HOME is the workers': the job master keeps t2gen's (restricted)
    assert env["HOME"] == names.HOME_PATH
    # the runtime's variables a job may set reach every pod, once, as written
    assert env["JOB_SUBMISSION_TIME"] == "1767225600000"
    assert env["ENCODED_NODE_INFO_LIST"] == "10.0.0.1:node1:rack1:dc1"
    assert [e["name"] for e in jm["env"]].count("JOB_SUBMISSION_TIME") == 1
    # and the workers have none of the job master's own
    (container,) = worker["containers"]
    assert "state" not in _names(worker["volumes"]) | _names(container["volumeMounts"])
    assert container["envFrom"] == [{"secretRef": {"name": "store-all"}}]
    worker_env = _env(container)
    assert "JM_ONLY" not in worker_env and worker_env["HOME"] == "/data/home"
    assert worker_env["STORE_KEY"] == {"secretKeyRef": {"name": "store", "key": "key"}}
    assert {"name": "dataset", "mountPath": "/data", "readOnly": True} in container[
        "volumeMounts"
    ]


def test_a_job_master_that_needs_a_job_wide_volume_names_it_again() -> None:
    """The migration path: list the volume, variable or Secret under jobMaster too."""
    spec = """\
    volumes:
      - {name: dataset, mountPath: /data, persistentVolumeClaim: {claimName: imagenet}}
    env:
      - {name: STORE_KEY, valueFrom: {secretKeyRef: {name: store, key: key}}}
    envFrom:
      - {secretRef: {name: store-all}}
    workers:
      - count: 2
    jobMaster:
      volumes:
        - {name: dataset, mountPath: /data, persistentVolumeClaim: {claimName: imagenet}}
      env:
        - {name: STORE_KEY, valueFrom: {secretKeyRef: {name: store, key: key}}}
      envFrom:
        - {secretRef: {name: store-all}}
    """
    worker, master = _pods(spec)
    for pod in (worker, master):
        (container,) = pod["containers"]
        assert [v["name"] for v in pod["volumes"]].count("dataset") == 1
        assert [e["name"] for e in container["env"]].count("STORE_KEY") == 1
        assert container["envFrom"] == [{"secretRef": {"name": "store-all"}}]


def test_a_runtime_variable_of_spec_env_set_again_for_the_job_master_is_a_duplicate() -> (
    None
):
    spec = """\
    env: [{name: JOB_SUBMISSION_TIME, value: "1"}, {name: A, value: x}]
    workers: [{count: 1, env: [{name: A, value: y}]}]
    jobMaster:
      env: [{name: JOB_SUBMISSION_TIME, value: "2"}, {name: A, value: z}]
    """
    found = [(path, message) for _, _, path, message in problems(job_text(spec))]
    assert found == [
        (
            "spec.workers[0].env[0].name",
            "A is already set at spec.env[1]; list each variable once"
            " (t2gen explain env-duplicate)",
        ),
        (
            "spec.jobMaster.env[0].name",
            "JOB_SUBMISSION_TIME is already set at spec.env[0]; list each variable once"
            " (t2gen explain env-duplicate)",
        ),
    ]


@pytest.mark.parametrize("scope", ["workers", "jobMaster"])
def test_a_volume_of_spec_repeated_in_a_scope(scope: str) -> None:
    volume = "{name: data, mountPath: /data, emptyDir: {}}"
    own = (
        f"[{{count: 1, volumes: [{volume}]}}]" if scope == "workers" else "[{count: 1}]"
    )
    spec = f"volumes: [{volume}]\nworkers: {own}\n"
    if scope == "jobMaster":
        spec += f"jobMaster: {{volumes: [{volume}]}}\n"
        valid_job(job_text(spec))  # the job master's pod has only its own
    else:
        assert [p[2] for p in problems(job_text(spec))] == [
            "spec.workers[0].volumes[0].name"
        ]


def test_plan_reads_a_job_wide_claim_on_the_workers_only() -> None:
    """``t2gen plan`` weighs claims per pod template: the job master's has none of spec's."""
    objects = [
        doc.obj for doc in generate([str(ROOT / "examples" / "gpu-dataset.yaml")])
    ]
    claims = {t.name: t.claims for t in workload_templates(objects)}
    assert claims == {
        "gpu-dataset-0": ("imagenet",),
        "gpu-dataset-1": ("imagenet",),
        "gpu-dataset-jm": (),
    }
