"""YAML aliases in manifests: refused before any document is built."""

from __future__ import annotations

from typing import Any

import yaml

__all__ = ["NoAliases", "refuse_aliases"]


def refuse_aliases(root: yaml.Node) -> None:
    """Raise when a composed document uses an alias (``*name``) anywhere.

    An alias makes a node appear twice in the composed graph; a 700-byte
    "billion laughs" of nine levels of aliases expands to gigabytes when built
    or walked. Kubernetes manifests never need one (kubectl writes none), so
    t2gen refuses them all, before building anything: the walk visits each
    distinct node once and stops at the first one reached twice.

    Raises:
        yaml.constructor.ConstructorError: located at the anchored node.
    """
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                "found an alias (*name) of this anchored node; t2gen reads no YAML anchors "
                "or aliases, as a few hundred bytes of them can expand to gigabytes: "
                "write the value out",
                node.start_mark,
            )
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in reversed(node.value):
                stack += [value, key]
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(reversed(node.value))


class NoAliases:
    """A loader mixin: every document is checked by :func:`refuse_aliases` before it is built."""

    def construct_document(self, node: yaml.Node) -> Any:
        """Refuse aliases, then build the document as the loader does."""
        refuse_aliases(node)
        return super().construct_document(node)  # type: ignore[misc]
