"""The Roles t2gen renders, asked of the real authorizer (issue 40, item 3): every call allowed, every other refused.

For each role (the workers', the job master's, the supervisor's) the objects
t2gen renders are applied to a namespace and the API server's RBAC authorizer
is asked, by SubjectAccessReview as the role's ServiceAccount (what ``kubectl
auth can-i --as=system:serviceaccount:NS:NAME`` asks), about:

- every call the role's code makes: the Twister2 runtime's from
  :data:`tests.contract.runtime.API_CALLS` (with their Twister2 sources), the
  supervisor's from :func:`tests.lifecycle.calls.supervisor_calls` (read from
  its script): each must be allowed;
- every call another role makes that this one does not, the same calls on
  another object's name, and calls no role needs (Secrets, pods/exec, pod
  creation, RBAC changes, tokens): each must be refused.

Jobs: ``examples/supervised.yaml`` (all three roles), ``examples/openmpi.yaml``
(OpenMPI: the rank pod's watch, no scaling) and the contract's
``jobs/scalable-last.yaml`` (the scaler's calls).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest

from tests.contract import runtime as t2
from tests.contract.cases import case
from tests.contract.helpers import facts
from tests.kubeapi.controlplane import ControlPlane
from tests.kubeapi.kubelet import until
from tests.lifecycle.calls import supervisor_calls, supervisor_env

CASES = ["example/supervised", "example/openmpi", "job/scalable-last"]


class Ask(NamedTuple):
    """One question to the authorizer: may ``role`` make this call? ``expected``: it should."""

    role: str
    verb: str
    group: str
    resource: str
    name: str | None
    expected: bool
    why: str


NEEDED_BY_NONE = [
    ("get", "", "secrets", None),
    ("list", "", "secrets", None),
    ("create", "", "pods", None),
    ("create", "", "pods/exec", "{job}-jm-0"),
    ("create", "", "serviceaccounts/token", "{job}-worker"),
    ("create", "rbac.authorization.k8s.io", "rolebindings", None),
    ("patch", "rbac.authorization.k8s.io", "roles", "{job}-worker"),
    ("update", "", "configmaps", "{job}"),
    ("deletecollection", "", "pods", None),
    ("create", "apps", "statefulsets", None),
    ("patch", "apps", "statefulsets", "{job}-0"),
]
"""Calls no role of a job needs: reading Secrets, running code in pods, granting rights."""


def _calls(c: Any) -> dict[str, list[tuple[str, str, str, str | None, str]]]:
    """Each role's calls ``(verb, group, resource, name, why)`` for a case."""
    f = facts(c)
    found: dict[str, list[tuple[str, str, str, str | None, str]]] = {
        "worker": [],
        "job-master": [],
    }
    for call in t2.API_CALLS:
        if call.possible(f):
            for name in call.names(f) if call.names else (None,):
                found[call.role].append(
                    (call.verb, call.group, call.resource, name, call.source)
                )
    if any(o["kind"] == "Job" for o in c.objects):
        found["supervisor"] = [
            (s.verb, s.group, s.resource, s.name, f"supervise.sh: {s.what}")
            for s in supervisor_calls(supervisor_env(c.objects))
        ]
    # one question per call: two sources may make the same one (a watch of pods)
    return {
        role: list({call[:4]: call for call in reversed(calls)}.values())[::-1]
        for role, calls in found.items()
    }


def questions(c: Any) -> list[Ask]:
    """Every question for every role of a case."""
    calls = _calls(c)
    asks = []
    for role, own in calls.items():
        mine = {call[:4] for call in own}
        asks += [Ask(role, *call[:4], True, call[4]) for call in own]
        others = {
            call[:4]: call[4] for r, cs in calls.items() if r != role for call in cs
        }
        for call, source in sorted(others.items(), key=str):
            if call not in mine and (call[3] is None or (*call[:3], None) not in mine):
                asks.append(Ask(role, *call, False, f"another role's call ({source})"))
        for verb, group, resource, name in sorted(
            {call[:4] for call in own if call[3]}
        ):
            if (verb, group, resource, None) not in mine:
                asks.append(
                    Ask(
                        role,
                        verb,
                        group,
                        resource,
                        f"{name}-other",
                        False,
                        "the same call on an object not the job's",
                    )
                )
        for verb, group, resource, name in NEEDED_BY_NONE:
            asks.append(
                Ask(
                    role,
                    verb,
                    group,
                    resource,
                    name and name.format(job=c.job),
                    False,
                    "no role needs it",
                )
            )
    return asks


def _account(c: Any, role: str) -> str:
    return {
        "worker": f"{c.job}-worker",
        "job-master": f"{c.job}-jm",
        "supervisor": f"{c.job}-supervisor",
    }[role]


def _review(cluster: ControlPlane, namespace: str, account: str, ask: Ask) -> bool:
    resource, _, subresource = ask.resource.partition("/")
    attributes: dict[str, Any] = {
        "namespace": namespace,
        "verb": ask.verb,
        "group": ask.group,
        "resource": resource,
        "subresource": subresource,
    }
    if ask.name:
        attributes["name"] = ask.name
    answer = cluster.admin.request(
        "POST",
        "/apis/authorization.k8s.io/v1/subjectaccessreviews",
        {
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SubjectAccessReview",
            "spec": {
                "user": f"system:serviceaccount:{namespace}:{account}",
                "groups": [
                    "system:serviceaccounts",
                    f"system:serviceaccounts:{namespace}",
                    "system:authenticated",
                ],
                "resourceAttributes": attributes,
            },
        },
    )
    return bool(answer["status"].get("allowed"))


def _apply_rbac(cluster: ControlPlane, c: Any, namespace: str) -> None:
    for obj in c.objects:
        if obj["kind"] not in ("ServiceAccount", "Role", "RoleBinding"):
            continue
        moved = {**obj, "metadata": {**obj["metadata"], "namespace": namespace}}
        if obj["kind"] == "RoleBinding":
            moved["subjects"] = [{**s, "namespace": namespace} for s in obj["subjects"]]
        plural = {
            "ServiceAccount": "/api/v1",
            "Role": "/apis/rbac.authorization.k8s.io/v1",
            "RoleBinding": "/apis/rbac.authorization.k8s.io/v1",
        }[obj["kind"]]
        cluster.admin.request(
            "POST", f"{plural}/namespaces/{namespace}/{obj['kind'].lower()}s", moved
        )
    _wait_for_the_authorizer(cluster, namespace)


SENTINEL = "rbac-sentinel"


def _wait_for_the_authorizer(cluster: ControlPlane, namespace: str) -> None:
    """Wait until the RBAC authorizer has seen every Role and RoleBinding just created.

    The authorizer answers from informer caches, which see a new object a moment
    after its create returns (a SubjectAccessReview asked at once under load was
    refused a call the Role grants). Each cache receives its kind's objects in the
    order they were written, so a Role and a RoleBinding created after the job's
    (granting a ServiceAccount of no role one ``get``) are allowed only once the
    caches hold the job's too: the test waits for that event, then asks.
    """
    rbac = f"/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}"
    cluster.admin.request(
        "POST",
        f"{rbac}/roles",
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": SENTINEL},
            "rules": [
                {
                    "apiGroups": [""],
                    "resources": ["configmaps"],
                    "resourceNames": [SENTINEL],
                    "verbs": ["get"],
                }
            ],
        },
    )
    cluster.admin.request(
        "POST",
        f"{rbac}/rolebindings",
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": SENTINEL},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "Role",
                "name": SENTINEL,
            },
            "subjects": [
                {"kind": "ServiceAccount", "name": SENTINEL, "namespace": namespace}
            ],
        },
    )
    ask = Ask("sentinel", "get", "", "configmaps", SENTINEL, True, "the sentinel")
    until(
        lambda: _review(cluster, namespace, SENTINEL, ask),
        "the RBAC authorizer to see the Roles and RoleBindings just created",
    )


@pytest.mark.parametrize("name", CASES)
def test_every_role_allows_its_calls_and_refuses_the_rest(
    cluster: ControlPlane, namespace: str, name: str
) -> None:
    c = case(name)
    _apply_rbac(cluster, c, namespace)
    wrong, table = [], []
    for ask in questions(c):
        allowed = _review(cluster, namespace, _account(c, ask.role), ask)
        table.append(
            f"{ask.role:10} {ask.verb:16} {(ask.group + '/' if ask.group else '') + ask.resource:34} {ask.name or '(all)':34} {'allowed' if allowed else 'refused'}"
        )
        if allowed != ask.expected:
            wrong.append(
                f"{ask}: the API server says {'allowed' if allowed else 'refused'}"
            )
    print(f"\n{name}:\n" + "\n".join(table))
    assert not wrong, "\n".join(wrong)


def test_kubectl_auth_can_i_agrees(cluster: ControlPlane, namespace: str) -> None:
    """``kubectl auth can-i --as=system:serviceaccount:NS:NAME`` gives the SubjectAccessReview's answers."""
    c = case("example/supervised")
    _apply_rbac(cluster, c, namespace)
    for account, verb, target, expected in [
        (f"{c.job}-worker", "patch", f"configmaps/{c.job}", "yes"),
        (f"{c.job}-worker", "delete", f"statefulsets.apps/{c.job}-0", "no"),
        (f"{c.job}-jm", "delete", f"statefulsets.apps/{c.job}-0", "yes"),
        (f"{c.job}-jm", "get", "secrets", "no"),
        (f"{c.job}-supervisor", "watch", f"configmaps/{c.job}", "yes"),
        (f"{c.job}-supervisor", "list", "configmaps", "no"),
    ]:
        result = cluster.kubectl(
            "auth",
            "can-i",
            verb,
            target,
            "-n",
            namespace,
            f"--as=system:serviceaccount:{namespace}:{account}",
            check=False,
        )
        assert result.stdout.strip() == expected, (
            account,
            verb,
            target,
            result.stdout,
            result.stderr,
        )
