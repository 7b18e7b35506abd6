"""The positioned YAML reader: YAML 1.2 (or JSON) text into data and the ``line:col`` of every node.

It reads job files (:mod:`t2gen.inputs.jobfile`) and Twister2 configuration
files (:mod:`t2gen.inputs.twister2conf`). Two readers give the same
:class:`SourceDoc` (data, and the ``line:col`` of every node) and refuse the
same things in the same words:

* :mod:`~t2gen.inputs.yaml.fastload` builds it from PyYAML's C parser
  (:mod:`~t2gen.inputs.yaml.plainscalars` reads its plain scalars as YAML 1.2
  does), and gives up where it cannot be sure;
* :mod:`~t2gen.inputs.yaml.loader` reads everything with ruamel.yaml, and
  words every YAML error.

:mod:`~t2gen.inputs.yaml.yaml12` holds the rules and messages both apply,
:mod:`~t2gen.inputs.yaml.source` the parser's bounds (depth, entries, values,
integer digits). Callers use :func:`parse_yaml` and never choose a reader; the
bytes come through :mod:`t2gen.inputs.textfile`.
"""

from __future__ import annotations

from t2gen import fastpaths
from t2gen.inputs.yaml.loader import JsonPath, SourceDoc, parse_config

__all__ = ["JsonPath", "SourceDoc", "parse_yaml"]


def parse_yaml(text: str, *, path: str = "<string>") -> SourceDoc:
    """Parse YAML 1.2 or JSON text into a :class:`SourceDoc`, within the bounds of :mod:`.source`.

    The fast reader reads it when it is sure of the meaning (and
    ``T2GEN_NO_FAST_YAML`` is not set: the ``FAST_YAML`` fast path of
    :mod:`t2gen.fastpaths`); otherwise (and for every YAML error) the full
    reader does. Both give the same document.

    Args:
        text: the decoded file.
        path: the file as the user named it, for positions and messages.

    Returns:
        The parsed document: one mapping, with the position of every node.

    Raises:
        ConfigError: not YAML, empty, several documents, aliases or anchors,
            explicit tags, nested too deep, too many entries or values
            (located).
    """
    if fastpaths.enabled("FAST_YAML"):
        # imported here: it imports PyYAML, which SourceDoc's users (the rules,
        # the command line's Typer app) need not load
        from t2gen.inputs.yaml.fastload import fast_load_doc

        doc = fast_load_doc(text, path=path)
        if doc is not None:
            return doc
    return parse_config(text, path=path)
