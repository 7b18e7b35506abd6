"""Every registry registers one way, and nothing written is left out of it (issue 29).

The gang mechanisms (:data:`t2gen.gangs.REGISTRY`), the job-file rules
(:data:`t2gen.jobfile.rules.REGISTRY`, built from each rule module's ``RULES``)
and the output checks (:data:`t2gen.checks.CHECKS_BY_KIND` and the pod tables of
:mod:`t2gen.checks.pods`) are explicit tables; ``@rule`` and ``@check`` only
describe. These tests find every rule, check and mechanism the packages define
and fail for one that no table lists, or that the command running the table
never reaches.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

import t2gen.checks
import t2gen.gangs
import t2gen.jobfile.rules
from t2gen import checks
from t2gen.checks import pods
from t2gen.checks.base import Check
from t2gen.checks.stream import WORKLOAD_KINDS
from t2gen.gangs import REGISTRY as GANGS
from t2gen.inputs.jobfile import read_job
from t2gen.jobfile.rules import REGISTRY as RULES
from t2gen.jobfile.rules import Rule, _plan
from t2gen.pipeline.load import validate
from tests.conftest import ROOT


def _modules(package: ModuleType) -> Iterator[ModuleType]:
    for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        yield importlib.import_module(info.name)


def _defined(module: ModuleType, kind: type[Any]) -> Iterator[tuple[str, Any]]:
    """Every ``kind`` a module holds: a module-level name, or an item of a module-level tuple."""
    for name, value in vars(module).items():
        if isinstance(value, kind):
            yield f"{module.__name__}.{name}", value
        elif isinstance(value, tuple):
            for index, item in enumerate(value):
                if isinstance(item, kind):
                    yield f"{module.__name__}.{name}[{index}]", item


def _unlisted(package: ModuleType, kind: type[Any], listed: list[Any]) -> set[str]:
    return {
        where
        for module in _modules(package)
        for where, found in _defined(module, kind)
        if not any(found is item for item in listed)
    }


def _run_checks() -> list[Check]:
    """What :func:`t2gen.checks.object_problems` runs: by kind, and in every pod."""
    by_kind = [c for kind in checks.CHECKS_BY_KIND for c in checks.checks_for(kind)]
    return [*checks.GENERIC_CHECKS, *by_kind, *pods.CONTAINER_CHECKS, *pods.POD_CHECKS]


def test_every_rule_written_is_registered() -> None:
    assert len(RULES) > 50  # the walk found the rules
    assert _unlisted(t2gen.jobfile.rules, Rule, list(RULES.values())) == set()


def test_every_check_written_is_run() -> None:
    run = _run_checks()
    assert len({c.id for c in run}) > 30  # the walk found the checks
    assert _unlisted(t2gen.checks, Check, run) == set()
    assert {c.id for c in checks.ALL_CHECKS} == {c.id for c in run}


def test_the_pod_checks_are_reached_from_a_kind() -> None:
    """The pod and container tables run inside a workload check of every pod-bearing kind."""
    for kind in sorted(WORKLOAD_KINDS):
        assert any(c.reads == "checks" for c in checks.checks_for(kind)), kind


def test_every_gang_mechanism_written_is_registered() -> None:
    mechanisms = {
        module.__name__
        for module in _modules(t2gen.gangs)
        if hasattr(module, "NAME") and hasattr(module, "INSTALL_ORDER")
    }
    assert mechanisms == {gang.__name__ for gang in GANGS.values()}  # type: ignore[attr-defined]
    for gang in GANGS.values():
        assert {r.id for r in gang.RULES} <= set(RULES)
        run = {c.id for c in _run_checks()}
        assert {c.id for c in (*gang.GROUP_CHECKS, *gang.WORKLOAD_CHECKS)} <= run


def test_validate_runs_every_registered_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """``t2gen validate`` reaches every rule of the registry (a rule listed nowhere it runs would not be)."""
    called: set[str] = set()

    def spy(listed: Rule) -> Rule:
        def check(*args: Any) -> Any:
            called.add(listed.id)
            return listed.check(*args)

        return Rule(listed.id, check, listed.fields, listed.options)

    for rule_id, listed in list(RULES.items()):
        monkeypatch.setitem(RULES, rule_id, spy(listed))
    path = str(ROOT / "examples/wordcount.yaml")
    monkeypatch.setenv("T2GEN_NO_UNWRITTEN_RULES", "1")
    validate(read_job(path))
    assert called == set(RULES)
    # by default, the rules of the fields wordcount writes (tests/jobfile/rules/test_written.py)
    called.clear()
    monkeypatch.delenv("T2GEN_NO_UNWRITTEN_RULES")
    validate(read_job(path))
    assert called == set(_plan().rules_for(read_job(path).data))
    assert 10 < len(called) < len(RULES)


def test_an_unlisted_rule_or_check_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk above would catch a decorated rule or check left out of its table."""
    from t2gen.checks import storage
    from t2gen.checks.base import check
    from t2gen.jobfile.rules import workers
    from t2gen.jobfile.rules._base import rule

    def forgotten(*_: Any) -> Iterator[Any]:
        """Never listed."""
        yield from ()

    monkeypatch.setattr(
        workers,
        "forgotten_rule",
        rule("forgotten", fields=("spec",))(forgotten),
        raising=False,
    )
    monkeypatch.setattr(
        storage, "forgotten_check", check("forgotten")(forgotten), raising=False
    )
    assert _unlisted(t2gen.jobfile.rules, Rule, list(RULES.values())) == {
        "t2gen.jobfile.rules.workers.forgotten_rule"
    }
    assert _unlisted(t2gen.checks, Check, _run_checks()) == {
        "t2gen.checks.storage.forgotten_check"
    }
