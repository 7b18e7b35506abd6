"""A fast reader for well-formed job files, with the exact meaning of the full reader.

:mod:`t2gen.inputs.yaml.loader` reads job files with ruamel.yaml, which is pure Python and
keeps every node's position, so that errors can point at ``line:col``. Most job
files have no errors, and need neither. This module reads them with PyYAML's C
parser (about 20 times faster, and already imported for rendering) and builds
the data from its events, but only when the result is certain to equal what
ruamel's YAML 1.2 reading gives: any plain scalar that YAML 1.2 could read as
anything but a plain string, int, float, bool or null in spellings whose
meaning it knows, a merge key, a tag it does not know the full reader's
reading of (``!!timestamp``, ``!!omap``, ``!!int 0x1F``), a tag and an anchor
on one node, or deep nesting makes it give up (return None), and the caller
falls back to the full reader, which also produces the error messages. YAML's
own tags it reads as the full reader does (``!!str 5`` is "5", ``!!int "5"``
is 5, ``!!map`` and ``!!seq`` change nothing). What the full reader refuses in
its own words, and which a flood may end in or hold (a YAML 1.1 line break,
U+0085, U+2028 or U+2029, anywhere: :func:`t2gen.inputs.yaml.source.check_line_breaks`;
anchors, aliases, floods, a duplicate key, a non-string or tagged key, a local
tag such as ``!custom`` or an unknown one such as ``!!foo``, ``!!binary`` and
``!!set`` values, ``!!int x``, an integer of too many digits, a second
document), this reader refuses itself, with the same message at the same
place and in the same order, so that a large file holding one is judged as
fast as one without (``bench/floods.py``).
The tests compare both readers on generated files.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from t2gen.errors import ConfigError
from t2gen.inputs.yaml.loader import JsonPath, SourceDoc
from t2gen.inputs.yaml.plainscalars import (
    LOCAL_TAG,
    MAP_TAG,
    SEQ_TAG,
    SET_TAG,
    GiveUp,
    Mismatch,
    NotAllowed,
    TooLong,
    is_key_tag,
    scalar,
    tag_message,
    tagged_key_message,
    tagged_scalar,
)
from t2gen.inputs.yaml.source import (
    MAX_DEPTH,
    MAX_ENTRIES,
    MAX_NODES,
    check_conflict_markers,
    check_line_breaks,
    entries_message,
    int_message,
    locate_empty_values,
    nodes_message,
)
from t2gen.inputs.yaml.yaml12 import (
    ALIAS_MESSAGE,
    ANCHOR_MESSAGE,
    check_directives,
    key_type_message,
    kind_message,
    second_document_line,
    yaml_error,
)

__all__ = ["fast_load", "fast_load_doc"]


class _SecondDocument(Exception):
    """The file holds a second document, and nothing before its end is refused first."""


def fast_load(text: str) -> dict[str, Any] | None:
    """Read a job file's text quickly, or say it cannot.

    Args:
        text: the decoded job file.

    Returns:
        The document as plain data, equal to what :func:`t2gen.inputs.yaml.loader.parse_config`
        gives; or None when the text needs the full reader (anything unusual,
        including every kind of error).
    """
    try:
        doc = fast_load_doc(text, path="<string>")
    except ConfigError:
        return None
    return None if doc is None else doc.data


def fast_load_doc(text: str, *, path: str) -> SourceDoc | None:
    """Read a job file's text quickly, with the position of every node, or say it cannot.

    The positions are those :func:`t2gen.inputs.yaml.loader.parse_config` records
    (libyaml's marks count lines and characters as ruamel.yaml's do), so that
    problems in a well-formed but invalid file are located without the slow
    full reader.

    Args:
        text: the decoded job file.
        path: the file as the user named it, for errors.

    Returns:
        The parsed document, equal to what :func:`t2gen.inputs.yaml.loader.parse_config`
        gives; or None when the text needs the full reader.

    Raises:
        ConfigError: a list or mapping of more than :data:`~t2gen.inputs.yaml.source.MAX_ENTRIES`
            entries, or more than :data:`~t2gen.inputs.yaml.source.MAX_NODES` values (a
            flood): reading stops there, as the full reader's does. Also what
            the full reader refuses alike: a YAML 1.1 line break, an anchor or
            alias, a duplicate or non-string key, a local tag, a too-long
            integer, a second document.
    """
    check_conflict_markers(text, path)
    check_directives(text, path)  # as the full reader does first
    check_line_breaks(text, path)
    positions: dict[JsonPath, tuple[int, int]] = {(): (1, 1)}
    key_positions: dict[JsonPath, tuple[int, int]] = {}
    seen = [0]  # values read so far
    try:
        # yaml.parse's loop without its generator: get_event gives None after
        # the stream's end, where check_event would say False.
        parser = yaml.CSafeLoader(text)
        try:
            data = _build(iter(parser.get_event, None), positions, key_positions, seen)
        finally:
            parser.dispose()
    except _Flood as flood:
        raise ConfigError(
            path=path, line=flood.line, col=flood.col, message=flood.message
        ) from None
    except _SecondDocument:
        raise ConfigError(
            path=path,
            line=second_document_line(text),
            col=1,
            message="more than one YAML document; a job file holds exactly one job",
        ) from None
    except yaml.MarkedYAMLError as err:
        if (
            seen[0] > _REREAD_NODES
            and err.problem_mark is not None
            and "escape" not in str(err.problem)  # "\ud83d\ude00": ruamel.yaml reads it
        ):
            # ruamel.yaml would read every value before the error again, slowly;
            # libyaml's error has the same marks (its wording is libyaml's).
            raise yaml_error(path, err, text) from None
        return None
    except (GiveUp, yaml.YAMLError, ValueError, OverflowError, RecursionError):
        return None
    if data is None:
        return None
    locate_empty_values(data, positions, key_positions, text)
    return SourceDoc(
        path=path,
        data=data,
        positions=positions,
        key_positions=key_positions,
        text=text,
    )


_REREAD_NODES = 2000
"""Past this many values, a YAML syntax error is reported from libyaml, not read again by ruamel.yaml."""


class _Flood(Exception):
    """What the full reader refuses too (a flood, an anchor or alias), at a 1-based position."""

    def __init__(self, line: int, col: int, message: str) -> None:
        self.line, self.col, self.message = line, col, message
        super().__init__(message)


def _build(
    events: Any,
    positions: dict[JsonPath, tuple[int, int]],
    key_positions: dict[JsonPath, tuple[int, int]],
    seen: list[int],
) -> dict[str, Any] | None:
    # Open containers: [dict or list, pending key (_NO_KEY) or _LIST, path, (line, col)].
    stack: list[list[Any]] = []
    root: Any = None
    documents = 0
    nodes = 0
    # Refused while the full reader constructs a document (in document order; a
    # duplicate key once its whole value is read), then (only in the first
    # document) while it converts it to plain data (in document order).
    construction: list[tuple[tuple[int, int], tuple[int, int], str]] = []
    pending: dict[int, tuple[tuple[int, int], str]] = {}  # duplicate key, by frame id
    duplicates = 0
    tagged_collection = False
    conversion: tuple[tuple[int, int], str] | None = None
    # The C parser's events are of these exact classes; any other (a subclass)
    # is given up on, for the full reader.
    for event in events:
        event_class = type(event)
        if event_class is _MAPPING_END or event_class is _SEQUENCE_END:
            value = stack.pop()[0]
        elif event_class not in _NODE_EVENTS:
            if event_class is yaml.DocumentStartEvent:
                documents += 1
                if event.tags or event.version not in (None, (1, 2)):
                    raise GiveUp
            elif event_class is yaml.DocumentEndEvent:
                if construction:
                    if tagged_collection:
                        raise GiveUp  # constructed depth first there: another order
                    _order, (line, col), message = min(construction)
                    raise _Flood(line, col, message)
                if documents > 1:
                    raise _SecondDocument
            elif (
                event_class is not yaml.StreamStartEvent
                and event_class is not yaml.StreamEndEvent
            ):
                raise GiveUp
            continue
        else:
            nodes += 1
            seen[0] = nodes
            mark = event.start_mark
            here = (mark.line + 1, mark.column + 1)
            # As the full reader's composer: aliases and anchors are refused where they are.
            if event_class is yaml.AliasEvent:
                raise _Flood(here[0], here[1], ALIAS_MESSAGE)
            if event.anchor is not None:
                if getattr(event, "tag", None) is not None:
                    raise GiveUp  # the full reader locates the anchor, which may come second
                raise _Flood(here[0], here[1], ANCHOR_MESSAGE)
            if nodes > MAX_NODES:
                raise _Flood(here[0], here[1], nodes_message())
            where: JsonPath = ()
            is_key = False
            if stack:
                parent = stack[-1]
                if len(parent[0]) >= MAX_ENTRIES:
                    kind = "list" if parent[1] is _LIST else "mapping"
                    line, col = parent[3]
                    raise _Flood(line, col, entries_message(kind))
                if parent[1] is _LIST:
                    where = (*parent[2], len(parent[0]))
                elif parent[1] is _NO_KEY:
                    is_key = True
                else:
                    where = (*parent[2], parent[1])
            if event_class is _SCALAR:
                tag = event.tag
                if tag is not None and is_key and is_key_tag(tag):
                    # The full reader reads the key as a tagged scalar, not a
                    # string, and refuses it after every duplicate key.
                    if conversion is None:
                        conversion = (here, tagged_key_message(tag))
                    value = None  # a stand-in; the job is refused
                elif tag is not None and not is_key and re.match(LOCAL_TAG, tag):
                    if conversion is None:
                        conversion = (here, tag_message(tag))
                    value = tag  # a stand-in; the job is refused
                elif (
                    not is_key
                    and tag is None
                    and not event.style
                    and event.value == "<<"
                ):
                    value = "<<"  # a string as a value (a merge key only as a key)
                else:
                    try:
                        value = (
                            scalar(event)
                            if tag is None or is_key
                            else tagged_scalar(event)
                        )
                    except TooLong as long:
                        if is_key:
                            raise GiveUp from None
                        construction.append(
                            ((nodes, 0), here, int_message(long.digits))
                        )
                        value = 0  # a stand-in; the job is refused
                    except Mismatch as mismatch:
                        construction.append(((nodes, 0), here, str(mismatch)))
                        value = None  # a stand-in; the job is refused
                    except NotAllowed as refused:
                        if conversion is None:
                            conversion = (here, kind_message(refused.kind))
                        value = None  # a stand-in; the job is refused
                if is_key:
                    if tag is not None:
                        value = f"\x00{nodes}"  # a stand-in, equal to no other key
                    elif not isinstance(value, str):
                        # Refused after every duplicate key, as the full reader does.
                        if conversion is None:
                            conversion = (
                                here,
                                key_type_message(value),
                            )
                        value = f"\x00{nodes}"  # a stand-in; the job is refused
                    elif value in stack[-1][0]:
                        duplicates += 1
                        if duplicates > 1 or '"' in value:
                            raise GiveUp  # the full reader says which comes first
                        start = stack[-1][3]
                        # Checked once the value is read (see the assignment below).
                        pending[id(stack[-1])] = (
                            here,
                            f"duplicate key {value!r}; each key may appear once in a mapping "
                            f"(while constructing a mapping started at {start[0]}:{start[1]})",
                        )
                    stack[-1][1] = value
                    key_path: JsonPath = (*stack[-1][2], value)
                    key_positions[key_path] = here
                    continue
                if where:
                    positions[where] = here
            else:  # the start of a mapping or list
                tag = event.tag
                is_map = event_class is yaml.MappingStartEvent
                if tag is not None and re.match(LOCAL_TAG, tag) and not is_key:
                    tagged_collection = True
                    if conversion is None:
                        conversion = (here, tag_message(tag))
                elif tag == SET_TAG and is_map and not is_key:
                    tagged_collection = True
                    if conversion is None:
                        conversion = (here, kind_message("!!set"))
                elif is_key or not (
                    event.implicit or tag == (MAP_TAG if is_map else SEQ_TAG)
                ):
                    raise GiveUp  # !!map and !!seq, where they are, change nothing
                if len(stack) >= MAX_DEPTH:
                    raise GiveUp
                if where:
                    positions[where] = here
                stack.append(
                    [{}, _NO_KEY, where, here] if is_map else [[], _LIST, where, here]
                )
                continue
        if not stack:
            if documents == 1:
                root = value
            continue
        parent = stack[-1]
        if parent[1] is _LIST:
            parent[0].append(value)
        else:
            if pending and id(parent) in pending:
                where_dup, message = pending.pop(id(parent))
                construction.append(((nodes, 1), where_dup, message))
            parent[0][parent[1]] = value
            parent[1] = _NO_KEY
    if conversion is not None and isinstance(root, dict):
        # (The full reader says first that a list or scalar is not a job.)
        (line, col), message = conversion
        raise _Flood(line, col, message)
    return root if isinstance(root, dict) else None


_NO_KEY = object()
_LIST = object()
_MAPPING_END = yaml.MappingEndEvent
_SEQUENCE_END = yaml.SequenceEndEvent
_SCALAR = yaml.ScalarEvent
_NODE_EVENTS = frozenset(
    (yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent, yaml.AliasEvent)
)
"""The events of a node (the others open or close the stream or a document, or close a node)."""
