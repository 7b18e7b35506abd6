"""Checks of RBAC objects: a RoleBinding's references, and the rights of Twister2 pods' Roles."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.checks.base import (
    WORKER_POD_LABEL,
    Check,
    Finding,
    as_dict,
    as_list,
    check,
    hashable,
)
from t2gen.checks.stream import Stream, namespace_of
from t2gen.twister2.names import JOB_MASTER_POD_LABEL

__all__ = ["ROLE_BINDING_CHECKS", "ROLE_CHECKS"]


def _named(name: Any, names: set[Any]) -> bool:
    """Whether ``name`` is one of ``names``; a name YAML made a list never is."""
    return hashable(name) and name in names


@check("rolebinding-role-ref", reads="stream")
def rolebinding_role_ref(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """A RoleBinding's ``roleRef`` names a Role of the stream, when the stream has Roles of that kind.

    A binding to a missing Role grants nothing, silently. Only checked when
    objects of the ``roleRef`` kind are in the stream (else the Role may exist
    in the cluster). Source: https://kubernetes.io/docs/reference/access-authn-authz/rbac/#rolebinding-and-clusterrolebinding
    """
    role_ref = as_dict(obj.get("roleRef"))
    roles = stream.names(namespace_of(obj), role_ref.get("kind"))
    if roles and not _named(role_ref.get("name"), roles):
        yield (
            "roleRef.name",
            f"no {role_ref.get('kind')} named {role_ref.get('name')!r} in the output",
        )


@check("rolebinding-subjects", reads="stream")
def rolebinding_subjects(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """A RoleBinding's ServiceAccount subjects are in the stream, when it has ServiceAccounts.

    t2gen binds the job's Role to the job's own ServiceAccount only (docs/reference.md,
    "Where t2gen differs from the Twister2 launcher"); a misspelt subject would
    leave the pods without the permissions the Twister2 runtime needs. Source:
    https://kubernetes.io/docs/reference/access-authn-authz/rbac/#referring-to-subjects
    """
    accounts = stream.names(namespace_of(obj), "ServiceAccount")
    for index, subject in enumerate(as_list(obj.get("subjects"))):
        subject = as_dict(subject)
        if (
            subject.get("kind") == "ServiceAccount"
            and accounts
            and not _named(subject.get("name"), accounts)
        ):
            yield (
                f"subjects[{index}].name",
                f"no ServiceAccount named {subject.get('name')!r} in the output",
            )


ROLE_BINDING_CHECKS: tuple[Check, ...] = (rolebinding_role_ref, rolebinding_subjects)
"""Checks of RoleBindings, in order."""


# What the Twister2 runtime calls from each role's pods, by (apiGroup, resource):
# the verbs it uses, and whether they must be limited to named objects. Sources:
# DSC-SPIDAL/twister2 ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``
# (``K8S/``); t2gen/render/context/rbac.py and docs/runtime-contract.md list each call.
_READS = frozenset({"get", "list", "watch"})
_WORKER_WRITES: dict[tuple[str, str], frozenset[str]] = {
    # restart counts: K8S/worker/K8sWorkerUtils.java:356-383
    ("", "configmaps"): frozenset({"patch"}),
}
_WORKER_READS = frozenset({("", "pods"), ("", "configmaps")})
_JOB_MASTER_WRITES: dict[tuple[str, str], frozenset[str]] = {
    # K8S/master/JobTerminator.java:36-88, K8S/driver/K8sScaler.java:76-148
    ("", "configmaps"): frozenset({"patch", "delete"}),
    ("", "services"): frozenset({"delete"}),
    ("", "persistentvolumeclaims"): frozenset({"delete"}),
    ("apps", "statefulsets"): frozenset({"delete"}),
    ("apps", "statefulsets/scale"): frozenset({"patch"}),
}


def _accounts_running(stream: Stream, namespace: str, label: str) -> set[str]:
    """ServiceAccounts of the stream's pod templates in ``namespace`` that carry ``label``.

    Once per stream, namespace and label: every Role of a batch of jobs asks the same.
    """
    return stream.memo(
        ("accounts-running", namespace, label),
        lambda: _find_accounts_running(stream, namespace, label),
    )


def _find_accounts_running(stream: Stream, namespace: str, label: str) -> set[str]:
    accounts: set[str] = set()
    for workload, labels in stream.templates_in(namespace):
        if label not in labels:
            continue
        spec = as_dict(
            as_dict(as_dict(workload.get("spec")).get("template")).get("spec")
        )
        account = spec.get("serviceAccountName") or spec.get("serviceAccount")
        accounts.add(account if isinstance(account, str) else "default")
    return accounts


def _bound_accounts(role: dict[str, Any], stream: Stream) -> set[str]:
    """The ServiceAccounts of ``role``'s namespace that the stream's RoleBindings bind it to.

    Once per stream, namespace and Role name: Roles of one name (a stream that
    repeats one) would otherwise each read all of that name's bindings.
    """
    namespace = namespace_of(role)
    name = as_dict(role.get("metadata")).get("name")
    if not isinstance(name, str):
        return set()
    return stream.memo(
        ("bound-accounts", namespace, name),
        lambda: _find_bound_accounts(stream, namespace, name),
    )


def _find_bound_accounts(stream: Stream, namespace: str, name: str) -> set[str]:
    accounts: set[str] = set()
    for binding in stream.role_bindings(namespace, "Role", name):
        for subject in as_list(binding.get("subjects")):
            subject = as_dict(subject)
            account = subject.get("name")
            if (
                subject.get("kind") == "ServiceAccount"
                and isinstance(account, str)
                and subject.get("namespace", namespace) in (namespace, "")
            ):
                accounts.add(account)
    return accounts


def _excess(
    rule: dict[str, Any],
    reads: frozenset[tuple[str, str]] | None,
    writes: dict[tuple[str, str], frozenset[str]],
) -> Iterator[str]:
    """What ``rule`` grants beyond ``reads`` (None: any read) and ``writes`` (named objects only)."""
    named = bool(as_list(rule.get("resourceNames")))
    resources = [r for r in as_list(rule.get("resources")) if hashable(r)]
    verbs = [v for v in as_list(rule.get("verbs")) if hashable(v)]
    for group in as_list(rule.get("apiGroups")):
        if not hashable(group):
            continue  # not strings: the OpenAPI check reports them
        for resource in resources:
            key = (group, resource)
            for verb in verbs:
                if "*" in (group, resource, verb):
                    yield f"'*' in {group or 'core'}/{resource} {verb}"
                elif verb in _READS:
                    if resource == "secrets" or (
                        reads is not None and key not in reads
                    ):
                        yield f"{verb} {resource}"
                elif verb not in writes.get(key, frozenset()):
                    yield f"{verb} {resource}"
                elif not named:
                    yield f"{verb} of every {resource} (no resourceNames)"


def _rule_excess(
    rule: dict[str, Any],
    reads: frozenset[tuple[str, str]] | None,
    writes: dict[tuple[str, str], frozenset[str]],
) -> tuple[str, ...]:
    """:func:`_excess` of ``rule``, remembered for rules of strings: every job's Roles repeat a few.

    It reads the groups, resources and verbs, and whether ``resourceNames`` has
    any (not which: they name each job's objects); ``reads`` and ``writes`` are
    this module's constants, told apart by identity (each entry holds them, so
    an id is never that of another table).
    """
    groups = tuple(as_list(rule.get("apiGroups")))
    resources = tuple(as_list(rule.get("resources")))
    verbs = tuple(as_list(rule.get("verbs")))
    named = bool(as_list(rule.get("resourceNames")))
    key = (id(reads), id(writes), named, groups, resources, verbs)
    try:
        entry = _EXCESS.get(key)
    except TypeError:  # a list or a map among them: not remembered
        return tuple(_excess(rule, reads, writes))
    if entry is not None and entry[0] is reads and entry[1] is writes:
        return entry[2]
    known = tuple(_excess(rule, reads, writes))
    # only strings are kept (a string equals no other type: True == 1 == 1.0),
    # and only a short answer (a rule's answer grows with its groups x resources x verbs)
    if len(known) <= 8 and _STR.issuperset(map(type, (*groups, *resources, *verbs))):
        if len(_EXCESS) >= 1024:  # bounded, whatever the input
            _EXCESS.clear()
        _EXCESS[key] = (reads, writes, known)
    return known


_EXCESS: dict[tuple[Any, ...], tuple[Any, Any, tuple[str, ...]]] = {}
_STR = frozenset({str})


def _role_findings(
    role: dict[str, Any],
    stream: Stream,
    label: str,
    reads: frozenset[tuple[str, str]] | None,
    writes: dict[tuple[str, str], frozenset[str]],
    who: str,
) -> Iterator[Finding]:
    runs = _accounts_running(stream, namespace_of(role), label) & _bound_accounts(
        role, stream
    )
    if not runs:
        return
    for index, rule in enumerate(as_list(role.get("rules"))):
        excess = _rule_excess(as_dict(rule), reads, writes)
        if excess:
            yield (
                f"rules[{index}]",
                f"grants {', '.join(excess)} to {who} (ServiceAccount {', '.join(sorted(runs))}); "
                "grant only what the Twister2 runtime calls from those pods (docs/runtime-contract.md)",
            )


@check("rbac-worker-rights", reads="stream")
def role_worker_rights(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """A Role bound to the ServiceAccount of Twister2 worker pods grants only what workers call.

    Worker pods (label ``t2-wp``) run user code: a Role that lets them delete
    or scale StatefulSets, Services or claims hands that code the job master's
    rights. The Twister2 worker only watches pods (the job master's, and with
    OpenMPI the workers', ``K8S/PodWatchUtils.java:483-503,555-576``), lists
    ConfigMaps and patches its job's by name (restart counts,
    ``K8S/worker/K8sWorkerUtils.java:297-383``), in DSC-SPIDAL/twister2
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``.
    Allowed: get, list, watch of pods and ConfigMaps, and patch of ConfigMaps named in
    ``resourceNames``; not ``*``.
    """
    yield from _role_findings(
        obj,
        stream,
        WORKER_POD_LABEL,
        _WORKER_READS,
        _WORKER_WRITES,
        "Twister2 worker pods",
    )


@check("rbac-job-master-rights", reads="stream")
def role_job_master_rights(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """A Role bound to the ServiceAccount of a Twister2 job master changes only named objects it deletes or patches.

    The job master deletes its job's StatefulSets, Services, claim and
    ConfigMap at job end, patches the ConfigMap and scales the last worker
    StatefulSet (``K8S/master/JobTerminator.java:36-88``,
    ``K8S/driver/K8sScaler.java:76-148``): every one by name, so each write verb
    must be limited by ``resourceNames`` to this job's objects. Reads (get, list,
    watch) are allowed but of Secrets; ``*`` is not.
    """
    yield from _role_findings(
        obj,
        stream,
        JOB_MASTER_POD_LABEL,
        None,
        _JOB_MASTER_WRITES,
        "a Twister2 job master pod",
    )


ROLE_CHECKS: tuple[Check, ...] = (role_worker_rights, role_job_master_rights)
"""Checks of Roles, in order."""
