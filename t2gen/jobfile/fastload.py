"""A fast reader for well-formed job files, with the exact meaning of the full reader.

:mod:`t2gen.jobfile.loader` reads job files with ruamel.yaml, which is pure Python and
keeps every node's position, so that errors can point at ``line:col``. Most job
files have no errors, and need neither. This module reads them with PyYAML's C
parser (about 20 times faster, and already imported for rendering) and builds
the data from its events, but only when the result is certain to equal what
ruamel's YAML 1.2 reading gives: any plain scalar that YAML 1.2 could read as
anything but a plain string, int, float, bool or null in their simplest
spellings, any anchor, alias, tag, merge key, duplicate key, second document,
deep nesting or YAML 1.1 line break makes it give up (return None), and the
caller falls back to the full reader, which also produces the error messages.
The tests compare both readers on generated files.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from t2gen.jobfile.source import MAX_DEPTH

__all__ = ["fast_load"]


# ruamel.yaml's YAML 1.2 implicit resolvers (ruamel/yaml/resolver.py), for
# plain scalars: a scalar they match is not a string there.
_BOOL_12 = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_FLOAT_12 = re.compile(
    r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
    |[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""",
    re.X,
)
_INT_12 = re.compile(
    r"^(?:[-+]?0b[0-1_]+|[-+]?0o?[0-7_]+|[-+]?[0-9_]+|[-+]?0x[0-9a-fA-F_]+)$"
)
_NULL_12 = re.compile(r"^(?:~|null|Null|NULL|)$")
_OTHER_12 = re.compile(r"^(?:<<|=)$")  # merge key and value: never in a job file

# The spellings both readers give the same value, by construction.
_SIMPLE_INT = re.compile(r"^-?(?:0|[1-9][0-9]*)$")
_SIMPLE_FLOAT = re.compile(r"^-?(?:0|[1-9][0-9]*)\.[0-9]+$")
_SIMPLE = {"true": True, "false": False, "null": None, "~": None, "": None}

# YAML 1.1 (PyYAML) breaks lines at these; YAML 1.2 (ruamel) does not.
_YAML11_BREAKS = re.compile("[\x85\u2028\u2029]")


class _GiveUp(Exception):
    """The fast reader cannot be sure to read the file as the full reader would."""


def _scalar(event: yaml.ScalarEvent) -> Any:
    if event.anchor is not None or event.tag is not None:
        raise _GiveUp
    value: str = event.value
    if (
        event.style
    ):  # quoted or block (plain is None or "", by parser): a string in both readers
        return value
    if value in _SIMPLE:
        return _SIMPLE[value]
    if _SIMPLE_INT.match(value):
        return int(value)
    if _SIMPLE_FLOAT.match(value):
        return float(value)
    if _BOOL_12.match(value) or _NULL_12.match(value) or _OTHER_12.match(value):
        raise _GiveUp
    if value[:1] in "-+.0123456789" and (
        _FLOAT_12.match(value) or _INT_12.match(value)
    ):
        raise _GiveUp
    return value  # a string, or a timestamp, which t2gen keeps as the string written


def fast_load(text: str) -> dict[str, Any] | None:
    """Read a job file's text quickly, or say it cannot.

    Args:
        text: the decoded job file.

    Returns:
        The document as plain data, equal to what :func:`t2gen.jobfile.loader.parse_config`
        gives; or None when the text needs the full reader (anything unusual,
        including every kind of error).
    """
    if _YAML11_BREAKS.search(text):
        return None
    try:
        return _build(yaml.parse(text, Loader=yaml.CSafeLoader))
    except (_GiveUp, yaml.YAMLError, ValueError, OverflowError, RecursionError):
        return None


def _build(events: Any) -> dict[str, Any] | None:
    stack: list[Any] = []  # open containers; a mapping holds [dict, pending key]
    root: Any = None
    documents = 0
    for event in events:
        if isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1 or (event.explicit and event.version is not None):
                raise _GiveUp
            continue
        if isinstance(
            event, (yaml.StreamStartEvent, yaml.StreamEndEvent, yaml.DocumentEndEvent)
        ):
            continue
        if isinstance(event, yaml.AliasEvent):
            raise _GiveUp
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            if (
                event.anchor is not None
                or not event.implicit
                or len(stack) >= MAX_DEPTH
            ):
                raise _GiveUp
            container: Any = (
                [{}, _NO_KEY] if isinstance(event, yaml.MappingStartEvent) else [[]]
            )
            stack.append(container)
            continue
        if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            value = stack.pop()[0]
        elif isinstance(event, yaml.ScalarEvent):
            value = _scalar(event)
        else:  # pragma: no cover - every event type is handled above
            raise _GiveUp
        if not stack:
            root = value
            continue
        parent = stack[-1]
        if len(parent) == 1:
            parent[0].append(value)
        elif parent[1] is _NO_KEY:
            if not isinstance(value, str) or value in parent[0]:
                raise _GiveUp  # a non-string or duplicate key: the full reader says so
            parent[1] = value
        else:
            parent[0][parent[1]] = value
            parent[1] = _NO_KEY
    return root if isinstance(root, dict) else None


_NO_KEY = object()
