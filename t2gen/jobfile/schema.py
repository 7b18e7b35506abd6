"""The job file's JSON Schema: loading it, validating documents, and filling defaults."""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

from t2gen import fastpaths
from t2gen.errors import Problem, format_json_path
from t2gen.inputs.yaml import JsonPath, SourceDoc
from t2gen.jobfile.messages import problems_for, short_value, suggest
from t2gen.jobfile.refused import (
    first_non_finite,
    non_finite,
    unknown_keys,
    without_rejected,
)
from t2gen.resources import schema_path

__all__ = [
    "apply_defaults",
    "defined_keys",
    "is_valid_fast",
    "load_schema",
    "schema_findings",
    "schema_problems",
    "short_value",
    "suggest",
    "without_rejected",
]


@functools.cache
def _schema() -> dict[str, Any]:
    """The packaged schema, parsed once; never handed out (callers could mutate it).

    It is not checked against its metaschema here (slow, and the same every
    run): the tests check the packaged file (``test_schema_is_valid_2020_12``).
    """
    with Path(schema_path()).open(encoding="utf-8") as file:
        schema: dict[str, Any] = json.load(file)
    return schema


def load_schema() -> dict[str, Any]:
    """Return the job file's JSON Schema (draft 2020-12).

    Returns:
        A fresh copy each call, so a caller that changes it changes nothing else.
    """
    schema: dict[str, Any] = _copied(_schema())
    return schema


@functools.cache
def defined_keys(name: str) -> frozenset[str]:
    """The property names of the job schema's ``$defs[name]`` (none for an unknown name).

    Read from the schema parsed once: a report of many unknown keys asks for
    each of them, and a copy of the whole schema (:func:`load_schema`) a key
    made a flood of 990 unknown keys cost seconds.
    """
    definition = _schema().get("$defs", {}).get(name, {})
    properties = definition.get("properties") if isinstance(definition, dict) else None
    return frozenset(properties) if isinstance(properties, dict) else frozenset()


def _is_integer(_checker: Any, instance: Any) -> bool:
    """JSON Schema ``integer``, minus floats such as ``8.0`` and bools."""
    return isinstance(instance, int) and not isinstance(instance, bool)


@functools.cache
def _validator() -> Any:
    """A cached jsonschema validator for the job schema, with strict integers.

    jsonschema is imported here, on first use: only files that fail the
    fast check (:func:`is_valid_fast`) need its messages.
    """
    from jsonschema import Draft202012Validator, FormatChecker, validators

    strict = validators.extend(  # type: ignore[no-untyped-call]
        Draft202012Validator,
        type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer),
    )
    return strict(_schema(), format_checker=FormatChecker())


@functools.cache
def _generated_is_current() -> bool:
    """Whether ``t2gen._generated.jobschema`` was generated from the packaged schema as it is now.

    A schema edited in a checkout without ``make generate`` then still takes
    effect at once (through jsonschema and the walk over the schema), as an
    edited template does.
    """
    from t2gen._generated import jobschema

    with Path(schema_path()).open(encoding="utf-8") as file:
        digest = hashlib.sha256(file.read().encode("utf-8")).hexdigest()
    return bool(digest == jobschema.SCHEMA_SHA256)


def is_valid_fast(data: Any) -> bool:
    """Check a document against the schema with the generated code in ``t2gen._generated.jobschema``.

    Equivalent to :func:`schema_problems` being empty (the tests compare them),
    in a fraction of the time and without importing jsonschema; it says only
    whether the document is valid, not why. False, so that the caller asks
    jsonschema, when the generated code is older than the schema or
    ``T2GEN_NO_SCHEMA_CODE`` is set (the ``SCHEMA_CODE`` fast path of
    :mod:`t2gen.fastpaths`).
    """
    from t2gen._generated import jobschema

    if (
        not fastpaths.enabled("SCHEMA_CODE")
        or not _generated_is_current()
        or first_non_finite(data) is not None
    ):
        return False
    try:
        jobschema.validate(data)  # type: ignore[no-untyped-call]
    except jobschema.JsonSchemaValueException:
        return False
    return True


def schema_problems(doc: SourceDoc) -> list[Problem]:
    """Validate a parsed job file against the schema.

    Args:
        doc: the parsed job file (its data as written, before defaults).

    Returns:
        Every violation as a located :class:`Problem`, sorted by position; empty if valid.
    """
    return schema_findings(doc)[0]


_VALUE_KEYWORDS = frozenset(
    {
        "type",
        "enum",
        "const",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "pattern",
        "format",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "uniqueItems",
        "maxProperties",
        "anyOf",
        "oneOf",
        "not",
        "allOf",
        "contains",
    }
)
"""Schema keywords that refuse a value itself (not a key of its mapping, such as ``required``)."""


def schema_findings(doc: SourceDoc) -> tuple[list[Problem], list[JsonPath]]:
    """Validate a parsed job file against the schema; also say which values it refused.

    Besides the schema, every number must be finite: JSON Schema's ``minimum``
    and ``maximum`` let ``.nan`` and ``.inf`` through (every comparison with NaN
    is false), and no field of a job takes one.

    Args:
        doc: the parsed job file (its data as written, before defaults).

    Returns:
        ``(problems, rejected)``: every violation as a located :class:`Problem`,
        sorted by position, and the JSON paths of the values the schema refused
        (a wrong type, out of range, too long...), which the rules must not
        read (:func:`without_rejected`).
    """
    problems: list[Problem] = []
    rejected: list[JsonPath] = []
    numbers = list(non_finite(doc.data, ()))
    told = {path for path, _ in numbers}  # said once, below, not as a wrong type too
    errors = [
        error
        for error in _validator().iter_errors(doc.data)
        if tuple(error.absolute_path) not in told
    ]
    # A value of the wrong type is that one problem (1e308 for an integer is not
    # also out of its range).
    mistyped = {tuple(e.absolute_path) for e in errors if e.validator == "type"}
    for error in errors:
        where = tuple(error.absolute_path)
        if where in mistyped and error.validator in _VALUE_KEYWORDS - {"type"}:
            continue
        problems.extend(problems_for(error, doc))
        if error.validator in _VALUE_KEYWORDS:
            rejected.append(where)
    unknown = unknown_keys(errors)
    for path, value in numbers:
        if any(path[:end] in unknown for end in range(1, len(path) + 1)):
            continue  # under a key the schema does not know: reported once, as that
        line, col = doc.position(path)
        problems.append(
            Problem(
                doc.path,
                line,
                col,
                f"{value} is not a finite number (a number past 1.8e308 reads as .inf); write one in the field's range",
                format_json_path(path),
            )
        )
        rejected.append(path)
    return sorted(set(problems)), rejected


def apply_defaults(data: Any) -> Any:
    """Return a copy of a job document with every schema ``default`` filled in.

    Defaults live in the schema only. Missing keys whose schema has a
    ``default`` are added, recursively, following ``$ref`` into ``$defs`` and
    into the items of lists. Parts of the document that are not of the right
    type are left alone (the schema check reports them).

    Args:
        data: the job document as parsed.

    Returns:
        A deep copy with defaults applied.
    """
    result = _copied(data)
    _fill(result, _defaults_plan())
    return result


def _copied(value: Any) -> Any:
    """A deep copy of parsed JSON or YAML data: new dicts and lists, the immutable scalars shared.

    As ``copy.deepcopy`` for such data, without importing ``copy`` (which a
    render would otherwise load for this alone); anything else is deep-copied.
    """
    kind = type(value)
    if kind is dict:
        return {key: _copied(item) for key, item in value.items()}
    if kind is list:
        return [_copied(item) for item in value]
    if kind in _IMMUTABLE:
        return value
    import copy

    return copy.deepcopy(value)


def resolve_ref(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """Follow a local ``$ref`` (``#/$defs/name``) of a schema node, merging its sibling keywords.

    Args:
        node: a schema node, with or without ``$ref``.
        root: the whole schema, where ``#/...`` points.

    Returns:
        The node itself without ``$ref``, or the referenced node (resolved
        again) updated with the node's other keywords.
    """
    ref = node.get("$ref")
    if not ref:
        return node
    target: Any = root
    for part in ref.removeprefix("#/").split("/"):
        target = target[part]
    merged = dict(resolve_ref(target, root))
    merged.update({k: v for k, v in node.items() if k != "$ref"})
    return merged


_NO_DEFAULT = object()
_SCALARS = (str, int, float, bool, type(None))
_IMMUTABLE = frozenset(_SCALARS)


class _Defaults:
    """What :func:`apply_defaults` does at one schema node, worked out once from the schema.

    Attributes:
        properties: ``(name, default or _NO_DEFAULT, the property's node)``
            for each property of an object node, in schema order.
        items: the node of a list's items, or None.
    """

    __slots__ = ("items", "properties")

    def __init__(self) -> None:
        self.properties: tuple[tuple[str, Any, _Defaults], ...] = ()
        self.items: _Defaults | None = None


def _plan(
    node: dict[str, Any], root: dict[str, Any], memo: dict[int, _Defaults]
) -> _Defaults:
    """The :class:`_Defaults` of a schema node (``$ref`` followed; recursion shared through ``memo``)."""
    found = memo.get(id(node))  # the schema's nodes live as long as the cached schema
    if found is not None:
        return found
    plan = memo[id(node)] = _Defaults()
    resolved = resolve_ref(node, root)
    properties = []
    for name, child in resolved.get("properties", {}).items():
        default = resolve_ref(child, root).get("default", _NO_DEFAULT)
        properties.append((name, default, _plan(child, root, memo)))
    plan.properties = tuple(properties)
    items = resolved.get("items")
    plan.items = _plan(items, root, memo) if isinstance(items, dict) else None
    return plan


def defaults_table(schema: dict[str, Any]) -> tuple[Any, ...]:
    """What :func:`apply_defaults` does, worked out from ``schema``, as a table of plain values.

    ``scripts/gen_validator.py`` writes it into ``t2gen/_generated/jobschema.py``
    as ``DEFAULTS``, so a render neither parses the schema's JSON nor walks its
    ``$ref`` s (``docs/performance.md``).

    Returns:
        One ``(properties, items)`` entry per schema node, the root first:
        ``properties`` holds ``(name, has_default, default, node)`` per property
        in schema order, ``items`` the node of a list's items or None; a node is
        an index into the table.
    """
    memo: dict[int, _Defaults] = {}
    _plan(schema, schema, memo)
    index = {id(plan): number for number, plan in enumerate(memo.values())}
    return tuple(
        (
            tuple(
                (
                    name,
                    default is not _NO_DEFAULT,
                    None if default is _NO_DEFAULT else default,
                    index[id(child)],
                )
                for name, default, child in plan.properties
            ),
            None if plan.items is None else index[id(plan.items)],
        )
        for plan in memo.values()
    )


@functools.cache
def _defaults_plan() -> _Defaults:
    """The packaged schema's :class:`_Defaults`, from the generated table (see :func:`defaults_table`).

    Worked out from the schema itself when the generated table is older than it.
    """
    from t2gen._generated import jobschema

    if not _generated_is_current():
        schema = _schema()
        return _plan(schema, schema, {})
    table = jobschema.DEFAULTS
    plans = [_Defaults() for _ in table]
    for plan, (properties, items) in zip(plans, table, strict=True):
        plan.properties = tuple(
            (name, default if has_default else _NO_DEFAULT, plans[child])
            for name, has_default, default, child in properties
        )
        plan.items = None if items is None else plans[items]
    return plans[0]


def _fill(value: Any, plan: _Defaults) -> None:
    """Fill defaults into ``value`` in place, according to its schema node's ``plan``."""
    if isinstance(value, dict):
        for name, default, child in plan.properties:
            if name not in value:
                if default is _NO_DEFAULT:
                    continue
                value[name] = (
                    default if isinstance(default, _SCALARS) else _copied(default)
                )
            _fill(value[name], child)
    elif isinstance(value, list) and plan.items is not None:
        for item in value:
            _fill(item, plan.items)
