"""Shared by the runtime contract's tests: the cases known to break a requirement, and readers of objects.

See :mod:`tests.contract` for what the contract is.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest

from tests.contract import runtime as t2
from tests.contract.cases import Case, quantity, rendered

REQUIREMENTS: set[str] = set()
"""Every requirement id a test passed to :func:`cases_for`."""

Container = dict[str, Any]


@dataclass(frozen=True)
class Broken:
    """A requirement t2gen breaks today: in the cases ``only``, or in every case but ``all_but``."""

    reason: str
    only: frozenset[str] = frozenset()
    all_but: frozenset[str] | None = None

    def breaks(self, name: str) -> bool:
        """Whether case ``name`` is known to break the requirement."""
        return name in self.only or (
            self.all_but is not None and name not in self.all_but
        )


# Requirements t2gen breaks today, and where. Each such case is a strict xfail: when
# a change fixes one, the suite fails until the entry here is narrowed or removed.
KNOWN_BROKEN: dict[str, Broken] = {}


def cases_for(requirement: str, names: list[str] | None = None) -> list[Any]:
    """``names`` (default: every rendered case) as parameters, the broken ones strict xfail."""
    REQUIREMENTS.add(requirement)
    broken = KNOWN_BROKEN.get(requirement, Broken(""))
    return [
        pytest.param(
            name,
            id=name,
            marks=[pytest.mark.xfail(strict=True, reason=broken.reason)]
            if broken.breaks(name)
            else [],
        )
        for name in (rendered() if names is None else names)
    ]


def containers_of(spec: dict[str, Any]) -> list[Container]:
    return list(spec.get("containers") or [])


def env_of(container: Container) -> dict[str, dict[str, Any]]:
    return {entry["name"]: entry for entry in container.get("env") or []}


def env_value(container: Container, name: str) -> str | None:
    entry = env_of(container).get(name)
    return None if entry is None else entry.get("value")


def twister2_containers(c: Case) -> Iterator[tuple[str, str, Container]]:
    """Every container that runs a Twister2 script: (role, pod name, container)."""
    for statefulset, pod, spec in c.pods():
        role = (
            "job-master"
            if statefulset["metadata"]["name"] == f"{c.job}-jm"
            else "worker"
        )
        for container in containers_of(spec):
            yield role, pod, container


def pod_label_sets(c: Case) -> Iterator[tuple[str, str, dict[str, str]]]:
    for statefulset in c.of_kind("StatefulSet"):
        name = statefulset["metadata"]["name"]
        role = "job-master" if name == f"{c.job}-jm" else "worker"
        labels = statefulset["spec"]["template"]["metadata"].get("labels") or {}
        yield role, name, labels


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector.items())


def mib(value: Any) -> Decimal:
    return quantity(value) / 2**20


def mounts_of(container: Container) -> dict[str, str]:
    return {m["name"]: m["mountPath"] for m in container.get("volumeMounts") or []}


def volumes_of(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {v["name"]: v for v in spec.get("volumes") or []}


def compute_resources(c: Case) -> list[t2.ComputeResource]:
    """The compute resources as the job object the runtime reads describes them: one per worker StatefulSet."""
    return [
        t2.ComputeResource(
            index=t2.index_from_name(s["metadata"]["name"]),
            instances=int(s["spec"].get("replicas", 1)),
            workers_per_pod=c.groups[i].per_pod,
        )
        for i, s in enumerate(c.worker_statefulsets)
    ]


def declared_ports(container: Container) -> list[int]:
    return [int(port["containerPort"]) for port in container.get("ports") or []]


def resources_of(container: Container) -> tuple[dict[str, Any], dict[str, Any]]:
    resources = container.get("resources") or {}
    return dict(resources.get("requests") or {}), dict(resources.get("limits") or {})


def memory_of(container: Container) -> Decimal | None:
    """The container's memory limit in MiB (its request when it has no limit)."""
    requests, limits = resources_of(container)
    value = limits.get("memory", requests.get("memory"))
    return None if value is None else mib(value)


def facts(c: Case) -> t2.Facts:
    """What the runtime's API calls depend on, for a case."""
    return t2.Facts(
        job=c.job,
        job_master=c.job_master,
        mpi=c.mpi,
        worker_statefulsets=tuple(s["metadata"]["name"] for s in c.worker_statefulsets),
        scalable=any(g.scalable for g in c.groups),
    )


def service_account_of(spec: dict[str, Any]) -> str:
    return str(
        spec.get("serviceAccountName") or spec.get("serviceAccount") or "default"
    )


def granted_rules(c: Case, account: str) -> list[dict[str, Any]] | None:
    """The Role rules the output binds to ServiceAccount ``account``; None when the output has no RBAC."""
    if not c.of_kind("RoleBinding"):
        return None
    roles = {role["metadata"]["name"]: role for role in c.of_kind("Role")}
    rules: list[dict[str, Any]] = []
    for binding in c.of_kind("RoleBinding"):
        if not any(
            s.get("kind") == "ServiceAccount" and s.get("name") == account
            for s in binding.get("subjects") or []
        ):
            continue
        role = roles.get(binding["roleRef"]["name"])
        if role is not None and binding["roleRef"].get("kind") == "Role":
            rules += role.get("rules") or []
    return rules


def allows(
    rules: list[dict[str, Any]], group: str, resource: str, verb: str, name: str | None
) -> bool:
    """Whether RBAC ``rules`` allow a request; ``name`` None for a collection (list, watch).

    https://kubernetes.io/docs/reference/access-authn-authz/rbac/#referring-to-resources:
    a rule with ``resourceNames`` never allows a collection request.
    """
    for rule in rules:
        names = rule.get("resourceNames") or []
        if (
            {group, "*"} & set(rule.get("apiGroups") or [])
            and {resource, "*"} & set(rule.get("resources") or [])
            and {verb, "*"} & set(rule.get("verbs") or [])
            and (not names if name is None else (not names or name in names))
        ):
            return True
    return False


def role_accounts(c: Case) -> dict[str, set[str]]:
    accounts: dict[str, set[str]] = {"worker": set(), "job-master": set()}
    for statefulset in c.of_kind("StatefulSet"):
        role = (
            "job-master"
            if statefulset["metadata"]["name"] == f"{c.job}-jm"
            else "worker"
        )
        accounts[role].add(service_account_of(statefulset["spec"]["template"]["spec"]))
    return accounts
