"""YAML as kubectl reads it: a loader and an emitter for Kubernetes manifests.

kubectl parses manifests as YAML 1.1 (``sigs.k8s.io/yaml`` on go-yaml v2):
unquoted ``yes``, ``n``, ``on``, ``0400``, ``1e3`` or ``2024-01-01`` are not
strings there. The emitter here quotes every string whose plain form could be
read as anything but that string, so what kubectl reads is exactly the object
t2gen meant; the loader reads manifests with the same YAML 1.1 rules (plus
go-yaml's ``y``/``n`` booleans and ``1e3`` floats), refusing duplicate keys. Both
use PyYAML's C implementation when it is available.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Hashable
from typing import Any

import yaml

from t2gen.kube.aliases import BoundedAliases

__all__ = [
    "KubeLoader",
    "dump_flow",
    "dump_yaml",
    "is_plain",
    "load_all_yaml",
]

_BaseLoader: type[yaml.SafeLoader]
_BaseDumper: type[yaml.SafeDumper]
try:  # pragma: no branch - the C classes ship in PyYAML's wheels
    _BaseLoader = yaml.CSafeLoader  # type: ignore[assignment]
    _BaseDumper = yaml.CSafeDumper  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _BaseLoader = yaml.SafeLoader
    _BaseDumper = yaml.SafeDumper

# A string may stay plain only if it starts with a letter, `_` or `/` and holds
# nothing but these characters (`:` only between them), or is a quantity with a
# suffix, and is not one of the words go-yaml v2 resolves to a bool or null.
# Everything else is double-quoted.
_PLAIN_SAFE = re.compile(
    r"[A-Za-z_/][A-Za-z0-9._/-]*(?::[A-Za-z0-9._/-]+)*"
    # Kubernetes quantities with a suffix (500m, 1Gi, 2k): no YAML resolver reads
    # digits followed by one of these letters as anything but a string.
    r"|[0-9]+(?:\.[0-9]+)?(?:[KMGTPE]i|[numkMGTPE])"
)
_YAML11_WORDS = frozenset(
    word
    for base in ("y", "yes", "n", "no", "true", "false", "on", "off", "null")
    for word in (base, base.capitalize(), base.upper())
)


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    """Represent a string plain when unambiguous, else double-quoted."""
    plain = _plain(data)
    return dumper.represent_scalar(
        "tag:yaml.org,2002:str", data, style=None if plain else '"'
    )


class KubeDumper(_BaseDumper):  # type: ignore[misc,valid-type]
    """PyYAML dumper whose strings read back as strings in YAML 1.1 and 1.2."""


KubeDumper.add_representer(str, _represent_str)
# The serializer asks the resolver whether each scalar's plain form reads back
# with its own tag. Strings are quoted by _represent_str whenever any reader
# could misread them, so only the forms Python writes for other scalars need
# resolving here: a much smaller table than YAML 1.1's, and a faster dump.
KubeDumper.yaml_implicit_resolvers = {}
KubeDumper.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|false)$"), list("tf")
)
KubeDumper.add_implicit_resolver(
    "tag:yaml.org,2002:null", re.compile(r"^(?:null)$"), ["n"]
)
KubeDumper.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^-?[0-9]+$"), list("-0123456789")
)
KubeDumper.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^(?:-?[0-9]+\.[0-9]+(?:e[-+][0-9]+)?|\.inf|-\.inf|\.nan)$"),
    list("-0123456789."),
)


class _KubeResolution(yaml.resolver.BaseResolver):
    """:class:`KubeDumper`'s implicit resolvers without an emitter, for :func:`dump_yaml`'s events."""

    yaml_implicit_resolvers = KubeDumper.yaml_implicit_resolvers


_RESOLVER = _KubeResolution()


class KubeLoader(BoundedAliases, _BaseLoader):  # type: ignore[misc,valid-type]
    """PyYAML safe loader with go-yaml v2's resolution rules; rejects duplicate keys and bounds aliases as kubectl does.

    Differences from PyYAML's YAML 1.1 resolver, all to match kubectl: ``y``/``Y``/``n``/``N``
    are booleans, ``1e3`` a float, timestamps strings (kubectl makes them RFC 3339 strings).
    """

    def construct_mapping(
        self, node: yaml.MappingNode, deep: bool = False
    ) -> dict[Hashable, Any]:
        """Build a mapping, raising on a key that appears twice.

        ``<<`` merge keys are read as go-yaml reads them: the merged mappings'
        keys come first and the mapping's own keys override them, so only a
        key the mapping itself writes twice is a duplicate.
        """
        seen: dict[Hashable, yaml.Node] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, Hashable):
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    f"found a {type(key).__name__} as a key; Kubernetes objects have string keys",
                    key_node.start_mark,
                )
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    f"found duplicate key {key!r}",
                    key_node.start_mark,
                )
            seen[key] = key_node
        self.flatten_mapping(node)
        return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]


KubeLoader.yaml_implicit_resolvers = {
    first: [
        (tag, regexp)
        for tag, regexp in resolvers
        if tag != "tag:yaml.org,2002:timestamp"
    ]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
KubeLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:y|Y|n|N)$"), list("yYnN")
)
KubeLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)$"),
    list("-+0123456789"),
)


def _construct_bool(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> bool:
    """Read a YAML 1.1 boolean, including go-yaml's ``y`` and ``n``."""
    value = loader.construct_scalar(node)
    return str(value).lower() in ("y", "yes", "true", "on")


KubeLoader.add_constructor("tag:yaml.org,2002:bool", _construct_bool)
KubeLoader.add_constructor(
    "tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node)
)


def load_all_yaml(text: str) -> list[Any]:
    """Parse a multi-document YAML stream as kubectl would.

    Args:
        text: the stream.

    Returns:
        One Python object per document, ``None`` for empty documents.

    Raises:
        yaml.YAMLError: the text is not YAML, or a mapping repeats a key.
    """
    return list(yaml.load_all(text, Loader=KubeLoader))


def dump_yaml(obj: Any) -> str:
    """Emit one object as block-style YAML in the order its keys were inserted.

    JSON-shaped data (``dict``, ``list``, ``str``, ``int``, ``bool``, ``None``,
    every container appearing once) is turned into PyYAML's event stream
    directly and written by PyYAML's C emitter (libyaml; without it, by yaml.dump): the
    same text :func:`yaml.dump` with :class:`KubeDumper` writes, about four
    times faster, because PyYAML's representer and resolver (Python code run
    for every node) are skipped. Anything else (floats, other types, a
    container used twice, which PyYAML writes as an anchor) goes through
    :func:`yaml.dump` itself. ``tests/kube/test_yamlio.py`` compares the two.

    Args:
        obj: dicts, lists, str, int, float, bool and None.

    Returns:
        The YAML text ending in a newline; strings quoted as :class:`KubeDumper` decides,
        lines never folded.
    """
    try:
        return _emit(obj)
    except _NotJsonShaped:
        return _dump_represented(obj)


def _dump_represented(obj: Any) -> str:
    """:func:`dump_yaml` through PyYAML's representer (any data it can represent)."""
    return yaml.dump(obj, Dumper=KubeDumper, **_DUMP_OPTIONS)  # type: ignore[no-any-return]


_DUMP_OPTIONS: dict[str, Any] = {
    "default_flow_style": False,
    "sort_keys": False,
    "allow_unicode": True,
    "width": 2**31 - 1,
}
_EMITTER_OPTIONS: dict[str, Any] = {"allow_unicode": True, "width": 2**31 - 1}
""":data:`_DUMP_OPTIONS` that reach the emitter (the others are the representer's)."""
_STR = "tag:yaml.org,2002:str"


def _scalar(
    implicit: tuple[bool, bool], value: str, style: str | None = None
) -> yaml.ScalarEvent:
    """A scalar event as PyYAML's C emitter reads it fastest, writing what the serializer's would.

    No tag: every event here is implicit (plain or quoted, as a collection's), so
    libyaml neither writes nor reads the tag (``yaml_emitter_analyze_event``,
    ``yaml_emitter_select_scalar_style``) and the C emitter need not encode and
    copy it. The value is UTF-8 bytes, which PyYAML's C emitter takes as they are.
    """
    return yaml.ScalarEvent(None, None, implicit, value.encode(), style=style)  # type: ignore[arg-type]


_STREAM_START = yaml.StreamStartEvent()
_DOCUMENT_START = yaml.DocumentStartEvent(explicit=False)
_DOCUMENT_END = yaml.DocumentEndEvent(explicit=False)
_STREAM_END = yaml.StreamEndEvent()
_MAP_START = yaml.MappingStartEvent(None, None, True, flow_style=False)
_MAP_END = yaml.MappingEndEvent()
_SEQ_START = yaml.SequenceStartEvent(None, None, True, flow_style=False)
_SEQ_END = yaml.SequenceEndEvent()
_TRUE = _scalar((True, False), "true")
_FALSE = _scalar((True, False), "false")
_NULL = _scalar((True, False), "null")
_SCALAR_EVENTS: dict[str | int, yaml.ScalarEvent] = {}
"""Events of the strings and ints met so far (keys and common values repeat in every
object), keyed by the value. A ``str`` never equals an ``int``, and only values of
type exactly ``str`` or ``int`` are looked up: ``True`` never finds ``1``'s event."""
_SCALAR_EVENTS_MAX = 50_000
_CACHED_LENGTH_MAX = 128
"""Longer strings (and ints) are not kept: they seldom repeat, and the cap bounds what
the cache holds (each value and its UTF-8 copy, under 100 MB) whatever the input."""


class _NotJsonShaped(Exception):
    """The data holds something :func:`_emit` leaves to PyYAML's representer."""


def _string_event(value: str) -> yaml.ScalarEvent:
    """The event :class:`KubeDumper`'s representer and serializer make for a string (cached)."""
    implicit = (
        _RESOLVER.resolve(yaml.ScalarNode, value, (True, False)) == _STR,  # type: ignore[no-untyped-call]
        _RESOLVER.resolve(yaml.ScalarNode, value, (False, True)) == _STR,  # type: ignore[no-untyped-call]
    )
    event = _scalar(implicit, value, None if _plain(value) else '"')
    if len(value) <= _CACHED_LENGTH_MAX and len(_SCALAR_EVENTS) < _SCALAR_EVENTS_MAX:
        _SCALAR_EVENTS[value] = event
    return event


def _int_event(value: int) -> yaml.ScalarEvent:
    """The event :class:`KubeDumper` makes for an int (cached)."""
    text = str(value)
    event = _scalar((True, False), text)
    if len(text) <= _CACHED_LENGTH_MAX and len(_SCALAR_EVENTS) < _SCALAR_EVENTS_MAX:
        _SCALAR_EVENTS[value] = event
    return event


def _events(
    obj: Any, put: Callable[[yaml.Event], object], seen: set[int] | None
) -> None:
    """Pass the events of ``obj`` to ``put``, as KubeDumper's serializer would emit them.

    Strings, the most frequent nodes, are looked up in the loops. ``seen``: the ids of the
    containers met so far; one met twice (shared, or a cycle) raises :class:`_NotJsonShaped`;
    None when the caller knows ``obj`` is a tree (no container in it twice).
    """
    kind = type(obj)
    if kind is dict or kind is list:
        if seen is not None:
            if id(obj) in seen:  # PyYAML would write an anchor and an alias
                raise _NotJsonShaped
            seen.add(id(obj))
        cached = _SCALAR_EVENTS.get
        if kind is dict:
            put(_MAP_START)
            for key, value in obj.items():
                if type(key) is str:
                    put(cached(key) or _string_event(key))
                else:
                    _events(key, put, seen)
                if type(value) is str:
                    put(cached(value) or _string_event(value))
                else:
                    _events(value, put, seen)
            put(_MAP_END)
        else:
            put(_SEQ_START)
            for item in obj:
                if type(item) is str:
                    put(cached(item) or _string_event(item))
                else:
                    _events(item, put, seen)
            put(_SEQ_END)
    elif kind is str:
        put(_SCALAR_EVENTS.get(obj) or _string_event(obj))
    elif kind is int:
        put(_SCALAR_EVENTS.get(obj) or _int_event(obj))
    elif kind is bool:
        put(_TRUE if obj else _FALSE)
    elif obj is None:
        put(_NULL)
    else:
        raise _NotJsonShaped


_Emitter: type[Any] | None
try:  # pragma: no branch - the C classes ship in PyYAML's wheels
    _Emitter = yaml.cyaml.CEmitter  # type: ignore[attr-defined]
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Emitter = None  # its Python emitter does not take bytes values
"""PyYAML's C emitter alone (:class:`KubeDumper`'s representer and resolver serve no events)."""


def _emit(obj: Any) -> str:
    """:func:`dump_yaml` for JSON-shaped data, by events; raises _NotJsonShaped otherwise.

    The emitter is written to as the events are made; on _NotJsonShaped it is dropped.
    """
    if _Emitter is None:  # pragma: no cover - PyYAML built without libyaml
        raise _NotJsonShaped
    stream = io.StringIO()
    put = _Emitter(stream, **_EMITTER_OPTIONS).emit
    put(_STREAM_START)
    put(_DOCUMENT_START)
    _events(obj, put, set())
    put(_DOCUMENT_END)
    put(_STREAM_END)
    return stream.getvalue()


_NOT_YAML_SAFE = "[\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]"
"""What JSON leaves raw but YAML reads otherwise: C1 controls (NEL breaks a YAML 1.1
line), the line and paragraph separators, the BOM, surrogates, two non-characters."""


def _plain(text: str) -> bool:
    """Whether a string may be written without quotes (see :data:`_PLAIN_SAFE`)."""
    return _PLAIN_SAFE.fullmatch(text) is not None and text not in _YAML11_WORDS


def is_plain(text: str) -> bool:
    """Whether :func:`dump_flow` writes ``text`` without quotes (it then reads back as itself)."""
    return _plain(text)


def dump_flow(obj: Any) -> str:
    """Emit one value as a single-line YAML flow node, safe to embed after ``key: ``.

    A string is plain where :class:`KubeDumper` would write it plain; anything
    else is JSON (a subset of YAML's flow style), with the characters JSON
    leaves raw but YAML reads differently escaped. This runs for every template
    expression, so it uses the C JSON encoder rather than a YAML emitter; the
    tests read its output back through PyYAML and kubectl.

    Args:
        obj: a scalar, list or dict of JSON types.

    Returns:
        E.g. ``"yes"``, ``{"app": "twister2"}`` or ``["a", "1"]``, without a newline.

    Raises:
        TypeError: the value is not JSON data (or a float that is not finite).
    """
    if isinstance(obj, str) and _plain(obj):
        return obj
    try:
        text = json.dumps(obj, ensure_ascii=False, allow_nan=False)
    except ValueError as err:
        raise TypeError(str(err)) from None
    if not text.isascii() or "\x7f" in text:  # rare: ASCII needs no pattern
        text = re.sub(_NOT_YAML_SAFE, lambda match: f"\\u{ord(match[0]):04x}", text)
    return text
