"""Manifests with YAML anchors, aliases or ``<<`` merge keys, read as kubectl reads them.

kubectl reads them (go-yaml), so ``t2gen check`` does too, for anyone's YAML
(docs/untrusted-input.md). The bounded event reader
(:class:`t2gen.kube.yamlread.BoundedReader`) builds no alias; it stops at the
first one (or merge key) and the stream is read here instead, within the same
bounds and go-yaml's bound on alias expansion, in three steps, each before the
next builds anything:

1. libyaml's events are counted over the whole stream, aliases included, as
   the bounded reader counts them: depth, values and integer digits of
   :data:`~t2gen.kube.yamlread.MANIFEST_BOUNDS`, each a located error;
2. the composed documents are built by :class:`t2gen.kube.yamlio.KubeLoader`,
   whose :class:`~t2gen.kube.aliases.BoundedAliases` refuses a document whose
   aliases supply too large a share of its nodes ("excessive aliasing",
   go-yaml ``decode.go``) and caps a stream's alias-driven nodes;
3. the built objects, walked as their aliases expand them (bounded by step 2),
   may nest no deeper than the bound either: an alias can put a deep value
   inside another, and every check walks objects by recursion.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    CollectionEndEvent,
    CollectionStartEvent,
    ScalarEvent,
)

from t2gen.kube.yamlbounds import (
    LocatedDocument,
    ReadBounds,
    TooManyObjects,
    YamlLimitError,
)
from t2gen.kube.yamlio import KubeLoader

__all__ = ["load_with_aliases"]

_DIGITS = frozenset("0123456789_")


def _check_events(text: str, bounds: ReadBounds) -> None:
    """Step 1: depth, values and integer digits over every event of ``text``."""
    depth = values = 0
    limit = bounds.nodes
    loader = KubeLoader(text)
    try:
        while not loader.check_event(yaml.StreamEndEvent):
            event = loader.get_event()
            if isinstance(event, (ScalarEvent, AliasEvent, CollectionStartEvent)):
                values += 1
                if limit is not None and values > limit:
                    raise YamlLimitError(
                        event.start_mark,
                        f"more than {limit:,} values (scalars, lists and mappings) in "
                        f"{bounds.what}; t2gen reads at most that many: {bounds.advice}",
                    )
            if isinstance(event, CollectionStartEvent):
                depth += 1
                if depth > bounds.depth:
                    raise YamlLimitError(event.start_mark, _too_deep(bounds))
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
            elif (
                isinstance(event, ScalarEvent)
                and event.implicit[0]
                and len(event.value) > bounds.int_digits
                and set(event.value.lstrip("+-")) <= _DIGITS
            ):
                raise YamlLimitError(
                    event.start_mark,
                    f"an integer of more than {bounds.int_digits:,} digits; no Kubernetes "
                    "field takes one",
                )
    finally:
        loader.dispose()


def _too_deep(bounds: ReadBounds) -> str:
    return (
        f"lists or mappings nested more than {bounds.depth} deep; t2gen reads "
        f"{bounds.what} at most {bounds.depth} levels deep"
    )


def _expanded_depth(value: Any, bounds: ReadBounds) -> bool:
    """Step 3: whether ``value`` nests, as its aliases expand it, within ``bounds.depth``."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth >= bounds.depth:
            return False
        stack.extend((child, depth + 1) for child in children)
    return True


def _is_list(node: yaml.Node) -> bool:
    return isinstance(node, yaml.MappingNode) and any(
        isinstance(k, yaml.ScalarNode)
        and k.value == "items"
        and isinstance(v, yaml.SequenceNode)
        for k, v in node.value
    )


def _item_lines(node: yaml.Node) -> tuple[int, ...]:
    if not isinstance(node, yaml.MappingNode):
        return ()
    for key, value in node.value:
        if (
            isinstance(key, yaml.ScalarNode)
            and key.value == "items"
            and isinstance(value, yaml.SequenceNode)
        ):
            return tuple(item.start_mark.line + 1 for item in value.value)
    return ()


def load_with_aliases(
    text: str, bounds: ReadBounds, max_objects: int | None = None
) -> list[LocatedDocument]:
    """Read a manifest stream that uses anchors, aliases or merge keys (see the module docstring).

    Args:
        text: the stream.
        bounds: what it may hold (:data:`~t2gen.kube.yamlread.MANIFEST_BOUNDS`).
        max_objects: when given, the most objects read (documents, and the
            items of a ``List``), counted before a document is built.

    Returns:
        One :class:`~t2gen.kube.yamlbounds.LocatedDocument` per document.

    Raises:
        YamlLimitError: a bound is passed, located.
        yaml.YAMLError: not YAML, a repeated key, or excessive aliasing (located).
        TooManyObjects: more than ``max_objects`` objects.
    """
    _check_events(text, bounds)
    loader = KubeLoader(text)
    documents = []
    count = 0
    try:
        while loader.check_node():
            node = loader.get_node()
            lines = _item_lines(node)
            if max_objects is not None:
                listed = _is_list(node)
                count += len(lines) if listed else 1
                if count > max_objects:
                    over = count - max_objects
                    raise TooManyObjects(
                        lines[len(lines) - over] if listed else node.start_mark.line + 1
                    )
            data = loader.construct_document(node)
            if not _expanded_depth(data, bounds):
                raise YamlLimitError(
                    node.start_mark, _too_deep(bounds) + " (with its aliases expanded)"
                )
            documents.append(LocatedDocument(data, node.start_mark.line + 1, lines))
    finally:
        loader.dispose()
    return documents
