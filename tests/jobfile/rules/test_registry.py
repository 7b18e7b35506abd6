"""Tests of the job-file rule registry.

The job files each rule refuses (and those it must accept) are input cases in
``tests/cases/<name>/``, run by tests/suites/test_cases.py through ``t2gen validate``
and ``t2gen render``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from t2gen.errors import Problem, Warning_
from t2gen.inputs.jobfile import parse_job
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules import (
    REGISTRY,
    Rule,
    _base,
    rule_problems,
    rule_warnings,
    run_rules,
)
from t2gen.jobfile.rules._base import rule
from t2gen.jobfile.schema import apply_defaults
from tests.helpers import job_text


def test_every_rule_has_a_unique_kebab_case_id_and_a_docstring() -> None:
    rules = list(REGISTRY.values())
    assert len({r.id for r in rules}) == len({r.check for r in rules}) == len(rules)
    for registered in rules:
        assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", registered.id)
        assert registered.title.endswith("."), registered.id
        assert len(registered.doc.splitlines()) > 2, f"{registered.id}: say why"
        assert registered.fields, registered.id


def test_a_rule_needs_a_unique_kebab_case_id_and_a_docstring() -> None:
    def documented(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
        """A rule."""
        yield from ()

    def undocumented(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
        yield from ()

    taken = rule("workers-divisible", fields=("spec",))(documented)
    with pytest.raises(ValueError, match="registered twice"):
        _base.registry([tuple(REGISTRY.values()), (taken,)])
    with pytest.raises(ValueError, match="no docstring"):
        rule("a-new-rule", fields=("spec",))(undocumented)
    with pytest.raises(ValueError, match="kebab-case"):
        rule("Not_Kebab", fields=("spec",))(documented)


def test_warnings_leave_apart_from_problems(monkeypatch: pytest.MonkeyPatch) -> None:
    def warn(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
        """Always warns."""
        yield Warning_(doc.path, 1, 1, "just so you know", "spec")

    monkeypatch.setitem(REGISTRY, "always-warns", Rule("always-warns", warn, ("spec",)))
    text = job_text("workers:\n  - count: 10\n    perPod: 3\n")
    doc = parse_job(text, path="job.yaml")
    data = apply_defaults(doc.data)
    found = run_rules(data, doc)
    assert [p.json_path for p in found.problems] == ["spec.workers[0].count"]
    assert found.warnings == [Warning_("job.yaml", 1, 1, "just so you know", "spec")]
    assert rule_problems(data, doc) == found.problems
    assert rule_warnings(data, doc) == found.warnings


def test_a_rule_with_options_reads_the_kube_version_others_do_not() -> None:
    from t2gen.jobfile.rules import RuleOptions

    doc = parse_job(
        job_text("workers:\n  - count: 2\nscheduling:\n  gang: kubernetes\n"),
        path="job.yaml",
    )
    data = apply_defaults(doc.data)
    assert REGISTRY["workload-api-version"].options == ("--kube-version",)
    assert run_rules(data, doc).problems == []  # the default, 1.37, has the API
    assert run_rules(data, doc, RuleOptions(kube_version=(1, 35))).problems == []
    (found,) = run_rules(data, doc, RuleOptions(kube_version=(1, 34))).problems
    assert found.json_path == "spec.scheduling.gang"
    assert "which Kubernetes 1.34 does not have" in found.message


def test_integers_left_between_gt_and_lt_minus_not_in() -> None:
    from t2gen.jobfile.rules._nodeaffinity import integers_left

    assert integers_left(10, 14, {"11", "13"}) == ([12], [11, 13])
    # 11 can be written with up to 63 characters: 11, 011, 0011, ...
    every_form = {"0" * zeros + "11" for zeros in range(62)}
    assert integers_left(10, 12, every_form) == ([], [])
    assert integers_left(-1, 3, set()) == ([0, 1, 2], [])
    assert integers_left(0, 5000, {"1"}) is None  # too many integers to try


def test_not_in_every_form_of_the_one_integer_left_is_an_error() -> None:
    forms = ", ".join(f'"{"0" * zeros}11"' for zeros in range(62))
    doc = parse_job(
        job_text(
            "workers:\n  - count: 1\nplacement:\n  nodeAffinity:\n    required:\n"
            '      - {key: rack, operator: Gt, values: ["10"]}\n'
            f"      - {{key: rack, operator: NotIn, values: [{forms}]}}\n"
            '      - {key: rack, operator: Lt, values: ["12"]}\n'
        ),
        path="job.yaml",
    )
    found = run_rules(apply_defaults(doc.data), doc)
    assert found.warnings == []
    (error,) = found.problems
    assert "NotIn excludes every one; no node can run the workers" in error.message


def test_quantity_max_length_is_the_schema_s() -> None:
    """The rules skip exactly the quantity strings the schema refuses as too long."""
    import json

    from t2gen.jobfile.rules._base import QUANTITY_MAX_LENGTH
    from t2gen.resources import schema_path

    defs = json.loads(Path(schema_path()).read_text(encoding="utf-8"))["$defs"]
    for name in ("quantity", "cpu", "memory"):
        if name in defs:
            assert defs[name]["maxLength"] == QUANTITY_MAX_LENGTH, name
