"""RBAC: which ServiceAccount the pods run as."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules._base import Rule, as_dict, problem, rule


@rule(
    "rbac-account-unused", fields=("spec.rbac.create", "spec.rbac.serviceAccountName")
)
def check_rbac(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``serviceAccountName`` is set only with ``create: false``.

    With ``create: true`` t2gen renders a ServiceAccount named after the job and
    runs the pods as it, so a ``serviceAccountName`` (an existing account) would
    be ignored. See docs/reference.md's "RBAC, side by side" section.
    """
    rbac = as_dict(as_dict(data.get("spec")).get("rbac"))
    if rbac.get("create") is True and "serviceAccountName" in rbac:
        yield problem(
            doc,
            ("spec", "rbac", "serviceAccountName"),
            "serviceAccountName is only used with create: false; t2gen names the account it creates "
            "after the job",
            key=True,
        )


RULES: tuple[Rule, ...] = (check_rbac,)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
