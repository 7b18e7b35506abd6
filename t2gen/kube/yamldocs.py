"""Many objects written by one YAML emitter: the text of each, as :func:`~t2gen.kube.yamlio.dump_yaml` writes it alone.

A render writes some ten objects a job, thousands in a batch. Making a PyYAML C
emitter and its output for each object costs about 5% of writing it:
:func:`dump_yaml_each` writes the objects as the documents of one stream and cuts
the text at the end of each document, where libyaml flushes its buffer
(``yaml_emitter_emit_document_end``).

Exact by construction, as far as the stream's shape goes: only a non-empty
mapping is written into the shared stream. libyaml writes a document after the
first as ``---``, then, for a block mapping, a line break and the mapping exactly
as the first document's (an implicit start, no directives, and an emitter whose
only state across documents is ``open_ended``, reset at every document start).
The cut text must start with ``---`` and a line break, which are dropped;
anything else, and every other root (a scalar or an empty collection shares the
``---`` line), is written alone by ``dump_yaml``. An object that is not
JSON-shaped leaves the emitter holding half a document: it is dropped, the
object goes through PyYAML's representer as in ``dump_yaml``, and the next
mapping starts a new stream. ``tests/kube/test_yamldocs.py`` compares the texts
with ``dump_yaml``'s for random data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import yaml

from t2gen.kube.yamlio import (
    _DOCUMENT_END,
    _DOCUMENT_START,
    _EMITTER_OPTIONS,
    _STREAM_START,
    _dump_represented,
    _Emitter,
    _events,
    _NotJsonShaped,
    dump_yaml,
)

__all__ = ["dump_yaml_each"]


class _Pieces(list[str]):
    """The C emitter's output: each piece of text it flushes, in order."""

    write = list.append


def dump_yaml_each(objects: Iterable[Any], *, trees: bool = False) -> list[str]:
    """``[dump_yaml(obj) for obj in objects]``, the mappings written by one emitter.

    Args:
        objects: what :func:`~t2gen.kube.yamlio.dump_yaml` takes, each.
        trees: the caller knows that no list or mapping appears twice within
            one object (no YAML alias could be written), so containers are not
            tracked; a container shared *between* objects is fine either way.
            Rendered objects are trees (:func:`t2gen.render.engine.render`).

    Returns:
        One text per object, each as ``dump_yaml`` writes it.

    Raises:
        Whatever ``dump_yaml`` raises for an object.
    """
    texts: list[str] = []
    pieces = _Pieces()
    put: Callable[[yaml.Event], object] | None = None
    first = True
    for obj in objects:
        if type(obj) is not dict or not obj or _Emitter is None:
            texts.append(dump_yaml(obj))
            continue
        if put is None:
            pieces.clear()
            put = _Emitter(pieces, **_EMITTER_OPTIONS).emit
            put(_STREAM_START)
            first = True
        try:
            put(_DOCUMENT_START)
            _events(obj, put, None if trees else set())
            put(_DOCUMENT_END)
        except _NotJsonShaped:
            put = None  # it holds part of a document
            texts.append(_dump_represented(obj))
            continue
        text = "".join(pieces)
        pieces.clear()
        if not first:
            if not text.startswith("---\n"):  # pragma: no cover - libyaml as read above
                put = None
                texts.append(dump_yaml(obj))
                continue
            text = text[4:]
        first = False
        texts.append(text)
    return texts
