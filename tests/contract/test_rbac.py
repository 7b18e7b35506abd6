"""The contract on RBAC: every API call the runtime makes from a pod is allowed to that pod, and nothing more.

See :mod:`tests.contract` for what the contract is and where it comes from.
"""

from __future__ import annotations

import pytest

from tests.contract import runtime as t2
from tests.contract.cases import case
from tests.contract.helpers import (
    allows,
    cases_for,
    facts,
    granted_rules,
    role_accounts,
    service_account_of,
)


@pytest.mark.parametrize("name", cases_for("rbac-calls-allowed"))
def test_rbac_allows_every_runtime_call(name: str) -> None:
    """Each role's ServiceAccount may make every API call the runtime makes from that role's pods.

    :data:`tests.contract.runtime.API_CALLS` lists the calls with their source
    lines (e.g. workers: list and patch the ConfigMap, ``K8S/worker/K8sWorkerUtils.java:297-383``;
    job master: delete the job's objects, ``K8S/master/JobTerminator.java:36-88``).
    A 403 fails the worker's start or the job's termination.
    """
    c = case(name)
    f = facts(c)
    problems = []
    for role, accounts in role_accounts(c).items():
        for account in accounts:
            rules = granted_rules(c, account)
            if rules is None:
                pytest.skip(
                    "no RBAC objects in the output: the cluster's administrator grants them"
                )
            for call in t2.API_CALLS:
                if call.role != role or not call.is_needed(f):
                    continue
                for target in call.names(f) if call.names else (None,):
                    if not allows(rules, call.group, call.resource, call.verb, target):
                        problems.append(
                            f"{role} ({account}) may not {call.verb} {call.resource} {target or '(collection)'}: {call.what} [{call.source}]"
                        )
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", cases_for("service-account-token"))
def test_service_account_token_mounted(name: str) -> None:
    """Every pod has its ServiceAccount token: the runtime calls the API with in-cluster credentials.

    ``ClientBuilder.standard()`` (``K8S/KubernetesController.java:85-98``) reads
    the token Kubernetes mounts; ``automountServiceAccountToken: false`` on the
    pod, or on its account without the pod saying ``true``, leaves none
    (https://kubernetes.io/docs/tasks/configure-pod-container/configure-service-account/#opt-out-of-api-credential-automounting).
    """
    c = case(name)
    accounts = {sa["metadata"]["name"]: sa for sa in c.of_kind("ServiceAccount")}
    for statefulset in c.of_kind("StatefulSet"):
        spec = statefulset["spec"]["template"]["spec"]
        pod_setting = spec.get("automountServiceAccountToken")
        account = accounts.get(service_account_of(spec), {})
        assert pod_setting is not False, statefulset["metadata"]["name"]
        if pod_setting is None:
            assert account.get("automountServiceAccountToken") is not False, (
                statefulset["metadata"]["name"]
            )


def _justified(
    calls: list[t2.ApiCall],
    f: t2.Facts,
    group: str,
    resource: str,
    verb: str,
    name: str | None,
) -> bool:
    """Whether a possible call needs the grant: ``name`` None for a grant without resourceNames."""
    for call in calls:
        if (call.group, call.resource, call.verb) != (group, resource, verb):
            continue
        if name is None and call.names is None:
            return True
        if name is not None and call.names is not None and name in call.names(f):
            return True
    return False


@pytest.mark.parametrize("name", cases_for("rbac-least-privilege"))
def test_rbac_grants_nothing_more(name: str) -> None:
    """Each role's ServiceAccount holds only what the runtime may call from that role's pods (issue 23, item 8).

    Workers run user code, so they must not hold the job master's rights to
    delete and scale the job's StatefulSets, Services and claim: the worker
    pods and the job master's run as different ServiceAccounts, and every
    permission of each is used by a call of
    :data:`tests.contract.runtime.API_CALLS` for that role (for instance the
    worker's ``patch`` of ConfigMap ``<job>``, ``K8S/worker/K8sWorkerUtils.java:367-376``;
    the job master's ``delete`` of ``<job>-jm``, ``K8S/master/JobTerminator.java:74-77``).
    A grant without ``resourceNames`` must serve a list or watch.
    """
    c = case(name)
    f = facts(c)
    accounts = role_accounts(c)
    if granted_rules(c, "") is None:
        pytest.skip(
            "no RBAC objects in the output: the cluster's administrator grants them"
        )
    assert not accounts["worker"] & accounts["job-master"], (
        "workers share the job master's ServiceAccount"
    )
    problems = []
    for role, role_accounts_ in accounts.items():
        calls = [
            call for call in t2.API_CALLS if call.role == role and call.possible(f)
        ]
        for account in role_accounts_:
            for rule in granted_rules(c, account) or []:
                targets = rule.get("resourceNames") or [None]
                for group in rule.get("apiGroups") or []:
                    for resource in rule.get("resources") or []:
                        for verb in rule.get("verbs") or []:
                            for target in targets:
                                if not _justified(
                                    calls, f, group, resource, verb, target
                                ):
                                    problems.append(
                                        f"{role} ({account}): {verb} {group or 'core'}/{resource} {target or '(any)'}"
                                    )
    assert not problems, "permissions no runtime call of the role needs:\n" + "\n".join(
        problems
    )
