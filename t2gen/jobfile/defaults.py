"""Filling the job schema's ``default`` values into a document: the plan worked out once, the walk per job.

:func:`t2gen.jobfile.schema.apply_defaults` is the public entry; this module
holds its machinery. The plan (:class:`_Defaults`, one per schema node) comes
from the schema's ``$ref`` s followed once, or from the table
``scripts/gen_validator.py`` writes (:func:`defaults_table`). :func:`filled`
copies a document and fills its defaults in one walk, and notes on the way
whether every number is finite (what :func:`t2gen.jobfile.refused.first_non_finite`
would walk the document again to find); :func:`fill_in_place` is the plain
recursive walk it must agree with (``tests/jobfile/test_schema.py``).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "copied",
    "defaults_table",
    "fill_in_place",
    "filled",
    "plan_of_schema",
    "plan_of_table",
    "resolve_ref",
]


def copied(value: Any) -> Any:
    """A deep copy of parsed JSON or YAML data: new dicts and lists, the immutable scalars shared.

    As ``copy.deepcopy`` for such data, without importing ``copy`` (which a
    render would otherwise load for this alone); anything else is deep-copied.
    """
    kind = type(value)
    if kind is dict:
        return {key: copied(item) for key, item in value.items()}
    if kind is list:
        return [copied(item) for item in value]
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
_INF = float("inf")
_SHARED = frozenset((str, int, bool, type(None)))
"""The immutable scalars :func:`filled` shares without a look (a float is checked for NaN)."""


class _Defaults:
    """What :func:`apply_defaults` does at one schema node, worked out once from the schema.

    Attributes:
        properties: ``(name, default or _NO_DEFAULT, the property's node)``
            for each property of an object node, in schema order.
        items: the node of a list's items, or None.
        children: ``name -> node`` of every property (set by :meth:`settle`).
        missing: ``(name, default, node)`` of the properties with a default,
            in schema order (set by :meth:`settle`).
        every_item: :attr:`items`, or a node that fills nothing.
    """

    __slots__ = ("children", "every_item", "items", "missing", "properties")

    def __init__(self) -> None:
        self.properties: tuple[tuple[str, Any, _Defaults], ...] = ()
        self.items: _Defaults | None = None
        self.children: dict[str, _Defaults] = {}
        self.missing: tuple[tuple[str, Any, _Defaults], ...] = ()
        self.every_item: _Defaults = self

    def settle(self) -> None:
        """Derive :attr:`children`, :attr:`missing` and :attr:`every_item` from the rest."""
        self.children = {name: child for name, _default, child in self.properties}
        self.missing = tuple(
            entry for entry in self.properties if entry[1] is not _NO_DEFAULT
        )
        self.every_item = _NOTHING if self.items is None else self.items


_NOTHING = _Defaults()
"""The node of a value no schema node describes: it fills nothing."""
_NOTHING.every_item = _NOTHING


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


def plan_of_schema(schema: dict[str, Any]) -> _Defaults:
    """The root :class:`_Defaults` of ``schema``, worked out by following its ``$ref`` s."""
    memo: dict[int, _Defaults] = {}
    root = _plan(schema, schema, memo)
    for plan in memo.values():
        plan.settle()
    return root


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


def plan_of_table(table: tuple[Any, ...]) -> _Defaults:
    """The root :class:`_Defaults` of a table :func:`defaults_table` made."""
    plans = [_Defaults() for _ in table]
    for plan, (properties, items) in zip(plans, table, strict=True):
        plan.properties = tuple(
            (name, default if has_default else _NO_DEFAULT, plans[child])
            for name, has_default, default, child in properties
        )
        plan.items = None if items is None else plans[items]
        plan.settle()
    return plans[0]


def fill_in_place(value: Any, plan: _Defaults) -> None:
    """Fill defaults into ``value`` in place, according to its schema node's ``plan``: the plain walk."""
    if isinstance(value, dict):
        for name, default, child in plan.properties:
            if name not in value:
                if default is _NO_DEFAULT:
                    continue
                value[name] = (
                    default if isinstance(default, _SCALARS) else copied(default)
                )
            fill_in_place(value[name], child)
    elif isinstance(value, list) and plan.items is not None:
        for item in value:
            fill_in_place(item, plan.items)


def filled(value: Any, plan: _Defaults, infinite: list[float]) -> Any:
    """``copied(value)`` with ``fill_in_place(copy, plan)`` done, in one walk.

    ``infinite`` gets an entry for a NaN or infinite float in ``value`` (not
    in a default): it stays empty when :func:`t2gen.jobfile.refused.first_non_finite`
    of ``value`` is None.

    Args:
        value: the document (or a part of it) as parsed; not changed.
        plan: its schema node's plan.
        infinite: where the non-finite numbers go (its length means nothing more).

    Returns:
        A new document; the immutable scalars shared.
    """
    kind = type(value)
    if kind is dict:
        get = plan.children.get
        result = {}
        # A string, integer... is shared, without a call.
        for key, item in value.items():
            result[key] = (
                item
                if type(item) in _SHARED
                else filled(item, get(key, _NOTHING), infinite)
            )
        for name, default, child in plan.missing:
            if name not in result:
                result[name] = filled(default, child, [])
        return result
    if kind is list:
        every = plan.every_item
        return [
            item if type(item) in _SHARED else filled(item, every, infinite)
            for item in value
        ]
    if kind is float:
        if value != value or value in (_INF, -_INF):
            infinite.append(value)
        return value
    if kind in _IMMUTABLE:
        return value
    # Anything else (a subclass of dict, list or float): the plain walks.
    from t2gen.jobfile.refused import first_non_finite

    if first_non_finite(value) is not None:
        infinite.append(_INF)
    result = copied(value)
    fill_in_place(result, plan)
    return result
