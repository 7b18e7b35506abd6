"""Twister2's configuration files as Twister2 reads them: YAML 1.1 booleans included.

Twister2 loads every configuration file with SnakeYAML (``new Yaml()``,
DSC-SPIDAL/twister2 ``twister2/common/src/java/edu/iu/dsc/tws/common/config/ConfigReader.java:74,99``;
SnakeYAML 1.15, ``t2_workspace_defs.bzl:126``), whose resolver makes a plain
(unquoted) ``yes``, ``no``, ``on`` or ``off`` a boolean, as ``true`` and
``false`` (``Resolver.BOOL``, snakeyaml/snakeyaml
``src/main/java/org/yaml/snakeyaml/resolver/Resolver.java``). t2gen's job files
are YAML 1.2, where they are strings; the importer reads a Twister2 file
first as t2gen reads YAML (bounded, located) and then gives those plain
scalars the meaning SnakeYAML gives them. A quoted ``"yes"`` stays a string, as
in SnakeYAML (and Twister2's ``TypeUtils.getBoolean`` reads that as false).
"""

from __future__ import annotations

import re
from typing import Any

from t2gen.jobfile.yaml import JsonPath, SourceDoc
from t2gen.record import replace

__all__ = ["SNAKEYAML_BOOL", "with_snakeyaml_booleans"]

SNAKEYAML_BOOL = (
    r"yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"
)
"""SnakeYAML 1.x's ``Resolver.BOOL``: the plain scalars it reads as booleans."""

_TRUE = frozenset({"yes", "true", "on"})


def _plain(doc: SourceDoc, path: JsonPath) -> bool:
    """Whether the scalar at ``path`` is written plain: not quoted, not a block scalar."""
    line, col = doc.positions.get(path, (0, 0))
    lines = doc.text.splitlines()
    if not 1 <= line <= len(lines):
        return False
    text = lines[line - 1]
    return col >= 1 and text[col - 1 : col] not in ('"', "'", "|", ">", "")


def _resolve(doc: SourceDoc, node: Any, path: JsonPath) -> Any:
    if isinstance(node, dict):
        return {key: _resolve(doc, value, (*path, key)) for key, value in node.items()}
    if isinstance(node, list):
        return [_resolve(doc, item, (*path, index)) for index, item in enumerate(node)]
    if (
        isinstance(node, str)
        and re.fullmatch(SNAKEYAML_BOOL, node)
        and _plain(doc, path)
    ):
        return node.lower() in _TRUE
    return node


def with_snakeyaml_booleans(doc: SourceDoc) -> SourceDoc:
    """``doc`` with every plain scalar SnakeYAML 1.x reads as a boolean made one (O(size of the file))."""
    return replace(doc, data=_resolve(doc, doc.data, ()))
