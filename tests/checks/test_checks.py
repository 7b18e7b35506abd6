"""Each semantic output check fires on a deliberately broken manifest, and only then."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from t2gen.checks import (
    ALL_CHECKS,
    CHECKS_BY_KIND,
    GENERIC_CHECKS,
    check_objects,
    checks_for,
    matches,
    object_problems,
)
from t2gen.checks.base import JOB_LABEL, WORKER_POD_LABEL
from t2gen.errors import Problem, ValidationError
from t2gen.pipeline.job import generate
from t2gen.twister2 import names
from tests.conftest import ROOT

Objects = list[dict[str, Any]]


@pytest.fixture(scope="module")
def good() -> Objects:
    documents = generate([str(ROOT / "examples/heterogeneous.yaml")])
    return [document.obj for document in documents]


def find(objects: Objects, kind: str, name: str) -> dict[str, Any]:
    return next(
        o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name
    )


def pod(objects: Objects, name: str = "heterogeneous-1") -> dict[str, Any]:
    return find(objects, "StatefulSet", name)["spec"]["template"]["spec"]  # type: ignore[no-any-return]


def template(objects: Objects, name: str = "heterogeneous-1") -> dict[str, Any]:
    return find(objects, "StatefulSet", name)["spec"]["template"]  # type: ignore[no-any-return]


def mark_bound(objects: Objects) -> None:
    """Annotate the worker pod template as bound to cores, as t2gen does for bindWorkersToCpu."""
    template(objects)["metadata"].setdefault("annotations", {})[
        "t2gen.dev/bind-workers-to-cpu"
    ] = "true"


def mark_restricted(objects: Objects) -> None:
    """Annotate the worker pod template as claiming Pod Security Admission restricted."""
    template(objects)["metadata"].setdefault("annotations", {})[
        "t2gen.dev/security-profile"
    ] = "restricted"


def set_affinity(objects: Objects, affinity: dict[str, Any]) -> None:
    pod(objects)["affinity"] = affinity


def node_term(expression: dict[str, Any]) -> dict[str, Any]:
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [expression]}]
            }
        }
    }


def anti(
    selector: dict[str, Any], topology_key: str = "kubernetes.io/hostname"
) -> dict[str, Any]:
    term = {"labelSelector": selector, "topologyKey": topology_key}
    return {
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
    }


def test_the_examples_pass(good: Objects) -> None:
    assert check_objects(good) == []


BREAKAGES: dict[str, tuple[Callable[[Objects], None], str]] = {
    "selector-mismatch": (
        lambda o: find(o, "StatefulSet", "heterogeneous-0")["spec"]["selector"][
            "matchLabels"
        ].update({"t2-wp": "x"}),
        "StatefulSet/heterogeneous-0: spec.selector: does not match the pod template's labels",
    ),
    "selectors-overlap": (
        lambda o: find(o, "StatefulSet", "heterogeneous-0")["spec"]["selector"][
            "matchLabels"
        ].pop("t2-worker-group"),
        "StatefulSet/heterogeneous-0: spec.selector: also selects the pods of StatefulSet heterogeneous-1",
    ),
    "service-not-headless": (
        lambda o: find(o, "Service", "heterogeneous")["spec"].pop("clusterIP"),
        "spec.serviceName: Service heterogeneous is not headless",
    ),
    "empty-service-name": (
        lambda o: find(o, "StatefulSet", "heterogeneous-1")["spec"].update(
            {"serviceName": ""}
        ),
        "StatefulSet/heterogeneous-1: spec.serviceName: empty",
    ),
    "gt-two-values": (
        lambda o: set_affinity(
            o, node_term({"key": "cores", "operator": "Gt", "values": ["3", "4"]})
        ),
        "matchExpressions[0]: operator Gt needs exactly one value, got 2",
    ),
    "gt-not-integer": (
        lambda o: set_affinity(
            o, node_term({"key": "cores", "operator": "Lt", "values": ["four"]})
        ),
        "operator Lt needs a non-negative integer in digits only (a valid label value), got 'four'",
    ),
    "gt-negative": (
        # the API server refuses "-1": not a valid label value
        lambda o: set_affinity(
            o, node_term({"key": "cores", "operator": "Gt", "values": ["-1"]})
        ),
        "operator Gt needs a non-negative integer in digits only (a valid label value), got '-1'",
    ),
    "exists-with-values": (
        lambda o: set_affinity(
            o, node_term({"key": "gpu", "operator": "Exists", "values": ["a"]})
        ),
        "operator Exists takes no values",
    ),
    "in-without-values": (
        lambda o: set_affinity(
            o, node_term({"key": "gpu", "operator": "In", "values": []})
        ),
        "operator In needs at least one value",
    ),
    "unknown-operator": (
        lambda o: set_affinity(o, node_term({"key": "gpu", "operator": "Bogus"})),
        "unknown operator 'Bogus'",
    ),
    "integer-value": (
        lambda o: set_affinity(
            o, node_term({"key": "gpu", "operator": "In", "values": [8]})
        ),
        "values[0]: 8 is not a string",
    ),
    "empty-topology-key": (
        lambda o: set_affinity(
            o, anti({"matchLabels": {"t2-wp": "heterogeneous"}}, "")
        ),
        "podAntiAffinity.required[0].topologyKey: empty",
    ),
    "gt-in-pod-selector": (
        lambda o: set_affinity(
            o,
            anti(
                {
                    "matchExpressions": [
                        {"key": "t2-wp", "operator": "Gt", "values": ["1"]}
                    ]
                }
            ),
        ),
        "operator 'Gt' is not allowed in a label selector",
    ),
    "selector-misses-workers": (
        lambda o: set_affinity(
            o, anti({"matchLabels": {"t2-wp": "heterogeneous", "t2-worker-group": "1"}})
        ),
        "does not select the worker pods of heterogeneous-0 (same job heterogeneous)",
    ),
    "selector-catches-job-master": (
        lambda o: set_affinity(o, anti({"matchLabels": {"t2-job": "heterogeneous"}})),
        "also selects the pods of StatefulSet heterogeneous-jm, which are not workers of job heterogeneous",
    ),
    "empty-pod-selector": (
        lambda o: set_affinity(o, anti({})),
        "labelSelector: empty: it would select every pod in the namespace",
    ),
    "duplicate-port": (
        lambda o: pod(o)["containers"][1]["ports"][0].update({"containerPort": 9000}),
        "containerPort: 9000/TCP is also used by container twister2-container-0",
    ),
    "duplicate-port-name-across-containers": (
        lambda o: pod(o)["containers"][2]["ports"][0].update({"name": "worker"}),
        "StatefulSet/heterogeneous-1: spec.template.spec.containers[2].ports[0].name: duplicate port "
        "name 'worker' with spec.template.spec.containers[0].ports[0]; port names must be unique in a pod",
    ),
    "port-out-of-range": (
        lambda o: pod(o)["containers"][0]["ports"][0].update({"containerPort": 70000}),
        "containerPort: 70000 is not a port (1-65535)",
    ),
    "bad-port-name": (
        lambda o: pod(o)["containers"][0]["ports"][0].update({"name": "Not_A_Name"}),
        "'Not_A_Name' is not an IANA service name",
    ),
    "bad-quantity": (
        lambda o: pod(o)["containers"][0]["resources"]["requests"].update(
            {"memory": "10 gigs"}
        ),
        "requests.memory: '10 gigs' is not a quantity",
    ),
    "non-canonical-quantity": (
        lambda o: pod(o)["containers"][0]["resources"]["requests"].update(
            {"cpu": "0.5"}
        ),
        "'0.5' is not in canonical form (500m)",
    ),
    "request-over-limit": (
        lambda o: pod(o)["containers"][0]["resources"].update(
            {"limits": {"cpu": "100m"}}
        ),
        "resources.requests.cpu: exceeds its limit",
    ),
    "extended-resource-request-alone": (
        lambda o: pod(o)["containers"][0]["resources"]["requests"].update(
            {"nvidia.com/gpu": "1"}
        ),
        "requests.nvidia.com/gpu: nvidia.com/gpu cannot be overcommitted, so its request needs a limit",
    ),
    "extended-resource-limit-differs": (
        lambda o: (
            pod(o)["containers"][0]["resources"]["requests"].update(
                {"nvidia.com/gpu": "1"}
            ),
            pod(o)["containers"][0]["resources"]
            .setdefault("limits", {})
            .update({"nvidia.com/gpu": "2"}),
        ),
        "requests.nvidia.com/gpu: must be equal to its limit (2)",
    ),
    "missing-volume": (
        lambda o: pod(o)["containers"][0]["volumeMounts"].append(
            {"name": "nope", "mountPath": "/x"}
        ),
        "no volume named 'nope' in the pod",
    ),
    "duplicate-env": (
        lambda o: pod(o)["containers"][0]["env"].append(
            {"name": "JOB_ID", "value": "x"}
        ),
        "duplicate variable 'JOB_ID'",
    ),
    "long-statefulset-name": (
        lambda o: find(o, "StatefulSet", "heterogeneous-1")["metadata"].update(
            {"name": "s" * 53}
        ),
        "is 53 characters; a StatefulSet name may have at most 52",
    ),
    "service-name-starts-with-digit": (
        lambda o: find(o, "Service", "heterogeneous")["metadata"].update(
            {"name": "1svc"}
        ),
        "'1svc' is not a DNS-1035 label",
    ),
    "bad-label-value": (
        lambda o: find(o, "ConfigMap", "heterogeneous")["metadata"]["labels"].update(
            {"team": "a b"}
        ),
        "'a b' is not a valid label value",
    ),
    "headless-node-port": (
        lambda o: find(o, "Service", "heterogeneous")["spec"].update(
            {"type": "NodePort"}
        ),
        "a NodePort Service cannot be headless",
    ),
    "node-port-out-of-range": (
        lambda o: find(o, "Service", "heterogeneous-jm")["spec"].update(
            {
                "type": "NodePort",
                "clusterIP": "10.0.0.1",
                "ports": [{"port": 1, "nodePort": 29999}],
            }
        ),
        "nodePort: 29999 is outside the default NodePort range 30000-32767",
    ),
    "dangling-role-ref": (
        lambda o: find(o, "RoleBinding", "heterogeneous-worker")["roleRef"].update(
            {"name": "other"}
        ),
        "roleRef.name: no Role named 'other' in the output",
    ),
    "dangling-subject": (
        lambda o: find(o, "RoleBinding", "heterogeneous-worker")["subjects"][0].update(
            {"name": "other"}
        ),
        "subjects[0].name: no ServiceAccount named 'other' in the output",
    ),
    "workers-hold-job-master-rights": (  # one account for both roles, as before issue 23
        lambda o: find(o, "StatefulSet", "heterogeneous-0")["spec"]["template"][
            "spec"
        ].update({"serviceAccountName": "heterogeneous-jm"}),
        "Role/heterogeneous-jm: rules[1]: grants delete configmaps to Twister2 "
        "worker pods (ServiceAccount heterogeneous-jm)",
    ),
    "worker-reads-secrets": (
        lambda o: find(o, "Role", "heterogeneous-worker")["rules"].append(
            {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}
        ),
        "Role/heterogeneous-worker: rules[3]: grants get secrets to Twister2 worker pods",
    ),
    "job-master-deletes-any-service": (
        lambda o: find(o, "Role", "heterogeneous-jm")["rules"][2].pop("resourceNames"),
        "Role/heterogeneous-jm: rules[2]: grants delete of every services (no resourceNames) "
        "to a Twister2 job master pod",
    ),
    "bound-but-burstable": (
        lambda o: (
            mark_bound(o),
            pod(o)["containers"][0]["resources"].update({"limits": {"cpu": "500m"}}),
        ),
        "resources.limits.memory: a bound worker pod needs cpu and memory limits equal to requests",
    ),
    "bound-fractional-cpu": (
        lambda o: (
            mark_bound(o),
            pod(o)["containers"][0]["resources"].update(
                {
                    "requests": {"cpu": "500m", "memory": "1Gi"},
                    "limits": {"cpu": "500m", "memory": "1Gi"},
                }
            ),
        ),
        "resources.requests.cpu: '500m' is not a whole number of cores",
    ),
    "restricted-without-run-as-non-root": (
        lambda o: mark_restricted(o),
        "securityContext.runAsNonRoot: restricted needs runAsNonRoot: true",
    ),
    "restricted-drops-only-net-raw": (
        lambda o: (
            mark_restricted(o),
            pod(o).update(
                {
                    "securityContext": {
                        "runAsNonRoot": True,
                        "runAsUser": 10000,
                        "seccompProfile": {"type": "RuntimeDefault"},
                    }
                }
            ),
            [
                c.update(
                    {
                        "securityContext": {
                            "allowPrivilegeEscalation": False,
                            "capabilities": {
                                "drop": ["NET_RAW"],
                                "add": ["SYS_CHROOT"],
                            },
                        }
                    }
                )
                for c in pod(o)["containers"]
            ],
        ),
        "capabilities.drop: restricted needs capabilities.drop to hold ALL",
    ),
    "read-only-root-without-tmp": (
        lambda o: [
            c.update({"securityContext": {"readOnlyRootFilesystem": True}})
            for c in pod(o)["containers"]
        ],
        "volumeMounts: a read-only root filesystem needs a writable volume at /tmp,",
    ),
    "restricted-host-path": (
        lambda o: (
            mark_restricted(o),
            pod(o)["volumes"].append({"name": "host", "hostPath": {"path": "/"}}),
        ),
        "hostPath: volume type hostPath is not allowed under restricted",
    ),
}


@pytest.mark.parametrize("name", sorted(BREAKAGES))
def test_each_check_fires(good: Objects, name: str) -> None:
    broken = copy.deepcopy(good)
    breakage, expected = BREAKAGES[name]
    breakage(broken)
    findings = check_objects(broken)
    assert any(expected in finding for finding in findings), findings


def _affinity_selectors(objects: Objects) -> list[tuple[str, dict[str, Any]]]:
    """(job, label selector) of every pod (anti-)affinity term of every StatefulSet."""
    found = []
    for obj in objects:
        if obj["kind"] != "StatefulSet":
            continue
        affinity = obj["spec"]["template"]["spec"].get("affinity", {})
        for kind in ("podAffinity", "podAntiAffinity"):
            for term in affinity.get(kind, {}).get(
                "requiredDuringSchedulingIgnoredDuringExecution", []
            ):
                found.append(
                    (obj["metadata"]["labels"]["t2-job"], term["labelSelector"])
                )
    return found


def _pod_labels(objects: Objects) -> list[tuple[str, str, dict[str, str]]]:
    """(job, StatefulSet, pod labels) of every pod template."""
    return [
        (
            o["metadata"]["labels"]["t2-job"],
            o["metadata"]["name"],
            o["spec"]["template"]["metadata"]["labels"],
        )
        for o in objects
        if o["kind"] == "StatefulSet"
    ]


def test_affinity_of_job_a_never_selects_pods_of_job_b(tmp_path: Path) -> None:
    # Two jobs with uniform mapping and two worker groups each, one job's name a
    # prefix of the other's, rendered side by side as if in one namespace.
    example = (ROOT / "examples/gpu-one-pod-per-node.yaml").read_text(encoding="utf-8")
    two_groups = example.replace(
        "    - count: 8\n", "    - count: 2\n      perPod: 2\n    - count: 2\n", 1
    )
    paths = []
    for name in ("gpu", "gpu-0"):
        path = tmp_path / f"{name}.yaml"
        path.write_text(
            two_groups.replace("name: gpu-one-pod-per-node", f"name: {name}"),
            encoding="utf-8",
        )
        paths.append(str(path))
    paths.append(str(ROOT / "examples/pinned-same-node.yaml"))
    objects = [d.obj for d in generate(paths)]
    selectors = _affinity_selectors(objects)
    assert sorted({job for job, _ in selectors}) == ["gpu", "gpu-0", "pinned-same-node"]
    assert len(selectors) == 5  # every worker group carries the term, not only group 0
    for job, selector in selectors:
        for pod_job, statefulset, labels in _pod_labels(objects):
            is_worker = pod_job == job and statefulset != f"{job}-jm"
            assert matches(selector, labels) == is_worker, (job, statefulset)
    assert check_objects(objects) == []


def test_every_check_has_a_unique_id_and_a_docstring() -> None:
    ids = [c.id for c in ALL_CHECKS]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    for registered in ALL_CHECKS:
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", registered.id), registered.id
        assert len(registered.doc) > 40, registered.id
    object_checks = set(GENERIC_CHECKS).union(*CHECKS_BY_KIND.values())
    assert all(c.level == "object" for c in object_checks)
    assert {c.level for c in ALL_CHECKS} == {"object", "pod", "container"}


def test_unknown_kinds_get_the_generic_checks_only() -> None:
    assert checks_for("Certificate") == checks_for(None) == GENERIC_CHECKS
    assert checks_for("StatefulSet")[: len(GENERIC_CHECKS)] == GENERIC_CHECKS
    certificate = {
        "apiVersion": "cert-manager.io/v1",
        "kind": "Certificate",
        "metadata": {"name": "Word_Count"},
        "spec": {"secretName": "x", "selector": {}},
    }
    assert check_objects([certificate]) == [
        "Certificate/Word_Count: metadata.name: 'Word_Count' is not a DNS-1123 subdomain"
    ]


def test_gang_groups_get_the_scheduling_checks() -> None:
    from t2gen.checks import scheduling

    assert checks_for("PodGroup") == GENERIC_CHECKS + scheduling.GROUP_CHECKS
    assert checks_for("Workload") == GENERIC_CHECKS + scheduling.GROUP_CHECKS


def test_findings_are_located_problems_that_print_as_before(good: Objects) -> None:
    broken = copy.deepcopy(good)
    for name in ("selector-mismatch", "bound-fractional-cpu", "dangling-subject"):
        BREAKAGES[name][0](broken)
    problems = object_problems(broken)
    assert problems and all(type(p) is Problem for p in problems)
    assert [str(p) for p in problems] == check_objects(broken)
    first = next(p for p in problems if p.path.startswith("StatefulSet/"))
    assert (first.path, first.line, first.col, first.json_path) == (
        "StatefulSet/heterogeneous-0",
        0,
        0,
        "spec.selector",
    )
    assert str(first) == (
        "StatefulSet/heterogeneous-0: spec.selector: does not match the pod "
        "template's labels (the API server rejects this)"
    )
    error = ValidationError(findings=problems, warnings=["X/y: not checked"])
    assert error.problems == problems
    assert error.lines() == [*check_objects(broken), "warning: X/y: not checked"]
    assert (
        error.lines()
        == ValidationError(
            findings=check_objects(broken), warnings=["X/y: not checked"]
        ).lines()
    )


def test_the_label_keys_the_checks_read_are_the_ones_t2gen_writes() -> None:
    assert names.worker_selector("job", 0) == {
        WORKER_POD_LABEL: "job",
        names.WORKER_GROUP_LABEL: "0",
    }
    assert names.common_labels("job", "worker")[JOB_LABEL] == "job"


def _two_namespaces(tmp_path: Path, example: str) -> Objects:
    """``example`` rendered twice in one stream: jobs ``a`` and ``b`` in namespaces ``a`` and ``b``."""
    text = (ROOT / "examples" / example).read_text(encoding="utf-8")
    name = re.search(r"^  name: (\S+)$", text, re.M)
    assert name is not None
    paths = []
    for job in ("a", "b"):
        path = tmp_path / f"{job}.yaml"
        path.write_text(
            text.replace(
                f"  name: {name[1]}\n", f"  name: {job}\n  namespace: {job}\n", 1
            ),
            encoding="utf-8",
        )
        paths.append(str(path))
    return [document.obj for document in generate(paths)]


def test_gang_members_are_found_in_each_groups_own_namespace(tmp_path: Path) -> None:
    """Stream look-ups shared by the groups of a batch are kept per namespace."""
    objects = _two_namespaces(tmp_path, "volcano-gang.yaml")
    assert object_problems(objects) == []
    find(objects, "StatefulSet", "b-0")["spec"]["replicas"] = (
        1  # fewer pods than minMember
    )
    assert [p.path for p in object_problems(objects)] == ["PodGroup/b"]


def test_role_rights_are_judged_in_each_roles_own_namespace(tmp_path: Path) -> None:
    """Each namespace's ServiceAccounts, not the first one's, decide whose rights a Role holds."""
    objects = _two_namespaces(tmp_path, "wordcount.yaml")
    assert object_problems(objects) == []
    find(objects, "Role", "b-worker")["rules"].append(
        {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}
    )
    found = object_problems(objects)
    assert [p.path for p in found] == ["Role/b-worker"], found
