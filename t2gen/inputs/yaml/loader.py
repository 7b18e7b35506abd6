"""The full reader: job-file text (YAML 1.2 or JSON) into plain data plus the position of every node.

ruamel.yaml reads anything and words every YAML error; :func:`t2gen.inputs.yaml.read_job`
uses it where the fast reader (:mod:`t2gen.inputs.yaml.fastload`) is unsure.
Reading the bytes and decoding them is :mod:`t2gen.inputs.textfile`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

from t2gen.errors import ConfigError
from t2gen.inputs.textfile import line_col
from t2gen.inputs.yaml.source import (
    MAX_DEPTH,
    MAX_ENTRIES,
    MAX_NODES,
    check_conflict_markers,
    check_line_breaks,
    entries_message,
    locate_empty_values,
    nodes_message,
)
from t2gen.inputs.yaml.yaml12 import (
    ALIAS_MESSAGE,
    ANCHOR_MESSAGE,
    JsonPath,
    Refused,
    bad_escape_position,
    check_directives,
    construct_bool,
    construct_float,
    construct_int,
    depth_message,
    directive_message,
    directive_position,
    error_at,
    join_surrogates,
    key_tag_message,
    key_type_message,
    kind_message,
    second_document_line,
    yaml_error,
)
from t2gen.record import Record

__all__ = ["JsonPath", "SourceDoc", "parse_config"]


class SourceDoc(Record):
    """A parsed job file.

    Attributes:
        path: the file as the user named it (``-`` for standard input).
        data: plain Python data: dict, list, str, int, float, bool, None.
        positions: 1-based (line, col) of each node's value, by JSON path.
        key_positions: 1-based (line, col) of each mapping key, by the key's JSON path.
        text: the decoded text it was read from.
    """

    path: str
    data: Any
    positions: dict[JsonPath, tuple[int, int]]
    key_positions: dict[JsonPath, tuple[int, int]]
    text: str

    def position(self, path: JsonPath, *, key: bool = False) -> tuple[int, int]:
        """Return the (line, col) of ``path``, or of its nearest ancestor that has one.

        Args:
            path: the JSON path of a node.
            key: prefer the position of the mapping key over that of its value.

        Returns:
            1-based line and column; ``(1, 1)`` when nothing better is known.
        """
        probe = path
        while True:
            if key and probe in self.key_positions:
                return self.key_positions[probe]
            if probe in self.positions:
                return self.positions[probe]
            if probe in self.key_positions:
                return self.key_positions[probe]
            if not probe:
                return (1, 1)
            probe = probe[:-1]


@functools.cache
def _ruamel() -> Any:
    """Import ruamel.yaml on first use and build the strict composer.

    The composer refuses aliases and anchors, a ``%YAML`` directive for any
    version but 1.2, and limits nesting depth, entries per list or mapping
    (:data:`~t2gen.inputs.yaml.source.MAX_ENTRIES`) and values per file
    (:data:`~t2gen.inputs.yaml.source.MAX_NODES`). Aliases make a small file expand
    into a huge one ("billion laughs"); a job file never needs them, so they are
    refused before anything is built.
    """
    from ruamel.yaml import YAML, comments, error, events, nodes, reader
    from ruamel.yaml.composer import Composer

    class StrictComposer(Composer):
        def compose_document(self) -> Any:
            event = self.parser.peek_event()
            version = getattr(event, "version", None)
            if version is not None and tuple(version) != (1, 2):
                raise Refused(
                    event.start_mark,
                    directive_message(".".join(str(part) for part in version)),
                    directive=True,
                )
            return super().compose_document()

        def compose_node(self, parent: Any, index: Any) -> Any:
            event = self.parser.peek_event()
            self._t2gen_nodes = getattr(self, "_t2gen_nodes", 0) + 1
            if self._t2gen_nodes > MAX_NODES:
                raise Refused(event.start_mark, nodes_message())
            if parent is not None and len(parent.value) >= MAX_ENTRIES:
                kind = "list" if isinstance(parent, nodes.SequenceNode) else "mapping"
                raise Refused(parent.start_mark, entries_message(kind))
            if isinstance(event, events.AliasEvent):
                raise Refused(event.start_mark, ALIAS_MESSAGE)
            if getattr(event, "anchor", None):
                raise Refused(event.start_mark, ANCHOR_MESSAGE)
            if isinstance(event, events.CollectionStartEvent):
                self._t2gen_depth = getattr(self, "_t2gen_depth", 0) + 1
                if self._t2gen_depth > MAX_DEPTH:
                    raise Refused(event.start_mark, depth_message())
                try:
                    return super().compose_node(parent, index)
                finally:
                    self._t2gen_depth -= 1
            return super().compose_node(parent, index)

    return SimpleNamespace(
        YAML=YAML,
        StrictComposer=StrictComposer,
        CommentedMap=comments.CommentedMap,
        CommentedSeq=comments.CommentedSeq,
        CommentedSet=comments.CommentedSet,
        CommentedOrderedMap=comments.CommentedOrderedMap,
        TaggedScalar=comments.TaggedScalar,
        MarkedYAMLError=error.MarkedYAMLError,
        YAMLError=error.YAMLError,
        ReaderError=reader.ReaderError,
    )


def _make_yaml() -> Any:
    """Return a round-trip YAML 1.2 reader that keeps positions and rejects duplicate keys."""
    ruamel = _ruamel()
    yaml_reader = ruamel.YAML(typ="rt")
    yaml_reader.Composer = ruamel.StrictComposer
    yaml_reader.allow_duplicate_keys = False
    # Timestamps stay the strings the user wrote (check-jsonschema does the same).
    yaml_reader.constructor.add_constructor(
        "tag:yaml.org,2002:timestamp",
        lambda loader, node: loader.construct_scalar(node),
    )
    yaml_reader.constructor.add_constructor("tag:yaml.org,2002:int", construct_int)
    yaml_reader.constructor.add_constructor("tag:yaml.org,2002:float", construct_float)
    yaml_reader.constructor.add_constructor("tag:yaml.org,2002:bool", construct_bool)
    # A plain `=` or `<<` value is the string it looks like in YAML 1.2's core
    # schema; ruamel.yaml resolves them to YAML 1.1's !!value and !!merge.
    # (A `<<` key is still a merge key, refused in _plain.)
    for tag in ("tag:yaml.org,2002:value", "tag:yaml.org,2002:merge"):
        yaml_reader.constructor.add_constructor(
            tag, lambda loader, node: loader.construct_scalar(node)
        )
    return yaml_reader


def parse_config(text: str, *, path: str = "<string>") -> SourceDoc:
    """Parse job-file text with ruamel.yaml (the full reader of :func:`t2gen.inputs.yaml.read_job`).

    Raises:
        ConfigError: not YAML, empty, several documents, aliases or anchors,
            explicit tags, or nested too deep.
    """
    check_conflict_markers(text, path)
    check_directives(text, path)
    check_line_breaks(text, path)
    ruamel = _ruamel()
    reader = _make_yaml()
    try:
        documents = list(_first_two(reader.load_all(text)))
    except Refused as err:
        line, col = err.mark.line + 1, err.mark.column + 1
        if err.directive:
            line, col = directive_position(text)
        raise ConfigError(path=path, line=line, col=col, message=str(err)) from None
    except ruamel.MarkedYAMLError as err:
        raise yaml_error(path, err, text) from None
    except ruamel.ReaderError as err:
        line, col = line_col(text, err.position)
        character = (
            err.character if isinstance(err.character, str) else chr(err.character)
        )
        raise ConfigError(
            path=path,
            line=line,
            col=col,
            message=f"character U+{ord(character):04X} is not allowed in YAML; remove it or write it as an escape in a double-quoted string",
        ) from None
    except ruamel.YAMLError as err:
        raise ConfigError(
            path=path, line=1, col=1, message=f"not valid YAML: {err}"
        ) from None
    except RecursionError:  # pragma: no cover - the composer's depth limit comes first
        raise ConfigError(
            path=path, line=1, col=1, message="nesting too deep"
        ) from None
    except (ValueError, OverflowError):
        # ruamel.yaml lets chr() fail on a \U escape beyond U+10FFFF.
        line, col = bad_escape_position(text)
        raise ConfigError(
            path=path,
            line=line,
            col=col,
            message="not valid YAML: an escape in a double-quoted string names no Unicode character "
            "(\\U escapes go up to \\U0010FFFF)",
        ) from None
    if len(documents) > 1:
        raise ConfigError(
            path=path,
            line=second_document_line(text),
            col=1,
            message="more than one YAML document; a job file holds exactly one job",
        )
    if not documents or documents[0] is None:
        raise ConfigError(
            path=path, line=1, col=1, message="empty job file; start from `t2gen init`"
        )
    root = documents[0]
    if not isinstance(root, ruamel.CommentedMap):
        kind = "a list" if isinstance(root, ruamel.CommentedSeq) else "a single value"
        raise ConfigError(
            path=path,
            line=1,
            col=1,
            message=f"the job file is {kind}, not a mapping; it must start with `apiVersion: t2gen/v1`",
        )
    positions: dict[JsonPath, tuple[int, int]] = {(): (1, 1)}
    key_positions: dict[JsonPath, tuple[int, int]] = {}
    data = _plain(root, (), positions, key_positions, path)
    locate_empty_values(data, positions, key_positions, text)
    return SourceDoc(
        path=path,
        data=data,
        positions=positions,
        key_positions=key_positions,
        text=text,
    )


def _first_two(documents: Iterator[Any]) -> Iterator[Any]:
    """Yield at most two documents, so a long stream is not parsed to its end."""
    for count, document in enumerate(documents):
        yield document
        if count == 1:
            return


def _plain(
    node: Any,
    where: JsonPath,
    positions: dict[JsonPath, tuple[int, int]],
    key_positions: dict[JsonPath, tuple[int, int]],
    path: str,
) -> Any:
    """Convert ruamel's round-trip nodes to plain data, recording positions."""
    ruamel = _ruamel()
    kinds: dict[type, str] = {
        ruamel.CommentedSet: "!!set",
        ruamel.CommentedOrderedMap: "!!omap",  # a CommentedMap, without key positions
        bytes: "!!binary",
    }
    if type(node) in kinds:
        raise error_at(path, positions, where, kind_message(kinds[type(node)]))
    if isinstance(node, ruamel.CommentedMap):
        _reject_tag(node, where, positions, path)
        if getattr(node, "merge", None):
            raise error_at(
                path,
                positions,
                where,
                "YAML merge keys (<<) are not allowed in a job file; write the keys out",
            )
        out: dict[str, Any] = {}
        for key, value in node.items():
            line_data = node.lc.data.get(key)
            if not isinstance(key, str):
                line, col = (
                    (line_data[0] + 1, line_data[1] + 1)
                    if line_data
                    else positions.get(where, (1, 1))
                )
                tag = _tag_of(key)
                raise ConfigError(
                    path=path,
                    line=line,
                    col=col,
                    message=key_tag_message(tag)
                    if isinstance(key, ruamel.TaggedScalar) and tag
                    else key_type_message(key),
                )
            written: JsonPath = (*where, key)
            if line_data:
                key_positions[written] = (line_data[0] + 1, line_data[1] + 1)
            key = join_surrogates(key, path, key_positions, written)
            child = (*where, key)
            if line_data:
                key_positions[child] = (line_data[0] + 1, line_data[1] + 1)
                positions[child] = (line_data[2] + 1, line_data[3] + 1)
            out[key] = _plain(value, child, positions, key_positions, path)
        return out
    if isinstance(node, ruamel.CommentedSeq):
        _reject_tag(node, where, positions, path)
        items: list[Any] = []
        for index, value in enumerate(node):
            child = (*where, index)
            line_data = node.lc.data.get(index)
            if line_data:
                positions[child] = (line_data[0] + 1, line_data[1] + 1)
            items.append(_plain(value, child, positions, key_positions, path))
        return items
    if node is None or isinstance(node, bool):
        return node
    tag = _tag_of(node)
    if isinstance(node, ruamel.TaggedScalar):
        if tag == "!!str":
            return str(node.value)
        raise error_at(
            path, positions, where, f"YAML tag {tag} is not allowed here; remove it"
        )
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return join_surrogates(str(node), path, positions, where)
    kind = "!!pairs" if isinstance(node, list) else (_tag_of(node) or "these")
    raise error_at(path, positions, where, kind_message(kind))


def _tag_of(node: Any) -> str | None:
    """A node's explicit tag in short form (``!!str``, ``!custom``), or None."""
    tag = getattr(node, "tag", None)
    value = getattr(tag, "value", None) if tag is not None else None
    if not value:
        return None
    return (
        "!!" + value.removeprefix("tag:yaml.org,2002:")
        if value.startswith("tag:yaml.org,2002:")
        else str(value)
    )


def _reject_tag(
    node: Any, where: JsonPath, positions: dict[JsonPath, tuple[int, int]], path: str
) -> None:
    """Refuse explicit tags such as ``!custom`` on collections (``!!map``/``!!seq`` are fine)."""
    value = _tag_of(node)
    if value and value not in ("!!map", "!!seq"):
        raise error_at(
            path, positions, where, f"YAML tag {value} is not allowed here; remove it"
        )
