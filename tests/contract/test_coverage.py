"""Every case renders, and the list of known-broken requirements has no stale entry."""

from __future__ import annotations

import pytest

from tests.contract.cases import all_cases, case
from tests.contract.helpers import KNOWN_BROKEN, REQUIREMENTS


@pytest.mark.parametrize(
    "name",
    [
        c.name
        for c in all_cases()
        if not c.name.startswith("golden/")
        and not any(g.scalable for g in c.groups)
        and c.job_master
    ],
)
def test_case_renders(name: str) -> None:
    """Every example, imported configuration and contract job renders (so the tests above see it).

    Except the jobs meant to be refused: a job master in the client
    (:mod:`tests.contract.test_runs`).
    """
    c = case(name)
    assert not c.error and c.of_kind("StatefulSet"), c.error


def test_known_broken_names_real_cases() -> None:
    """Every entry of KNOWN_BROKEN names a requirement and cases that exist (no stale entries)."""
    from tests.contract import (  # noqa: F401  (their cases_for calls fill REQUIREMENTS)
        test_env,
        test_lifecycle,
        test_objects,
        test_pods,
        test_rbac,
        test_resources,
        test_runs,
        test_users,
    )

    assert set(KNOWN_BROKEN) <= REQUIREMENTS, sorted(set(KNOWN_BROKEN) - REQUIREMENTS)
    names = {c.name for c in all_cases()}
    for requirement, broken in KNOWN_BROKEN.items():
        listed = broken.only | (broken.all_but or frozenset())
        assert listed <= names, (requirement, sorted(listed - names))
