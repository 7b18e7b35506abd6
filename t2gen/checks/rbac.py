"""Checks of RBAC objects: a RoleBinding's references."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.checks.base import Check, Finding, as_dict, as_list, check
from t2gen.checks.stream import Stream, namespace_of

__all__ = ["ROLE_BINDING_CHECKS"]


@check("rolebinding-role-ref", reads="stream")
def rolebinding_role_ref(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """A RoleBinding's ``roleRef`` names a Role of the stream, when the stream has Roles of that kind.

    A binding to a missing Role grants nothing, silently. Only checked when
    objects of the ``roleRef`` kind are in the stream (else the Role may exist
    in the cluster). Source: https://kubernetes.io/docs/reference/access-authn-authz/rbac/#rolebinding-and-clusterrolebinding
    """
    role_ref = as_dict(obj.get("roleRef"))
    roles = stream.names(namespace_of(obj), role_ref.get("kind"))
    if roles and role_ref.get("name") not in roles:
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
            and subject.get("name") not in accounts
        ):
            yield (
                f"subjects[{index}].name",
                f"no ServiceAccount named {subject.get('name')!r} in the output",
            )


ROLE_BINDING_CHECKS: tuple[Check, ...] = (rolebinding_role_ref, rolebinding_subjects)
"""Checks of RoleBindings, in order."""
