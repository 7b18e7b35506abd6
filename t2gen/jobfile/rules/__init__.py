"""Rules of a valid job that the JSON Schema cannot express, as a registry with stable IDs.

Each rule is a function in one module per concern (``workers``, ``quantities``,
``placement``, ``network``...), registered under a kebab-case ID such as
``workers-divisible`` (yamllint's model). The ID is what users and
documentation refer to: it says what the rule is about without a lookup table,
and it never changes once released (a rule that goes away retires its ID). The
rule's docstring is its documentation; ``docs/rules.md`` is generated from
:data:`REGISTRY` (``make docs``).

A rule reads the job document with the schema's defaults applied (and, if it
is registered with ``options=``, the :class:`RuleOptions` of the run: the
Kubernetes version rendered for) and yields findings: a :class:`~t2gen.errors.Problem` makes the job invalid; a
:class:`~t2gen.errors.Warning_` is reported but does not stop the render.
:func:`run_rules` returns both, apart; :func:`rule_problems` only the problems
and :func:`rule_warnings` only the warnings. How warnings are printed (stderr,
exit status 0) is the command line's business.

To add a rule: write a function in the module of its concern (or a new module,
listed in :data:`REGISTRY` below), decorate it with ``@rule("an-id", fields=(...))``,
list it in the module's ``RULES`` table, give it a
docstring whose first line says what must hold and whose body says why and
cites the source (Twister2 or Kubernetes, as a public file path or URL), then
run ``make docs``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from t2gen import fastpaths
from t2gen.errors import Problem, Warning_
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules import (
    checkpointing,
    env,
    image,
    isolation,
    job_master,
    jobclass,
    labels,
    lifecycle,
    logs,
    mpi,
    naming,
    network,
    package,
    package_source,
    placement,
    pod_security,
    quantities,
    rbac,
    resources,
    scaling,
    scheduling,
    separate_nodes,
    size,
    storage,
    text,
    volumes,
    workers,
)
from t2gen.jobfile.rules._base import Rule, RuleOptions, registry
from t2gen.jobfile.rules._written import RulePlan
from t2gen.jobfile.rules.size import MAX_ENV_ENTRIES
from t2gen.jobfile.rules.workers import MAX_TOTAL_WORKERS
from t2gen.record import Record

__all__ = [
    "MAX_ENV_ENTRIES",
    "MAX_TOTAL_WORKERS",
    "REGISTRY",
    "Rule",
    "RuleFindings",
    "RuleOptions",
    "explained",
    "rule_problems",
    "rule_warnings",
    "run_rules",
]


REGISTRY: dict[str, Rule] = registry(
    module.RULES
    for module in (
        checkpointing,
        env,
        image,
        job_master,
        jobclass,
        labels,
        lifecycle,
        logs,
        mpi,
        naming,
        network,
        isolation,
        package,
        package_source,
        placement,
        pod_security,
        quantities,
        rbac,
        resources,
        scaling,
        scheduling,
        separate_nodes,
        size,
        storage,
        text,
        volumes,
        workers,
    )
)
"""Every rule by ID: each module's ``RULES`` table, module by module, in the order
``docs/rules.md`` lists them (the explicit table of yamllint's ``rules/__init__.py``)."""


class RuleFindings(Record):
    """What the rules found in one job document.

    Attributes:
        problems: errors, sorted by position and without repeats; the job is
            invalid if there is any.
        warnings: :class:`~t2gen.errors.Warning_` records, sorted the same
            way; they do not make the job invalid.
    """

    problems: list[Problem]
    warnings: list[Warning_]


def run_rules(
    data: dict[str, Any],
    doc: SourceDoc,
    options: RuleOptions | None = None,
    *,
    schema_valid: bool = False,
) -> RuleFindings:
    """Run every registered rule once and split its findings into problems and warnings.

    Args:
        data: the job document with the schema's defaults applied.
        doc: the parsed file, for positions (a document without positions
            locates everything at 1:1).
        options: the command line's choices the rules registered with
            ``options=`` read (the Kubernetes version rendered for); None: the defaults.
        schema_valid: ``doc.data`` passed the schema check as written; then a
            rule none of whose declared fields the file writes is not run: it
            would find nothing (:mod:`t2gen.jobfile.rules._written`; the
            ``UNWRITTEN_RULES`` fast path of :mod:`t2gen.fastpaths`).

    Returns:
        The problems and the warnings, each sorted by position, without repeats.
    """
    problems: set[Problem] = set()
    warnings: set[Warning_] = set()
    chosen = options or RuleOptions()
    rules: Iterable[Rule] = REGISTRY.values()
    if schema_valid and fastpaths.enabled("UNWRITTEN_RULES"):
        rules = map(REGISTRY.__getitem__, _plan().rules_for(doc.data))
    for registered in rules:
        # Rule.run, inlined: up to 85 calls a job
        check = registered.check
        found = check(data, doc, chosen) if registered.options else check(data, doc)  # type: ignore[call-arg]
        for finding in found:
            if isinstance(finding, Warning_):
                warnings.add(finding)
            else:
                problems.add(explained(finding, registered.id))
    return RuleFindings(sorted(problems), sorted(warnings))


def _plan() -> RulePlan:
    """The :class:`~t2gen.jobfile.rules._written.RulePlan` of :data:`REGISTRY`, worked out at the first job.

    Worked out again when the registry grows or shrinks (a test's rule); it
    names rules by ID, so a rule replaced under its ID (a test's spy) is the one run.
    """
    plan = _plans.get(len(REGISTRY))
    if plan is None:
        _plans.clear()
        plan = _plans[len(REGISTRY)] = RulePlan(REGISTRY.values())
    return plan


_plans: dict[int, RulePlan] = {}


def explained(problem: Problem, rule_id: str) -> Problem:
    """``problem`` with where to read more about its rule: ``(t2gen explain <id>)``.

    ``t2gen explain <id>`` prints the rule's documentation, the same text as
    the ``docs/rules.md#<id>`` section ``make docs`` writes.
    """
    return Problem(
        problem.path,
        problem.line,
        problem.col,
        f"{problem.message} (t2gen explain {rule_id})",
        problem.json_path,
    )


def rule_problems(data: dict[str, Any], doc: SourceDoc) -> list[Problem]:
    """Run every rule on a job document and return its problems (not its warnings).

    Args:
        data: the document with schema defaults applied.
        doc: the parsed file, for positions.

    Returns:
        Every violation, sorted by position; empty if the job is valid.
    """
    return run_rules(data, doc).problems


def rule_warnings(data: dict[str, Any], doc: SourceDoc) -> list[Warning_]:
    """Run every rule on a job document and return its warnings only.

    Args:
        data: the document with schema defaults applied.
        doc: the parsed file, for positions.

    Returns:
        Every :class:`~t2gen.errors.Warning_`, sorted by position; these never
        make the job invalid. Use :func:`run_rules` to get both in one pass.
    """
    return run_rules(data, doc).warnings
