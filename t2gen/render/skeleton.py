"""Objects from a template's data without parsing the rendered text again.

Every ``{{ expression }}`` of a template is one YAML flow value written by the
finalize hook (:mod:`t2gen.render.environment`), so the structure of a rendered
document depends only on the template and on which values are emitted where,
not on the values themselves. :func:`render_objects` renders a template with a
placeholder scalar in place of each value (the *skeleton*), parses each distinct
skeleton once, and builds each job's objects by putting the values, as a reader
of their YAML would see them, where the placeholders are.

Anything unusual answers None, and the caller renders and parses as before, so
output and error messages are the same either way: a placeholder not found
exactly once as a whole plain scalar, anchors or merge keys, a value that YAML
would not read back as itself (a type JSON cannot write, a non-finite float,
control characters, a key too long for an implicit key), a rendering error.
"""

from __future__ import annotations

import math
import os
import re
import weakref
from collections import ChainMap
from collections.abc import Callable
from typing import Any

import jinja2
import yaml

from t2gen.kube.yamlio import KubeLoader, is_plain
from t2gen.render import environment as _environment

__all__ = ["JobScope", "render_objects"]

_TOKEN = f"t2gslot{os.urandom(6).hex()}n"
_TOKEN_PATTERN = re.escape(_TOKEN) + r"([0-9]+)z"
_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_MERGE = "tag:yaml.org,2002:merge"
_CACHE_SIZE = 256
# Characters a YAML reader would not read back from JSON's text as themselves.
_ODD = (
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]"
)
_MAX_DEPTH = 64
_MAX_KEY = 900  # bytes; YAML implicit keys end within 1024 characters


class _Unusual(Exception):
    """The fast path does not apply; render and parse the text instead."""


class _Unreadable:
    """Placeholder for a value the fast path cannot stand in for."""


_UNREADABLE = _Unreadable()


_KEYS_SIZE = 1024
_plain_keys: set[str] = set()
"""Keys of at most 110 characters that passed :func:`_read_back`'s key checks (a few dozen field names recur).

The verdict depends only on the key's characters, and only exact ``str`` keys
are looked up, so a member equal to a key stands for it; adding stops at
:data:`_KEYS_SIZE` (at most ~110 KiB kept).
"""


def _read_back(value: Any, depth: int = 0) -> Any:
    """Return ``value`` as YAML reads back its :func:`~t2gen.kube.yamlio.dump_flow` text, fresh.

    Raises:
        _Unusual: any value whose reading is not simply itself.
    """
    kind = type(value)
    if kind is dict or kind is list or kind is tuple:  # the recursive calls
        if depth > _MAX_DEPTH:
            raise _Unusual
        # A shallow copy in C, then only the containers replaced: scalars stay.
        result: Any
        mapping = kind is dict
        if mapping:
            result = dict(value)
            slots = result.items()
        else:
            result = list(value)
            slots = enumerate(result)
        for slot, item in slots:  # assigning to a slot keeps the size
            if mapping and (type(slot) is not str or slot not in _plain_keys):
                _check_key(slot)
            simple = type(item)  # the common cases, without a call
            if simple is str:
                if not (item.isascii() and item.isprintable()) and re.search(
                    _ODD, item
                ):
                    raise _Unusual
            elif not (simple is int or simple is bool or item is None):
                result[slot] = _read_back(item, depth + 1)
        return result
    if kind is str:
        if not (value.isascii() and value.isprintable()) and re.search(_ODD, value):
            raise _Unusual
        return value
    if kind is int or kind is bool or value is None:
        return value
    if kind is float and math.isfinite(value):
        return value
    raise _Unusual


def _check_key(key: Any) -> None:
    """Raise :class:`_Unusual` unless ``key`` reads back as itself; remember it if short.

    An exact ``str`` without a character of :data:`_ODD`, short enough for an
    implicit YAML key (JSON writes it in at most twice its UTF-8 bytes and quotes).
    """
    if type(key) is not str or (
        not (key.isascii() and key.isprintable()) and re.search(_ODD, key)
    ):
        raise _Unusual
    if len(key) > 110 and len(key.encode("utf-8")) * 2 + 2 > _MAX_KEY:
        raise _Unusual
    if len(_plain_keys) < _KEYS_SIZE and len(key) <= 110:
        _plain_keys.add(key)


def _capture(values: list[Any]) -> Callable[[Any], str]:
    """A finalize hook that records each value and writes a placeholder instead.

    A value the fast path cannot stand in for is recorded as :data:`_UNREADABLE`.
    """

    def finalize(value: Any) -> str:
        if type(value) is str and value.isascii() and value.isprintable():
            values.append(value)  # the commonest value, as _read_back reads it
        else:
            if isinstance(value, jinja2.Undefined):
                str(value)  # raises; the real render reports it
            try:
                values.append(_read_back(value))
            except _Unusual:
                values.append(_UNREADABLE)
        return f"{_TOKEN}{len(values) - 1}z"

    return finalize


class _Slot:
    """Where value ``index`` goes; ``key`` when it is a mapping key, ``flow`` inside a flow collection."""

    __slots__ = ("flow", "index", "key")

    def __init__(self, index: int, *, key: bool, flow: bool) -> None:
        self.index = index
        self.key = key
        self.flow = flow


class _Map:
    __slots__ = ("pairs",)

    def __init__(self, pairs: list[tuple[Any, Any]]) -> None:
        self.pairs = pairs


class _Seq:
    __slots__ = ("items",)

    def __init__(self, items: list[Any]) -> None:
        self.items = items


class _Plan:
    """A parsed skeleton: documents of constants, slots, mappings and sequences."""

    __slots__ = ("count", "documents")

    def __init__(self, documents: list[Any], count: int) -> None:
        self.documents = documents
        self.count = count


_UNUSABLE = _Plan([], -1)
_plans: dict[str, _Plan] = {}


def _plan(text: str, count: int) -> _Plan:
    """Parse a skeleton into a plan, or :data:`_UNUSABLE`."""
    found = [int(match[1]) for match in re.finditer(_TOKEN_PATTERN, text)]
    if sorted(found) != list(range(count)):
        return _UNUSABLE
    loader = KubeLoader(text)
    seen: set[int] = set()
    slots: list[int] = []

    def walk(node: yaml.Node, *, flow: bool, key: bool = False) -> Any:
        if id(node) in seen:
            raise _Unusual  # an alias: the reader shares the object
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            match = re.fullmatch(_TOKEN_PATTERN, node.value)
            if match and not node.style and node.tag == _STR:
                slots.append(int(match[1]))
                return _Slot(int(match[1]), key=key, flow=flow)
            if _TOKEN in node.value:
                raise _Unusual
            return loader.construct_object(node, deep=True)
        inner = flow or bool(getattr(node, "flow_style", False))
        if isinstance(node, yaml.MappingNode) and node.tag == _MAP:
            pairs = []
            constant_keys: set[Any] = set()
            for key_node, value_node in node.value:
                if key_node.tag == _MERGE:
                    raise _Unusual
                key_plan = walk(key_node, flow=inner, key=True)
                if not isinstance(key_plan, _Slot):
                    if not isinstance(key_plan, str | int | float | bool | None):
                        raise _Unusual
                    if key_plan in constant_keys:
                        raise _Unusual
                    constant_keys.add(key_plan)
                pairs.append((key_plan, walk(value_node, flow=inner)))
            return _Map(pairs)
        if isinstance(node, yaml.SequenceNode) and node.tag == _SEQ:
            return _Seq([walk(item, flow=inner) for item in node.value])
        raise _Unusual

    try:
        documents = []
        while loader.check_node():
            seen.clear()  # aliases never cross documents; ids of freed nodes are reused
            documents.append(walk(loader.get_node(), flow=False))
    except (_Unusual, yaml.YAMLError):
        return _UNUSABLE
    finally:
        loader.dispose()
    if sorted(slots) != list(range(count)):
        return _UNUSABLE
    return _Plan(documents, count)


def _build(plan: Any, values: list[Any]) -> Any:
    """One document from a plan and the recorded values (fresh containers)."""
    kind = type(plan)
    if kind is _Map:
        result = {}
        for key_plan, value_plan in plan.pairs:
            key = _build(key_plan, values) if type(key_plan) is _Slot else key_plan
            if key in result:
                raise _Unusual
            inner = type(value_plan)  # the common cases, without a call
            if inner is _Slot and not value_plan.flow:
                result[key] = values[value_plan.index]  # a value slot is never a key
            elif inner is _Map or inner is _Seq or inner is _Slot:
                result[key] = _build(value_plan, values)
            else:
                result[key] = value_plan  # a constant scalar
        return result
    if kind is _Seq:
        return [_build(item, values) for item in plan.items]
    if kind is _Slot:
        value = values[plan.index]
        if plan.key:
            # Only short plain strings as keys: the text is then the key itself.
            if type(value) is not str or ":" in value or not is_plain(value):
                raise _Unusual
            if len(value) > _MAX_KEY:
                raise _Unusual
        elif plan.flow and type(value) is str and ":" in value and is_plain(value):
            raise _Unusual
        return value
    return plan


_loaded: weakref.WeakKeyDictionary[jinja2.Environment, dict[str, jinja2.Template]] = (
    weakref.WeakKeyDictionary()
)
"""The templates each environment loaded for :class:`JobScope` (Jinja2's own cache, without its lock)."""


class JobScope:
    """What the built-in templates of one job share: the Jinja2 variables their contexts read.

    :meth:`jinja2.Template.render` merges the environment's globals with the
    job's context into a new dict for every template; templates that read the
    environment's globals alone (all but those given their own globals) can
    share one merge per job, as no template writes to it (a ``{% set %}`` or a
    loop writes to the template's own context, an include copies it).
    """

    __slots__ = ("context", "environment", "parent", "templates")

    def __init__(
        self, environment: jinja2.Environment, context: dict[str, Any]
    ) -> None:
        self.environment = environment
        self.context = context
        self.parent: dict[str, Any] | None
        try:
            self.parent = dict(environment.globals, **context)
        except TypeError:  # a key that is no name: Template.render raises it, located
            self.parent = None
        templates = _loaded.get(environment)
        if templates is None:
            templates = _loaded[environment] = {}
        self.templates = templates

    def template(self, name: str) -> jinja2.Template:
        """``environment.get_template(name)``, kept (the environment never reloads a template)."""
        found = self.templates.get(name)
        if found is None:
            if len(self.templates) >= _CACHE_SIZE:
                self.templates.clear()
            found = self.templates[name] = self.environment.get_template(name)
        return found

    def render(self, template: jinja2.Template) -> str:
        """``template.render(context)``, as Jinja2 does it, with the shared variables when they are the same."""
        environment = self.environment
        chain = template.globals
        if self.parent is None or not (
            template.environment is environment
            and type(chain) is ChainMap
            and len(chain.maps) == 2
            and not chain.maps[0]
            and chain.maps[1] is environment.globals
        ):
            return template.render(self.context)
        context = environment.context_class(
            environment,
            self.parent,
            template.name,
            template.blocks,
            globals=environment.globals,
        )
        keys_first = getattr(environment, "t2gen_keys_first", None)
        if keys_first is None:  # not t2gen's sandbox
            return environment.concat(template.root_render_func(context))
        environment.t2gen_keys_first = True  # type: ignore[attr-defined]
        try:
            return environment.concat(template.root_render_func(context))
        finally:
            environment.t2gen_keys_first = keys_first  # type: ignore[attr-defined]


def render_objects(
    environment: jinja2.Environment,
    name: str,
    context: dict[str, Any],
    scope: JobScope | None = None,
) -> list[Any] | None:
    """Render ``template`` and return its documents as a reader of the text would, or None.

    Args:
        environment: from :func:`t2gen.render.engine.make_environment`.
        name: a built-in template (its control flow never looks at what a
            ``{{ }}`` wrote, which the built-in set guarantees and overlays may not).
        context: the template's context.
        scope: the Jinja2 variables shared by the job's templates (made from
            ``environment`` and ``context``), or None to merge them here.

    Returns:
        One object per YAML document (None for an empty one), equal in type, value and
        key order to parsing the rendered text with :func:`t2gen.kube.yamlio.load_all_yaml`;
        None when the caller must render and parse the text instead.
    """
    values: list[Any] = []
    previous = _environment.capture
    _environment.capture = _capture(values)
    try:
        if scope is None:
            text = environment.get_template(name).render(context)
        else:
            text = scope.render(scope.template(name))
    except Exception:
        return None
    finally:
        _environment.capture = previous
    if _UNREADABLE in values:
        return None
    plan = _plans.get(text)
    if plan is None:
        plan = _plan(text, len(values))
        if len(_plans) >= _CACHE_SIZE:
            del _plans[next(iter(_plans))]
        _plans[text] = plan
    if plan.count != len(values):
        return None
    try:
        return [_build(document, values) for document in plan.documents]
    except _Unusual:
        return None
