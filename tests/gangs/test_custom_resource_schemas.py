"""The schemas t2gen ships for gang-scheduling objects (schemas/kube/).

Each schema is checked against the draft 2020-12 metaschema, accepts a realistic
object, and rejects a wrong type, an unknown spec field and a missing required field.
The Kubernetes Workload API examples are also checked against the schemas that
kubernetes-validate bundles, so the hand-written schemas cannot drift from upstream.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema
import pytest

from tests.conftest import ROOT

KUBE_SCHEMAS = ROOT / "schemas" / "kube"

LABELS = {"app": "twister2", "t2-job": "wc"}

VALID: dict[str, dict[str, Any]] = {
    "scheduling.volcano.sh_v1beta1_podgroup": {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {
            "name": "wc",
            "labels": LABELS,
            "annotations": {
                "volcano.sh/task-topology-affinity": "jm,0",
                "volcano.sh/task-topology-anti-affinity": "1",
                "volcano.sh/task-topology-task-order": "jm,0,1",
            },
        },
        "spec": {
            "minMember": 8,
            "minTaskMember": {"jm": 1, "0": 4, "1": 3},
            "queue": "default",
            "priorityClassName": "high",
            "minResources": {"cpu": "4500m", "memory": "9Gi", "nvidia.com/gpu": 2},
            "networkTopology": {"mode": "soft", "highestTierAllowed": 2},
        },
        "status": {"phase": "Pending", "running": 0},
    },
    "scheduling.x-k8s.io_v1alpha1_podgroup": {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": "wc", "namespace": "team-a", "labels": LABELS},
        "spec": {
            "minMember": 8,
            "minResources": {"cpu": 4.5, "memory": "9Gi"},
            "scheduleTimeoutSeconds": 300,
        },
    },
    "scheduling.k8s.io_v1alpha1_workload": {
        "apiVersion": "scheduling.k8s.io/v1alpha1",
        "kind": "Workload",
        "metadata": {"name": "wc", "labels": LABELS},
        "spec": {"podGroups": [{"name": "job", "policy": {"gang": {"minCount": 8}}}]},
    },
    "scheduling.k8s.io_v1alpha2_workload": {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "Workload",
        "metadata": {"name": "wc", "labels": LABELS},
        "spec": {
            "podGroupTemplates": [
                {"name": "job", "schedulingPolicy": {"gang": {"minCount": 8}}}
            ]
        },
    },
    "scheduling.k8s.io_v1alpha2_podgroup": {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "wc", "labels": LABELS},
        "spec": {
            "podGroupTemplateRef": {
                "workload": {"workloadName": "wc", "podGroupTemplateName": "job"}
            },
            "schedulingPolicy": {"gang": {"minCount": 8}},
        },
    },
}

# Where the group minimum lives, and the required field to drop, per schema.
MIN_PATH = {
    "scheduling.volcano.sh_v1beta1_podgroup": ("spec", "minMember"),
    "scheduling.x-k8s.io_v1alpha1_podgroup": ("spec", "minMember"),
    "scheduling.k8s.io_v1alpha1_workload": (
        "spec",
        "podGroups",
        0,
        "policy",
        "gang",
        "minCount",
    ),
    "scheduling.k8s.io_v1alpha2_workload": (
        "spec",
        "podGroupTemplates",
        0,
        "schedulingPolicy",
        "gang",
        "minCount",
    ),
    "scheduling.k8s.io_v1alpha2_podgroup": (
        "spec",
        "schedulingPolicy",
        "gang",
        "minCount",
    ),
}
REQUIRED_PATH = {
    "scheduling.volcano.sh_v1beta1_podgroup": ("kind",),
    "scheduling.x-k8s.io_v1alpha1_podgroup": ("apiVersion",),
    "scheduling.k8s.io_v1alpha1_workload": ("spec", "podGroups"),
    "scheduling.k8s.io_v1alpha2_workload": ("spec",),
    "scheduling.k8s.io_v1alpha2_podgroup": ("spec", "schedulingPolicy"),
}
# The Kubernetes objects, and the kubernetes-validate version that bundles their schema.
UPSTREAM_VERSION = {
    "scheduling.k8s.io_v1alpha1_workload": "1.35.0",
    "scheduling.k8s.io_v1alpha2_workload": "1.36.0",
    "scheduling.k8s.io_v1alpha2_podgroup": "1.36.0",
}

NAMES = sorted(VALID)


def load(name: str) -> dict[str, Any]:
    return json.loads(
        (KUBE_SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8")
    )


def errors(name: str, obj: Any) -> list[str]:
    validator = jsonschema.Draft202012Validator(load(name))
    return [err.message for err in validator.iter_errors(obj)]


def replace(obj: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    new = copy.deepcopy(obj)
    node: Any = new
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return new


def drop(obj: dict[str, Any], path: tuple[Any, ...]) -> dict[str, Any]:
    new = copy.deepcopy(obj)
    node: Any = new
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]
    return new


def test_every_schema_file_has_an_example() -> None:
    files = sorted(
        p.name.removesuffix(".schema.json") for p in KUBE_SCHEMAS.glob("*.json")
    )
    assert files == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_schema_is_valid_draft_2020_12(name: str) -> None:
    schema = load(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    group, version, kind = name.split("_")
    assert schema["properties"]["apiVersion"] == {"const": f"{group}/{version}"}
    assert schema["properties"]["kind"]["const"].lower() == kind
    assert ".go" in schema["description"]  # cites the upstream Go types


@pytest.mark.parametrize("name", NAMES)
def test_valid_example_is_accepted(name: str) -> None:
    assert errors(name, VALID[name]) == []


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("bad", ["8", 8.5, None, True])
def test_wrong_type_of_minimum_is_rejected(name: str, bad: Any) -> None:
    assert errors(name, replace(VALID[name], MIN_PATH[name], bad))


@pytest.mark.parametrize("name", NAMES)
def test_unknown_spec_field_is_rejected(name: str) -> None:
    problems = errors(name, replace(VALID[name], ("spec", "minMembers"), 8))
    assert any("minMembers" in p for p in problems)


@pytest.mark.parametrize("name", NAMES)
def test_missing_required_field_is_rejected(name: str) -> None:
    problems = errors(name, drop(VALID[name], REQUIRED_PATH[name]))
    assert any("is a required property" in p for p in problems)


@pytest.mark.parametrize("name", NAMES)
def test_other_group_or_kind_is_rejected(name: str) -> None:
    assert errors(
        name, replace(VALID[name], ("apiVersion",), "scheduling.k8s.io/v1beta1")
    )
    assert errors(name, replace(VALID[name], ("kind",), "Deployment"))


@pytest.mark.parametrize(
    ("name", "path", "value"),
    [
        ("scheduling.volcano.sh_v1beta1_podgroup", ("spec", "minMember"), -1),
        ("scheduling.volcano.sh_v1beta1_podgroup", ("spec", "queue"), "Not_A_Queue"),
        ("scheduling.volcano.sh_v1beta1_podgroup", ("spec", "minTaskMember", "0"), "4"),
        (
            "scheduling.volcano.sh_v1beta1_podgroup",
            ("spec", "minResources", "cpu"),
            "4 cores",
        ),
        (
            "scheduling.volcano.sh_v1beta1_podgroup",
            ("spec", "networkTopology", "mode"),
            "strict",
        ),
        ("scheduling.volcano.sh_v1beta1_podgroup", ("status", "phase"), "Done"),
        ("scheduling.x-k8s.io_v1alpha1_podgroup", ("spec", "minMember"), 0),
        (
            "scheduling.x-k8s.io_v1alpha1_podgroup",
            ("spec", "scheduleTimeoutSeconds"),
            "5m",
        ),
        ("scheduling.k8s.io_v1alpha1_workload", ("spec", "podGroups", 0, "policy"), {}),
        (
            "scheduling.k8s.io_v1alpha1_workload",
            ("spec", "podGroups", 0, "policy"),
            {"basic": {}, "gang": {"minCount": 2}},
        ),
        (
            "scheduling.k8s.io_v1alpha1_workload",
            ("spec", "podGroups", 0, "name"),
            "Job",
        ),
        (
            "scheduling.k8s.io_v1alpha1_workload",
            ("spec", "podGroups"),
            [{"name": f"g{i}", "policy": {"basic": {}}} for i in range(9)],
        ),
        ("scheduling.k8s.io_v1alpha2_workload", ("spec", "podGroupTemplates"), []),
        (
            "scheduling.k8s.io_v1alpha2_podgroup",
            ("spec", "schedulingPolicy", "gang", "minCount"),
            0,
        ),
        ("scheduling.k8s.io_v1alpha2_podgroup", ("spec", "disruptionMode"), "Job"),
        (
            "scheduling.k8s.io_v1alpha2_podgroup",
            ("spec", "schedulingConstraints"),
            {"topology": [{"key": "a"}, {"key": "b"}]},
        ),
        ("scheduling.k8s.io_v1alpha2_podgroup", ("metadata",), {"labels": LABELS}),
    ],
)
def test_specific_violations_are_rejected(
    name: str, path: tuple[Any, ...], value: Any
) -> None:
    assert errors(name, replace(VALID[name], path, value))


def test_volcano_accepts_an_empty_spec_like_the_api_server() -> None:
    # Every PodGroupSpec field is omitempty in volcano-sh/apis.
    name = "scheduling.volcano.sh_v1beta1_podgroup"
    assert errors(name, replace(VALID[name], ("spec",), {})) == []


def test_v1alpha2_accepts_optional_fields_and_nulls() -> None:
    name = "scheduling.k8s.io_v1alpha2_podgroup"
    obj = replace(VALID[name], ("spec", "podGroupTemplateRef"), None)
    obj["spec"]["schedulingConstraints"] = {
        "topology": [{"key": "topology.kubernetes.io/rack"}]
    }
    obj["spec"]["disruptionMode"] = "PodGroup"
    obj["status"] = {
        "conditions": [
            {
                "type": "PodGroupScheduled",
                "status": "False",
                "lastTransitionTime": "2026-01-01T00:00:00Z",
                "reason": "Unschedulable",
                "message": "2 of 8 pods fit",
            }
        ]
    }
    assert errors(name, obj) == []


@pytest.mark.parametrize("name", sorted(UPSTREAM_VERSION))
def test_kubernetes_examples_agree_with_kubernetes_validate(name: str) -> None:
    kubernetes_validate = pytest.importorskip("kubernetes_validate")
    version = UPSTREAM_VERSION[name]
    kubernetes_validate.validate(VALID[name], version, strict=True)
    bad = replace(VALID[name], MIN_PATH[name], "8")
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, version, strict=True)
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(
            replace(VALID[name], ("spec", "minMembers"), 8), version, strict=True
        )
