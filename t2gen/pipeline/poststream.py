"""A chart's rendered stream with every job file in it replaced by the job's objects (Helm's post-renderer).

Helm gives a post-renderer the chart's rendered manifests on standard input,
one YAML stream, and installs what it prints (helm/helm
``internal/plugin/runtime_subprocess.go``, ``runPostrenderer``; Helm 3 ran an
executable the same way). A chart template that renders a job file (kind
``Twister2Job``, with the chart's values in it) becomes the job's objects here;
every other document passes through byte for byte.

A document is a job file by the rules of ``t2gen find``
(:func:`t2gen.pipeline.jobfiles.is_job_text`): so one that looks like a job but
cannot be read fails the post-render with its located error, rather than
reaching the cluster as an object of kind ``Twister2Job``.

Helm 4 marks each document with the annotation :data:`FILENAME_ANNOTATION`
(the template it came from) before the post-renderer, and files the answer's
documents by it, removing it (helm/helm ``pkg/action/action.go``,
``filenameAnnotation``, ``splitAndDeannotate``). The job's objects carry the job
document's mark, so ``helm template`` shows them under the job's template; the
mark is left out of the job itself, so its objects are those ``t2gen render``
gives for the document as the template rendered it.

Errors are located in the job's document as Helm hands it over (line 1 is the
line after its ``---``) and named after its template, or ``document N`` (the
Nth of the stream, from 1) when it has no readable mark.
"""

from __future__ import annotations

import io
import re
from typing import Any

from t2gen.checks.duplicates import duplicate_findings
from t2gen.errors import Problem, SchemaError, T2genError, ValidationError, Warning_
from t2gen.inputs.jobfile import parse_job
from t2gen.kube.yamlio import dump_yaml
from t2gen.pipeline.job import generate
from t2gen.pipeline.jobfiles import is_job_text
from t2gen.record import replace
from t2gen.render.engine import RenderedDocument

__all__ = ["FILENAME_ANNOTATION", "post_render", "split_documents"]

FILENAME_ANNOTATION = "postrenderer.helm.sh/postrender-filename"
"""Helm 4's mark of the template each document of the stream came from."""

_DOCUMENT_MARKER = r"(?m)^---(?:[ \t]*\n|[ \t]*\Z|[ \t]+)"
"""A ``---`` document marker at the start of a line: alone on it, or followed by a blank.

YAML 1.2 allows ``---`` at the start of a line nowhere but as a document marker
(a block scalar's lines are indented; a quoted scalar may not hold it), so the
stream splits there exactly as a YAML reader splits it, each document keeping
its own text."""


def split_documents(stream: str) -> list[str]:
    """The texts of a stream's documents, each as it stands after its ``---`` marker.

    Joined with ``---`` lines they are the stream again, up to the spelling of
    the markers.
    """
    return re.split(_DOCUMENT_MARKER, stream)


def _label(data: Any, text: str, number: int) -> str:
    """What errors in a job document are named after: its template, else its place.

    Helm 4's mark names the template; Helm 3 wrote ``# Source: <template>``
    first in each document instead.
    """
    metadata = data.get("metadata") if isinstance(data, dict) else None
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    name = (
        annotations.get(FILENAME_ANNOTATION) if isinstance(annotations, dict) else None
    )
    if isinstance(name, str):
        return name
    source = re.match(r"# Source: (\S.*)\n", text)
    return source[1].rstrip() if source else f"document {number}"


def _named(err: T2genError, label: str) -> T2genError:
    """The error with standard input (``-``) named ``label``."""
    if not err.problems or isinstance(err, ValidationError):
        return err
    return SchemaError(
        problems=[
            replace(problem, path=label) if problem.path == "-" else problem
            for problem in err.problems
        ]
    )


def _without_mark(data: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The job file without Helm's mark, and the mark (None without one)."""
    metadata = data.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if not isinstance(annotations, dict) or FILENAME_ANNOTATION not in annotations:
        return data, None
    assert isinstance(metadata, dict)
    mark = annotations[FILENAME_ANNOTATION]
    kept = {k: v for k, v in annotations.items() if k != FILENAME_ANNOTATION}
    metadata = {k: v for k, v in metadata.items() if k != "annotations"}
    if kept:
        metadata["annotations"] = kept
    return {**data, "metadata": metadata}, str(mark)


def _render(text: str) -> list[RenderedDocument]:
    """``t2gen render -`` of one job document's text."""
    return generate(["-"], stdin=io.BytesIO(text.encode("utf-8")))


def _job_objects(
    text: str, number: int, warnings: list[Warning_]
) -> tuple[list[RenderedDocument], str | None]:
    """Validate one job document (located in its text) and render it without Helm's mark."""
    try:
        data = parse_job(text).data
    except T2genError:
        data = None  # generate says why, located
    label = _label(data, text, number)
    found: list[Warning_] = []
    try:  # the document as Helm gave it: every error located in its text
        documents = generate(
            ["-"], stdin=io.BytesIO(text.encode("utf-8")), warnings=found
        )
    except T2genError as err:
        raise _named(err, label) from None
    warnings += [
        replace(warning, path=label) if warning.path == "-" else warning
        for warning in found
    ]
    assert isinstance(data, dict)  # generate read it as a job file
    job, mark = _without_mark(data)
    if mark is None:
        return documents, None
    try:
        return _render(dump_yaml(job)), mark
    except T2genError as err:  # the mark alone cannot make a valid job invalid
        raise _named(err, label) from None


def _marked(obj: dict[str, Any], mark: str | None) -> dict[str, Any]:
    """The object with Helm's mark of the job's template (unchanged without one)."""
    if mark is None:
        return obj
    metadata = obj.get("metadata", {})
    annotations = {**metadata.get("annotations", {}), FILENAME_ANNOTATION: mark}
    return {**obj, "metadata": {**metadata, "annotations": annotations}}


def post_render(stream: str, warnings: list[Warning_] | None = None) -> str:
    """Helm's post-render: the stream with each job document replaced by the job's objects.

    Args:
        stream: the chart's rendered manifests, as Helm passes them.
        warnings: when given, the jobs' located warnings are appended to it.

    Returns:
        The stream: each document that is no job file as it was, each job
        file's document replaced by its objects (YAML, in install order).

    Raises:
        SchemaError: a job document is invalid, or cannot be read (every
            problem of every job document, located in it).
        ValidationError: the objects fail a check, or two jobs render one object.
    """
    found = warnings if warnings is not None else []
    pieces: list[str] = []
    problems: list[Problem] = []
    rendered: list[RenderedDocument] = []
    for number, text in enumerate(split_documents(stream), start=1):
        if not is_job_text(text):
            pieces.append(text)
            continue
        try:
            documents, mark = _job_objects(text, number, found)
        except ValidationError:
            raise
        except T2genError as err:
            problems += err.problems or [Problem(f"document {number}", 0, 0, str(err))]
            continue
        rendered += documents
        pieces.append("---\n".join(dump_yaml(_marked(d.obj, mark)) for d in documents))
    if problems:
        raise SchemaError(problems=problems)
    duplicates = duplicate_findings(rendered)
    if duplicates:
        raise ValidationError(findings=duplicates)
    return "---\n".join(pieces)
