"""What templates wrote, read back as objects as kubectl reads it (:func:`parse_output`)."""

from __future__ import annotations

from typing import Any

import yaml

from t2gen.errors import TemplateError
from t2gen.kube.validators import is_api_version, is_kind
from t2gen.kube.yamlbounds import ReadBounds, YamlLimitError
from t2gen.record import Record

__all__ = [
    "OUTPUT_BOUNDS",
    "OVERLAY_OUTPUT_BOUNDS",
    "RenderedDocument",
    "documents_of",
    "parse_output",
]


class RenderedDocument(Record):
    """One Kubernetes object and the template that produced it.

    Attributes:
        template: the template's name as shown in ``# Source:`` (``k8s/configmap.yaml.j2``).
        obj: the object as kubectl will read it (dicts, lists, scalars).
    """

    template: str
    obj: dict[str, Any]

    @property
    def kind(self) -> str:
        """The object's ``kind``."""
        return str(self.obj.get("kind", ""))

    @property
    def name(self) -> str:
        """The object's ``metadata.name``."""
        return str(self.obj.get("metadata", {}).get("name", ""))

    @property
    def namespace(self) -> str | None:
        """The object's ``metadata.namespace``, if set."""
        namespace = self.obj.get("metadata", {}).get("namespace")
        return str(namespace) if namespace is not None else None


OUTPUT_BOUNDS = ReadBounds(
    what="rendered manifests",
    advice="render fewer or smaller objects",
    depth=100,
    nodes=1_000_000,
)
"""What the templates of one job may render, read as kubectl reads it (:mod:`t2gen.kube.yamlread`).

The depth of ``t2gen check``'s manifests; at most a million values for the
job's built-in templates that no overlay touches (about 2.5 s of reading): the
largest jobs t2gen renders (50 groups of 64 workers per pod, 2,500 bytes of
environment) write about 500,000."""

OVERLAY_OUTPUT_BOUNDS = ReadBounds(
    what="rendered manifests",
    advice="render fewer or smaller objects",
    depth=100,
    nodes=200_000,
)
"""What the templates an overlay touches may render for one job, read back (all together).

Reading back costs some 4-5 µs a value: 960,000 values, under the million of
:data:`OUTPUT_BOUNDS`, cost 19.6x a plain render (2026-12-07); 200,000 stay
within the 10x budget with the meter's work besides (``bench/kinds.py``)."""


def parse_output(
    text: str, label: str, account: list[int], bounds: ReadBounds = OUTPUT_BOUNDS
) -> list[RenderedDocument]:
    """Parse a template's output into objects, as kubectl would read it.

    Args:
        text: what the template wrote.
        label: the template, for errors.
        account: ``[characters written, values read so far]`` of the templates
            sharing ``bounds`` for this job; ``account[1]`` is updated.
        bounds: :data:`OUTPUT_BOUNDS` (built-in templates) or
            :data:`OVERLAY_OUTPUT_BOUNDS` (those an overlay touches).
    """
    from t2gen.kube.yamlread import BoundedReader  # only with overlays

    reader = BoundedReader(text, bounds, start=account[1])
    try:
        objects = [document.data for document in reader.documents()]
    except YamlLimitError as err:
        mark = err.problem_mark
        where = (
            f" (rendered line {mark.line + 1}, column {mark.column + 1})"
            if mark
            else ""
        )
        raise TemplateError(
            template=label, line=None, message=f"what it renders: {err.problem}{where}"
        ) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(err, "problem", None) or str(err)
        snippet = (
            text.splitlines()[line - 1].strip()
            if line and line <= len(text.splitlines())
            else ""
        )
        detail = f" at rendered line {line}: {snippet!r}" if line else ""
        raise TemplateError(
            template=label,
            line=None,
            message=f"the rendered YAML does not parse ({problem}){detail}",
        ) from None
    finally:
        account[1] = reader.nodes  # counted from account[1] on
    return documents_of(objects, label)


_NAMED_SIZE = 256
_named: dict[tuple[str, str], bool] = {}
"""Whether each ``(apiVersion, kind)`` seen is a pair of names (at most :data:`_NAMED_SIZE` kept)."""


def documents_of(objects: list[Any], label: str) -> list[RenderedDocument]:
    """Check that each parsed document is a Kubernetes object; skip empty ones."""
    documents = []
    for obj in objects:
        if obj is None:
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict):
            raise TemplateError(
                template=label,
                line=None,
                message="renders a document that is not a Kubernetes object",
            )
        for key in ("apiVersion", "kind"):
            if not isinstance(obj.get(key), str) or not obj[key]:
                raise TemplateError(
                    template=label,
                    line=None,
                    message=f"renders an object without {key}",
                )
        names = (obj["apiVersion"], obj["kind"])
        named = _named.get(names)
        if named is None:
            named = is_api_version(names[0]) and is_kind(names[1])
            if len(_named) >= _NAMED_SIZE:
                _named.clear()
            _named[names] = named
        if not named:
            raise TemplateError(
                template=label,
                line=None,
                message=f"renders apiVersion {obj['apiVersion']!r} and kind {obj['kind']!r}: "
                "both must be names, such as apps/v1 and StatefulSet",
            )
        if (
            not isinstance(obj["metadata"].get("name"), str)
            or not obj["metadata"]["name"]
        ):
            raise TemplateError(
                template=label,
                line=None,
                message=f"renders a {obj['kind']} without metadata.name",
            )
        documents.append(RenderedDocument(label, obj))
    return documents
