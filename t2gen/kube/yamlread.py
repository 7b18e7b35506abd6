"""YAML as kubectl reads it, within bounds judged event by event, before anything is built.

Every YAML input but the job file (whose readers keep its tighter bounds the
same way) goes through :class:`BoundedReader`: manifests for ``t2gen check``,
overlay output, node and pod lists. It reads libyaml's parser events (which
keep their own stack: any nesting, no recursion) and builds the data directly,
as :class:`~t2gen.kube.yamlio.KubeLoader` would, each bound checked at its event:

* **depth**: at most :attr:`ReadBounds.depth` levels (PyYAML's C composer
  recurses per level and dies of a stack overflow at about 100,000);
* **values**: at most :attr:`ReadBounds.nodes` scalars, lists and mappings;
* **aliases** and ``<<`` merge keys: none built here (a 700-byte "billion
  laughs" expands to gigabytes); the error at the first one says ``alias``, and
  ``t2gen check`` then reads the stream as kubectl does, within the same bounds
  (:mod:`t2gen.inputs.aliased`); other inputs refuse them;
* **integers**: at most :attr:`ReadBounds.int_digits` digits (Python's ``int()``
  refuses more than 4,300).

Each bound is a :class:`YamlLimitError` at the ``line:col`` of the event that
passes it. Anything but plain mappings, lists and scalars (a ``!!set``, a
custom tag) is built by ``KubeLoader``'s own constructor, so the data and the
YAML errors are exactly what :func:`t2gen.kube.yamlio.load_all_yaml` gives;
``tests/kube/test_yamlread.py`` compares the two.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable, Iterator
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from t2gen.kube.yamlbounds import (
    ALIAS_MESSAGE,
    MANIFEST_BOUNDS,
    LocatedDocument,
    ReadBounds,
    TooManyObjects,
    YamlLimitError,
)
from t2gen.kube.yamlio import KubeLoader

__all__ = [
    "MANIFEST_BOUNDS",
    "BoundedReader",
    "LocatedDocument",
    "ReadBounds",
    "TooManyObjects",
    "YamlLimitError",
    "load_all_bounded",
]

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_NULL = "tag:yaml.org,2002:null"
_BOOL = "tag:yaml.org,2002:bool"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_SCALAR_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}" for name in ("bool", "int", "float", "timestamp")
)
"""Tags whose ``KubeLoader`` constructor reads one scalar and nothing else."""
_TAGS_CACHED = 20_000
"""Most plain scalars whose resolved tag (and short strings whose one copy) is remembered."""


def load_all_bounded(text: str, bounds: ReadBounds) -> list[Any]:
    """:func:`t2gen.kube.yamlio.load_all_yaml` within ``bounds``: one value per document.

    Raises:
        YamlLimitError: a bound is passed (located).
        yaml.YAMLError: the text is not YAML, or a mapping repeats a key.
    """
    return [document.data for document in BoundedReader(text, bounds).documents()]


class BoundedReader:
    """Read a YAML stream's documents within :class:`ReadBounds` (see the module docstring)."""

    def __init__(self, text: str, bounds: ReadBounds, *, start: int = 0) -> None:
        """A reader of ``text``; nothing is read until :meth:`documents`.

        Args:
            text: the stream.
            bounds: what it may hold.
            start: values already read by earlier streams that share ``bounds.nodes``.
        """
        self._text = text
        self._bounds = bounds
        self._nodes = start
        self._max_nodes = bounds.nodes if bounds.nodes is not None else sys.maxsize
        self._anchors: dict[Any, Any] = {}
        self._tags: dict[str, str] = {}
        self._strings: dict[str, str] = {}
        self._pending: yaml.YAMLError | None = None

    @property
    def nodes(self) -> int:
        """How many values (scalars, lists, mappings) have been read (with ``start``)."""
        return self._nodes

    def documents(self, max_objects: int | None = None) -> Iterator[LocatedDocument]:
        """Yield each document of the stream, built, with its line.

        Args:
            max_objects: when given, the most objects read: each document counts
                one, or, when it is a mapping with a top-level ``items`` list,
                one per item, each counted as it is read, so that neither many
                documents nor one long ``List`` is built past the limit.

        Raises:
            TooManyObjects: past ``max_objects`` (at the first object past it).
            YamlLimitError: a bound is passed (at the event that passes it).
            yaml.YAMLError: the text is not YAML, a mapping repeats a key or
                has a list or mapping as a key, or a tag has no constructor:
                a document's parse errors before its construction errors, as
                PyYAML reports them.
        """
        loader = KubeLoader(self._text)
        self._loader = loader
        self._max_objects = max_objects
        self._objects = 0
        try:
            loader.get_event()  # StreamStartEvent
            while not loader.check_event(StreamEndEvent):
                loader.get_event()  # DocumentStartEvent
                first = loader.peek_event()
                self._items: list[int] = []
                data = self._value(first, 0, top=True)
                loader.get_event()  # DocumentEndEvent: a parse error comes first
                if self._pending is not None:
                    raise self._pending
                self._anchors.clear()
                if max_objects is not None and not self._items:
                    self._count(first.start_mark.line + 1)
                yield LocatedDocument(
                    data, first.start_mark.line + 1, tuple(self._items)
                )
            loader.get_event()
        except yaml.MarkedYAMLError as err:
            if err.problem != "exceeded maximum nesting depth":
                raise
            # libyaml's own bound (1,000 levels, libyaml 0.2.5+), met while it
            # scans up to 1,024 characters ahead: the depth bound, in its words.
            raise YamlLimitError(err.problem_mark, self._depth_message()) from None
        finally:
            loader.dispose()

    def _count(self, line: int) -> None:
        self._objects += 1
        if self._max_objects is not None and self._objects > self._max_objects:
            raise TooManyObjects(line)

    def _fail(self, error: yaml.YAMLError) -> None:
        """Keep a construction error until the document's end (its parse errors go first)."""
        if self._pending is None:
            self._pending = error

    def _take(self, event: Any) -> None:
        """Consume the peeked ``event``, which starts a value, within the bound on values."""
        self._loader.get_event()
        self._nodes += 1
        if self._nodes > self._max_nodes:
            self._too_many(event)
        if type(event) is AliasEvent:
            raise YamlLimitError(
                self._anchors.get(event.anchor, event.start_mark),
                ALIAS_MESSAGE,
                alias=True,
            )
        if event.anchor is not None:
            self._anchors[event.anchor] = event.start_mark

    def _too_many(self, event: Any) -> None:
        bounds = self._bounds
        raise YamlLimitError(
            event.start_mark,
            f"more than {bounds.nodes:,} values (scalars, lists and mappings) in "
            f"{bounds.what}; t2gen reads at most that many: {bounds.advice}",
        )

    def _deeper(self, event: Any, depth: int) -> None:
        """Refuse a list or mapping that starts at ``depth`` levels when that is too deep."""
        if depth >= self._bounds.depth:
            raise YamlLimitError(event.start_mark, self._depth_message())

    def _depth_message(self) -> str:
        depth = self._bounds.depth
        return (
            f"lists or mappings nested more than {depth} deep; t2gen reads "
            f"{self._bounds.what} at most {depth} levels deep"
        )

    def _value(self, event: Any, depth: int, *, top: bool = False) -> Any:
        """Read the value that starts at the next event (``event``, peeked) and build it."""
        kind = type(event)
        if kind is ScalarEvent and event.anchor is None:  # most values: _take, inlined
            self._loader.get_event()
            self._nodes += 1
            if self._nodes > self._max_nodes:
                self._too_many(event)
            return self._scalar(event)
        self._take(event)
        if kind is ScalarEvent:
            return self._scalar(event)
        self._deeper(event, depth)
        if event.tag not in (None, "!", _SEQ if kind is SequenceStartEvent else _MAP):
            return self._construct(self._compose(event, depth))
        if kind is SequenceStartEvent:
            loader = self._loader
            items = []
            while not loader.check_event(SequenceEndEvent):
                items.append(self._value(loader.peek_event(), depth + 1))
            loader.get_event()
            return items
        return self._mapping(event, depth, top)

    def _mapping(self, start: Any, depth: int, top: bool) -> dict[Any, Any]:
        loader = self._loader
        result: dict[Any, Any] = {}
        while not loader.check_event(MappingEndEvent):
            key_event = loader.peek_event()
            # a plain `<<` key merges: left to the composer, as aliases are
            if getattr(key_event, "value", None) == "<<" and key_event.implicit[0]:
                raise YamlLimitError(key_event.start_mark, ALIAS_MESSAGE, alias=True)
            key = self._value(key_event, depth + 1)
            value_event = loader.peek_event()
            if (
                top
                and key == "items"
                and type(value_event) is SequenceStartEvent
                and value_event.tag in (None, "!", _SEQ)
            ):
                value = self._items_list(value_event, depth + 1)
            else:
                value = self._value(value_event, depth + 1)
            if type(key) is not str and not isinstance(key, Hashable):
                self._fail(
                    yaml.constructor.ConstructorError(
                        "while constructing a mapping",
                        start.start_mark,
                        f"found a {type(key).__name__} as a key; Kubernetes objects have string keys",
                        key_event.start_mark,
                    )
                )
            elif key in result:
                self._fail(
                    yaml.constructor.ConstructorError(
                        "while constructing a mapping",
                        start.start_mark,
                        f"found duplicate key {key!r}",
                        key_event.start_mark,
                    )
                )
            else:
                result[key] = value
        loader.get_event()
        return result

    def _items_list(self, start: Any, depth: int) -> list[Any]:
        """A document's top-level ``items`` list: each item counted as an object as it is read."""
        loader = self._loader
        self._take(start)
        self._deeper(start, depth)
        if self._max_objects is not None and self._items:  # a second `items` key
            self._objects -= len(self._items) - 1
            self._items = []
        items = []
        lines = []
        while not loader.check_event(SequenceEndEvent):
            event = loader.peek_event()
            line = event.start_mark.line + 1
            if self._max_objects is not None:
                self._count(line)
            lines.append(line)
            items.append(self._value(event, depth + 1))
        loader.get_event()
        self._items = lines
        return items

    def _scalar(self, event: Any) -> Any:
        """Build a scalar as ``KubeLoader`` does."""
        tag = event.tag
        value = event.value
        if tag is None or tag == "!":
            if event.implicit[0]:
                tag = self._tags.get(value)
                if tag is None:
                    tag = self._loader.resolve(ScalarNode, value, (True, False))
                    if len(self._tags) < _TAGS_CACHED:
                        self._tags[value] = tag
            else:
                tag = _STR
        if tag == _STR:
            if len(value) > 64:
                return value
            # One object for each short string: keys and kinds repeat in every
            # object, and 20 MiB of manifests hold 1.6 million strings.
            shared = self._strings.get(value)
            if shared is None and len(self._strings) < _TAGS_CACHED:
                self._strings[value] = value
            return value if shared is None else shared
        if tag == _NULL:
            return None
        if tag == _INT and value.isdigit() and (value[0] != "0" or value == "0"):
            if len(value) > self._bounds.int_digits:
                self._check_int(event, tag)
            return int(value)  # a plain decimal (a leading 0 is octal in YAML 1.1)
        self._check_int(event, tag)
        node = ScalarNode(
            tag, value, event.start_mark, event.end_mark, style=event.style
        )
        if tag in _SCALAR_TAGS:  # a scalar's constructor keeps no state: call it
            return self._construct(node, self._loader.yaml_constructors[tag])
        return self._construct(node)

    def _check_int(self, event: Any, tag: str) -> None:
        """Refuse an integer of more digits than the bound (``int()`` would refuse over 4,300)."""
        limit = self._bounds.int_digits
        if tag == _INT and len(event.value) > limit:
            digits = sum(character.isdigit() for character in event.value)
            if digits > limit:
                raise YamlLimitError(
                    event.start_mark,
                    f"a number of more than {limit:,} digits; no Kubernetes field takes one",
                )

    def _construct(self, node: Node, constructor: Any = None) -> Any:
        """Build a node with ``KubeLoader``'s constructor; an error waits for the document's end."""
        try:
            if constructor is not None:
                return constructor(self._loader, node)
            return self._loader.construct_document(node)
        except yaml.YAMLError as err:
            self._fail(err)
            return None
        except ValueError:  # a value its tag cannot take (`!!int x`)
            self._fail(
                yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"cannot read this value as {node.tag.replace('tag:yaml.org,2002:', '!!')}",
                    node.start_mark,
                )
            )
            return None

    def _compose(self, start: Any, depth: int) -> Node:
        """Compose a tagged list or mapping (``start``, taken) as nodes, within the bounds."""
        loader = self._loader
        kind = type(start)
        end = SequenceEndEvent if kind is SequenceStartEvent else MappingEndEvent
        children: list[Node] = []
        while not loader.check_event(end):
            event = loader.peek_event()
            self._take(event)
            if type(event) is ScalarEvent:
                children.append(self._scalar_node(event))
            else:
                self._deeper(event, depth + 1)
                children.append(self._compose(event, depth + 1))
        end_event = loader.get_event()
        node_kind = SequenceNode if kind is SequenceStartEvent else MappingNode
        tag = start.tag
        if tag is None or tag == "!":
            tag = loader.resolve(node_kind, None, start.implicit)
        value = (
            children
            if node_kind is SequenceNode
            else list(zip(children[::2], children[1::2], strict=True))
        )
        return node_kind(
            tag,
            value,
            start.start_mark,
            end_event.end_mark,
            flow_style=start.flow_style,
        )

    def _scalar_node(self, event: Any) -> ScalarNode:
        """A scalar event as the node PyYAML's composer makes of it (integers within the bound)."""
        tag = event.tag
        if tag is None or tag == "!":
            tag = self._loader.resolve(ScalarNode, event.value, event.implicit)
        self._check_int(event, tag)
        return ScalarNode(
            tag, event.value, event.start_mark, event.end_mark, event.style
        )
