"""The contract on RBAC: every API call the runtime makes from a pod is allowed to that pod.

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

# --------------------------------------------------------------------- RBAC


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
