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
from t2gen.jobfile.defaults import (
    _Defaults,
    copied,
    defaults_table,
    filled,
    plan_of_schema,
    plan_of_table,
    resolve_ref,
)
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
    "defaults_and_finite",
    "defaults_table",
    "defined_keys",
    "is_valid_fast",
    "load_schema",
    "resolve_ref",
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
    schema: dict[str, Any] = copied(_schema())
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


def is_valid_fast(data: Any, *, finite: bool | None = None) -> bool:
    """Check a document against the schema with the generated code in ``t2gen._generated.jobschema``.

    Equivalent to :func:`schema_problems` being empty (the tests compare them),
    in a fraction of the time and without importing jsonschema; it says only
    whether the document is valid, not why. False, so that the caller asks
    jsonschema, when the generated code is older than the schema or
    ``T2GEN_NO_SCHEMA_CODE`` is set (the ``SCHEMA_CODE`` fast path of
    :mod:`t2gen.fastpaths`).

    ``finite``: whether every number of ``data`` is finite, when the caller
    knows (:func:`defaults_and_finite`); None: found here.
    """
    from t2gen._generated import jobschema

    if (
        not fastpaths.enabled("SCHEMA_CODE")
        or not _generated_is_current()
        or not (first_non_finite(data) is None if finite is None else finite)
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
    return defaults_and_finite(data)[0]


def defaults_and_finite(data: Any) -> tuple[Any, bool]:
    """:func:`apply_defaults`, and whether every number of ``data`` is finite, in one walk.

    Returns:
        ``(apply_defaults(data), first_non_finite(data) is None)``.
    """
    infinite: list[float] = []
    return filled(data, _defaults_plan(), infinite), not infinite


@functools.cache
def _defaults_plan() -> _Defaults:
    """The packaged schema's :class:`_Defaults`, from the generated table (see :func:`defaults_table`).

    Worked out from the schema itself when the generated table is older than it.
    """
    from t2gen._generated import jobschema

    if not _generated_is_current():
        return plan_of_schema(_schema())
    return plan_of_table(jobschema.DEFAULTS)
