"""The rule record, its decorator and the helpers every rule module shares.

A rule is a function ``(data, doc) -> Iterator[Problem]`` registered with
:func:`rule` under a stable ID; a rule that also depends on a command-line
option (only ``--kube-version`` so far) is registered with ``options=(...)``
and is called ``(data, doc, options)`` with the :class:`RuleOptions` of the run.
Its docstring is its documentation: the first
line is the title, the rest says why the rule exists and where the constraint
comes from; ``docs/rules.md`` is generated from it (``make docs``).

Rules read ``data``, the job document with the schema's defaults applied, and
skip values of the wrong type: the schema check reports those, so one run lists
every problem, schema and semantic alike.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal
from typing import Any

from t2gen.errors import Problem, Warning_, format_json_path
from t2gen.inputs.yaml import JsonPath, SourceDoc
from t2gen.kube.quantity import Quantity, parse_quantity
from t2gen.kube.versions import require_kube_version
from t2gen.record import Record

__all__ = [
    "Check",
    "Rule",
    "RuleOptions",
    "as_dict",
    "as_int",
    "as_list",
    "as_quantity",
    "fmt_decimal",
    "groups",
    "problem",
    "quantity_of",
    "registry",
    "rule",
    "warning",
]

Check = Callable[[dict[str, Any], SourceDoc], Iterator[Problem]]
"""A rule's function: the defaulted document and the parsed file in, findings out.

A finding is a :class:`~t2gen.errors.Problem` (the job is invalid) or a
:class:`~t2gen.errors.Warning_` (reported, but the job is rendered).
"""


_DEFAULT_KUBE_VERSION = require_kube_version(None)  # DEFAULT_KUBE_VERSION


class RuleOptions(Record):
    """What a run of the rules knows beyond the job file: the command line's choices.

    Passed through :func:`t2gen.jobfile.rules.run_rules` to the rules registered
    with ``options=(...)``; every other rule sees only the job document.

    Attributes:
        kube_version: ``(major, minor)`` of the Kubernetes rendered for
            (``--kube-version``, already checked against
            :func:`t2gen.kube.versions.supported_range`); default
            :data:`t2gen.kube.versions.DEFAULT_KUBE_VERSION`.
        package: a job package is given (``--package``): it supplies
            ``jobPackage.fileSize``.
    """

    kube_version: tuple[int, int] = _DEFAULT_KUBE_VERSION
    package: bool = False


_ID = r"[a-z][a-z0-9]*(-[a-z0-9]+)*"


class Rule(Record):
    """One registered rule.

    Attributes:
        id: the stable, kebab-case ID (``workers-divisible``); never reused or renamed.
        check: the function that finds the rule's problems.
        fields: the job-file fields the rule reads, as JSON paths with ``[]``
            for list items (``spec.workers[].count``), for the documentation.
        options: the command-line options the rule reads (``--kube-version``);
            when any, ``check`` takes the :class:`RuleOptions` as a third argument.
    """

    id: str
    check: Check
    fields: tuple[str, ...]
    options: tuple[str, ...] = ()

    def run(
        self, data: dict[str, Any], doc: SourceDoc, options: RuleOptions
    ) -> Iterator[Problem]:
        """The rule's findings; ``options`` is passed on only to a rule that reads options."""
        if self.options:
            return self.check(data, doc, options)  # type: ignore[call-arg]
        return self.check(data, doc)

    @property
    def doc(self) -> str:
        """The rule's full documentation: its function's docstring, dedented."""
        import inspect  # documentation only: not at start-up

        return inspect.cleandoc(self.check.__doc__ or "")

    @property
    def title(self) -> str:
        """The first line of :attr:`doc`."""
        return self.doc.split("\n", 1)[0]

    @property
    def module(self) -> str:
        """The rule's module within the package (``workers``, ``placement``...): its concern."""
        return self.check.__module__.rsplit(".", 1)[-1]


def rule(
    rule_id: str, *, fields: tuple[str, ...], options: tuple[str, ...] = ()
) -> Callable[[Any], Rule]:
    """Make a rule function a :class:`Rule` with ``rule_id``; its module's ``RULES`` registers it.

    A decorator only describes: the rule runs once it is listed in its
    module's ``RULES`` table, which :data:`t2gen.jobfile.rules.REGISTRY`
    collects module by module (one way for every registry: the gangs, the
    output checks and the rules are explicit tables; ``tests/test_registries.py``
    fails for a rule or check written but never listed).

    Args:
        rule_id: a kebab-case ID, unique across the registry.
        fields: the job-file fields the rule reads (see :attr:`Rule.fields`).
        options: the command-line options it reads (see :attr:`Rule.options`);
            the function then takes ``(data, doc, options)``.

    Returns:
        A decorator that returns the :class:`Rule`.

    Raises:
        ValueError: the ID is not kebab-case, or the function has no docstring.
    """

    def describe(check: Any) -> Rule:
        if not re.fullmatch(_ID, rule_id):
            raise ValueError(f"rule ID {rule_id!r} is not kebab-case")
        # `python -OO` strips every docstring; the rules still run, only their docs are empty.
        if not (check.__doc__ or "").strip() and sys.flags.optimize < 2:
            raise ValueError(f"rule {rule_id!r} has no docstring")
        return Rule(rule_id, check, fields, options)

    return describe


def registry(tables: Iterable[tuple[Rule, ...]]) -> dict[str, Rule]:
    """Every rule of ``tables`` by ID, in order.

    Raises:
        ValueError: two rules have one ID.
    """
    found: dict[str, Rule] = {}
    for table in tables:
        for listed in table:
            if listed.id in found:
                raise ValueError(f"rule ID {listed.id!r} is registered twice")
            found[listed.id] = listed
    return found


def problem(
    doc: SourceDoc, path: JsonPath, message: str, *, key: bool = False
) -> Problem:
    """Locate a problem at ``path`` in ``doc`` (at the key rather than the value with ``key``)."""
    line, col = doc.position(path, key=key)
    return Problem(doc.path, line, col, message, format_json_path(path))


def warning(
    doc: SourceDoc, path: JsonPath, message: str, *, key: bool = False
) -> Warning_:
    """Locate a warning at ``path`` in ``doc``: reported on stderr, the job is still rendered."""
    line, col = doc.position(path, key=key)
    return Warning_(doc.path, line, col, message, format_json_path(path))


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a mapping, else an empty one (a wrong type is the schema's to report)."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """``value`` if it is a list, else an empty one."""
    return value if isinstance(value, list) else []


def as_int(value: Any) -> int | None:
    """``value`` if it is an integer (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


QUANTITY_MAX_LENGTH = 64
"""The schema's ``maxLength`` of a quantity written as a string (a test keeps them equal)."""


def is_quantity_shaped(value: Any) -> bool:
    """Whether the rules may read ``value`` as a quantity: a number, or a string the schema's length allows.

    A longer string is the schema's to refuse ("is N characters long"); the
    rules leave it alone rather than report it again or echo it.
    """
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return False
    return not (isinstance(value, str) and len(value) > QUANTITY_MAX_LENGTH)


def quantity_of(value: str | int | float) -> Quantity:
    """:func:`~t2gen.kube.quantity.parse_quantity`, remembered for the last 1024 values.

    A batch's jobs repeat their quantities, and a :class:`~t2gen.kube.quantity.Quantity`
    is immutable. Remembered by value and type (``1`` and ``1.0`` apart), but
    for ``0.0``, which equals ``-0.0`` (that parses as ``-0``): parsed each
    time. Call it only with a value :func:`is_quantity_shaped` allows
    (hashable, at most 64 characters); a value it refuses raises each time
    (errors are not remembered).
    """
    if value == 0 and type(value) is float:
        return parse_quantity(value)
    return _remembered_quantity(value)


_remembered_quantity = functools.lru_cache(maxsize=1024, typed=True)(parse_quantity)


def as_quantity(value: Any) -> Quantity | None:
    """Parse a quantity the schema accepted; None for anything it rejects (a wrong type, too long)."""
    if not is_quantity_shaped(value):
        return None
    try:
        return quantity_of(value)
    except ValueError:
        return None


def groups(data: dict[str, Any]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(index, group)`` for every worker group that is a mapping."""
    for index, group in enumerate(as_list(as_dict(data.get("spec")).get("workers"))):
        if isinstance(group, dict):
            yield index, group


def fmt_decimal(value: Decimal) -> str:
    """Print a decimal without exponent noise (``0.5``, ``2``)."""
    return format(value.normalize(), "f")
