"""Node-label arithmetic the placement rules share: what ``Gt``/``Lt``/``In``/``NotIn`` leave.

Kubernetes compares a node label with ``Gt``/``Lt`` by parsing both as int64
(``strconv.ParseInt``), and a label value has no sign, so every label they can
match is a non-negative integer, possibly written with leading zeros (``011``
is 11). ``In``/``NotIn`` compare the label's text. Source: kubernetes/kubernetes
``staging/src/k8s.io/apimachinery/pkg/labels/selector.go`` (``Requirement.Matches``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.inputs.yaml import JsonPath, SourceDoc
from t2gen.jobfile.rules._base import as_list, problem, warning
from t2gen.kube.validators import LABEL_VALUE_MAX

__all__ = [
    "INT64_MAX",
    "MAX_ENUMERATED",
    "bounds",
    "contradictions",
    "describe_bounds",
    "integers_left",
    "is_digits",
    "node_int",
    "within",
]

INT64_MAX = 2**63 - 1
"""The largest value ``strconv.ParseInt(_, 10, 64)`` accepts."""

MAX_ENUMERATED = 1000
"""How many integers between a ``Gt`` and an ``Lt`` the contradiction rule tries one by one."""


def is_digits(value: Any) -> bool:
    """Whether ``value`` is written in ASCII digits only and fits a label value (an int counts)."""
    if isinstance(value, bool):
        return False
    text = str(value) if isinstance(value, int) else value
    return (
        isinstance(text, str)
        and text.isascii()
        and text.isdigit()
        and len(text) <= LABEL_VALUE_MAX
    )


def node_int(value: Any) -> int | None:
    """The integer a ``Gt``/``Lt`` value stands for, or None if Kubernetes refuses it.

    The value must be digits only (:func:`is_digits`: no sign, no spaces; ``01``
    means 1) and at most :data:`INT64_MAX`.
    """
    if not is_digits(value):
        return None
    number = int(str(value))
    return number if number <= INT64_MAX else None


def bounds(expressions: list[dict[str, Any]]) -> tuple[int, int | None] | None:
    """The strict bounds the ``Gt``/``Lt`` expressions on one key set, or None if there are none.

    Returns:
        ``(above, below)``: the label must be an integer ``> above`` and, unless
        ``below`` is None, ``< below``; ``above`` is -1 without a ``Gt`` (a label
        value has no sign). Expressions whose value is malformed are skipped
        (``affinity-operators`` reports them).
    """
    above, below, found = -1, None, False
    for expression in expressions:
        operator = expression.get("operator")
        values = as_list(expression.get("values"))
        if operator not in ("Gt", "Lt") or len(values) != 1:
            continue
        number = node_int(values[0])
        if number is None:
            continue
        found = True
        if operator == "Gt":
            above = max(above, number)
        else:
            below = number if below is None else min(below, number)
    return (above, below) if found else None


def within(number: int | None, above: int, below: int | None) -> bool:
    """Whether ``number`` is an integer strictly between ``above`` and ``below`` (None: no upper bound)."""
    return number is not None and number > above and (below is None or number < below)


def describe_bounds(above: int, below: int | None) -> str:
    """``greater than 10 and less than 11``, ``less than 0``, ``greater than 3``."""
    parts = []
    if above >= 0:
        parts.append(f"greater than {above}")
    if below is not None:
        parts.append(f"less than {below}")
    return " and ".join(parts)


def integers_left(
    above: int, below: int, not_in: set[str]
) -> tuple[list[int], list[int]] | None:
    """The integers strictly between the bounds that ``NotIn`` values leave.

    Args:
        above: the ``Gt`` bound (-1: none).
        below: the ``Lt`` bound.
        not_in: the ``NotIn`` values on the same key, as text.

    Returns:
        ``(canonical, padded)``: the integers whose plain form (``11``) no
        ``NotIn`` value excludes, and those excluded in their plain form only, so
        that just a label written with leading zeros (``011``) could still
        match them; None when more than :data:`MAX_ENUMERATED` integers lie
        between the bounds (not tried).
    """
    low = max(above, -1) + 1
    if below - low > MAX_ENUMERATED:
        return None
    canonical, padded = [], []
    for number in range(low, below):
        plain = str(number)
        if plain not in not_in:
            canonical.append(number)
        elif any(
            "0" * zeros + plain not in not_in
            for zeros in range(1, LABEL_VALUE_MAX - len(plain) + 1)
        ):
            padded.append(number)
    return canonical, padded


def contradictions(
    doc: SourceDoc,
    key: str,
    located: list[tuple[JsonPath, dict[str, Any]]],
    who: str,
) -> Iterator[Problem]:
    """The contradiction of the required expressions on one key, located at the last of them.

    Args:
        doc: the parsed job file, for positions.
        key: the node label key.
        located: ``(path, expression)`` of every required expression on ``key``
            (``nodeSelector`` entries as ``In``), in term order.
        who: whose pods the term places (``the workers``, ``the job master``).

    Yields:
        At most one problem (the rule ``affinity-contradiction``), or a warning
        when only labels written with leading zeros escape it.
    """
    expressions = [expression for _, expression in located]
    operators = {str(e.get("operator")) for e in expressions}
    path = located[-1][0]
    nobody = f"no node can run {who}"
    if "DoesNotExist" in operators and operators & {"Exists", "In", "Gt", "Lt"}:
        yield problem(
            doc,
            path,
            f"required expressions on {key!r} contradict each other: DoesNotExist with "
            f"{sorted(operators & {'Exists', 'In', 'Gt', 'Lt'})[0]}; {nobody}",
        )
        return
    limits = bounds(expressions)
    if limits is not None:
        above, below = limits
        if below is not None and below - max(above, -1) < 2:
            yield problem(
                doc,
                path,
                f"required expressions on {key!r} ask for an integer label "
                f"{describe_bounds(above, below)}, and there is none"
                + (
                    " (a label value has no sign, so it is at least 0)"
                    if above < 0
                    else ""
                )
                + f"; {nobody}",
            )
            return
    excluded: set[str] = set()
    for expression in expressions:
        if expression.get("operator") == "NotIn":
            excluded |= {str(v) for v in as_list(expression.get("values"))}
    allowed: set[str] | None = None
    for expression in expressions:
        values = {str(v) for v in as_list(expression.get("values"))}
        # an empty list is an arity error (affinity-operators)
        if expression.get("operator") == "In" and values:
            allowed = values if allowed is None else allowed & values
    if allowed is None:
        if limits is not None and limits[1] is not None and excluded:
            yield from _excluded_range(
                doc, path, key, limits[0], limits[1], excluded, who
            )
        return
    allowed -= excluded
    if not allowed:
        yield problem(
            doc,
            path,
            f"required expressions on {key!r} leave no value a node could have (In and NotIn exclude "
            f"every value); {nobody}",
        )
    elif limits is not None and not any(
        within(node_int(value), *limits) for value in allowed
    ):
        yield problem(
            doc,
            path,
            f"required expressions on {key!r} allow only {', '.join(repr(v) for v in sorted(allowed))} "
            f"(In), and none of them is an integer {describe_bounds(*limits)} (Gt/Lt); {nobody}",
        )


def _excluded_range(
    doc: SourceDoc,
    path: JsonPath,
    key: str,
    above: int,
    below: int,
    excluded: set[str],
    who: str,
) -> Iterator[Problem]:
    """A problem (or warning) when ``NotIn`` excludes every integer the ``Gt``/``Lt`` bounds allow."""
    left = integers_left(above, below, excluded)
    if left is None or left[0]:
        return
    between = describe_bounds(above, below)
    if not left[1]:
        yield problem(
            doc,
            path,
            f"required expressions on {key!r} ask for an integer label {between} (Gt/Lt), and NotIn "
            f"excludes every one; no node can run {who}",
        )
        return
    example = "0" + str(left[1][0])
    yield warning(
        doc,
        path,
        f"required expressions on {key!r} ask for an integer label {between} (Gt/Lt), and NotIn "
        f"excludes every one as written plainly; only a label with leading zeros such as {example!r} "
        f"(which Gt/Lt read as {left[1][0]}) could match, so most likely no node can run {who}",
    )
