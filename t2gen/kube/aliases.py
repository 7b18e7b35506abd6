"""YAML anchors and aliases in manifests: read as kubectl reads them, with its bound on expansion.

kubectl decodes manifests with go-yaml (``sigs.k8s.io/yaml``), which reads
anchors, aliases and ``<<`` merge keys, and refuses a document whose alias
expansion is out of proportion to it ("document contains excessive
aliasing": go-yaml ``decode.go``, ``allowedAliasRatio`` and ``unmarshal``). A
"billion laughs" of a few hundred bytes would otherwise expand to gigabytes
when built or walked.

t2gen applies the same rule before building a document, on the composed
graph, in time proportional to its distinct nodes (never to its expansion):
every node counts once per place it appears in the expanded document, and the
nodes reached through an alias are the alias-driven ones. A document is
refused when more than 100 of its more than 1,000 expanded nodes come from
aliases and their share exceeds go-yaml's allowed ratio (99% up to 400,000
nodes, falling to 10% at 4,000,000). A stream's alias-driven nodes are also
capped at :data:`MAX_ALIAS_NODES` (go-yaml's 400,000 "decode operations,
about 100 MB in the worst case"), so a stream of many small bombs is bounded too.
An alias of a node that contains itself is refused, as go-yaml does.
"""

from __future__ import annotations

from typing import Any

import yaml

__all__ = [
    "MAX_ALIAS_NODES",
    "BoundedAliases",
    "alias_expansion",
    "allowed_alias_ratio",
]

MAX_ALIAS_NODES = 400_000
"""The most nodes all of one stream's aliases may expand to (go-yaml's ``alias_ratio_range_low``)."""

_RANGE_LOW = 400_000
_RANGE_HIGH = 4_000_000


def allowed_alias_ratio(decodes: int) -> float:
    """go-yaml's ``allowedAliasRatio``: the share of a document's nodes aliases may supply.

    Args:
        decodes: the document's nodes, counted in its expansion.

    Returns:
        0.99 up to 400,000 nodes, 0.10 from 4,000,000, linear in between.
    """
    if decodes <= _RANGE_LOW:
        return 0.99
    if decodes >= _RANGE_HIGH:
        return 0.10
    return 0.99 - 0.89 * (decodes - _RANGE_LOW) / (_RANGE_HIGH - _RANGE_LOW)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [item for pair in node.value for item in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _error(message: str, node: yaml.Node) -> yaml.constructor.ConstructorError:
    return yaml.constructor.ConstructorError(None, None, message, node.start_mark)


def alias_expansion(root: yaml.Node) -> tuple[int, int]:
    """Count a composed document's nodes as its expansion has them, without expanding it.

    The first place a node appears (in document order) is its anchor; every
    later place is an alias, which counts one node for the alias and all of
    the anchored node's expanded nodes as alias-driven.

    Returns:
        ``(nodes, alias_nodes)`` of the expanded document.

    Raises:
        yaml.constructor.ConstructorError: an anchored node contains an alias of
            itself (located at the node).
    """
    total: dict[int, tuple[int, int]] = {}  # node id -> (nodes, alias nodes) expanded
    seen: set[int] = {id(root)}
    # A depth-first walk in document order; each frame is (node, its children, next index,
    # nodes so far, alias nodes so far).
    stack: list[list[Any]] = [[root, _children(root), 0, 1, 0]]
    while stack:
        frame = stack[-1]
        node, children, index = frame[0], frame[1], frame[2]
        if index == len(children):
            stack.pop()
            total[id(node)] = (frame[3], frame[4])
            if stack:
                stack[-1][3] += frame[3]
                stack[-1][4] += frame[4]
            continue
        frame[2] += 1
        child = children[index]
        if id(child) not in seen:
            seen.add(id(child))
            stack.append([child, _children(child), 0, 1, 0])
            continue
        done = total.get(id(child))
        if done is None:  # an alias inside its own anchor
            raise _error(
                "found an alias (*name) inside the node it names; its expansion would never end",
                child,
            )
        frame[3] += 1 + done[0]
        frame[4] += done[0]
    return total[id(root)]


class BoundedAliases:
    """A loader mixin: each document's alias expansion is bounded before it is built.

    The loader's stream-wide count of alias-driven nodes is ``alias_nodes``.
    """

    alias_nodes = 0

    def construct_document(self, node: yaml.Node) -> Any:
        """Bound the document's aliases (go-yaml's rule and the stream's cap), then build it.

        Raises:
            yaml.constructor.ConstructorError: excessive aliasing, located at
                the document's start.
        """
        nodes, aliased = alias_expansion(node)
        if (
            aliased > 100
            and nodes > 1000
            and aliased / nodes > allowed_alias_ratio(nodes)
        ):
            raise _error(
                f"document contains excessive aliasing: {aliased:,} of its {nodes:,} nodes come "
                "from aliases (kubectl refuses it too); write the values out",
                node,
            )
        self.alias_nodes += aliased
        if self.alias_nodes > MAX_ALIAS_NODES:
            raise _error(
                f"the stream's aliases expand to more than {MAX_ALIAS_NODES:,} nodes; "
                "write the values out, or split the stream",
                node,
            )
        return super().construct_document(node)  # type: ignore[misc]
