"""Reading and validating job files once: the ``(job, doc)`` every command works from.

A command reads each job file (and a ``--package``) once: :func:`load_jobs`
returns every job validated, each with its :class:`~t2gen.inputs.yaml.SourceDoc`
(its text and the position of every node), which locates every later problem;
``render``, ``plan`` and ``status`` render from that (:func:`t2gen.pipeline.job.render_loaded`)
without reading the file again.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

from t2gen.errors import InputError, Problem, SchemaError, Warning_
from t2gen.inputs.jobfile import read_job
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules import RuleOptions, run_rules
from t2gen.jobfile.schema import (
    apply_defaults,
    defaults_and_finite,
    is_valid_fast,
    schema_findings,
    without_rejected,
)
from t2gen.model import Job, build_job

# Rendering (Jinja2, the template engine, PyYAML's skeletons) is imported only
# where a job is rendered: `t2gen package` and `validate` of a job that surely
# fits never render, and skip some 40 ms of imports (docs/performance.md).
if TYPE_CHECKING:
    from t2gen.render.engine import TemplateSet

__all__ = [
    "LoadedJob",
    "builtin_template_set",
    "load_jobs",
    "validate",
    "validate_files",
]

LoadedJob = tuple[Job, SourceDoc]
"""A validated job and its file as read (the text and the position of every node)."""


def builtin_template_set() -> TemplateSet:
    """The built-in Kubernetes template set (``templates/k8s``)."""
    from t2gen.render.engine import TemplateSet
    from t2gen.resources import templates_dir

    return TemplateSet(name="k8s", builtin=str(Path(templates_dir(), "k8s")))


def validate(
    doc: SourceDoc,
    *,
    namespace: str | None = None,
    warnings: list[Warning_] | None = None,
    options: RuleOptions | None = None,
) -> Job:
    """Check a parsed job file against the schema and every semantic rule.

    Args:
        doc: the parsed job file.
        namespace: overrides ``metadata.namespace`` (``--namespace``).
        warnings: when given, the rules' located warnings are appended to it
            (they never make the job invalid).
        options: what the rules know of the command line (the Kubernetes
            version rendered for); None: the defaults.

    Returns:
        The validated, typed job.

    Raises:
        SchemaError: with every problem found, schema and rules alike, sorted by position.
    """
    data, finite = defaults_and_finite(doc.data)
    # The generated schema code says only "valid"; jsonschema runs for the
    # files it refuses, to say why (the same verdict: tests/inputs/yaml/test_fastpath.py).
    if is_valid_fast(doc.data, finite=finite):
        problems: list[Problem] = []
        checked = data
    else:
        problems, rejected = schema_findings(doc)
        checked = without_rejected(apply_defaults(doc.data), rejected)
    if isinstance(checked, dict):  # the rules never read what the schema refused
        findings = run_rules(checked, doc, options, schema_valid=not problems)
        problems += findings.problems
        if warnings is not None:
            warnings += findings.warnings
    if problems:
        raise SchemaError(problems=problems)
    return build_job(data, source=doc.path, namespace=namespace)


def _load_job(
    path: str,
    *,
    namespace: str | None,
    stdin: IO[bytes] | None,
    warnings: list[Warning_] | None,
    options: RuleOptions | None,
) -> tuple[Job, SourceDoc]:
    """Read and validate one job file; also return it as read (its text and positions locate later problems)."""
    doc = read_job(path, stdin=stdin)
    return validate(doc, namespace=namespace, warnings=warnings, options=options), doc


def load_jobs(
    paths: Sequence[str],
    *,
    namespace: str | None = None,
    stdin: IO[bytes] | None = None,
    warnings: list[Warning_] | None = None,
    options: RuleOptions | None = None,
    package: str | None = None,
) -> list[LoadedJob]:
    """Read and validate every job file once, and check it against ``--package``.

    Args:
        paths: job files; ``-`` reads standard input (once).
        namespace: overrides every job's ``metadata.namespace``.
        stdin: the stream read for ``-`` (default ``sys.stdin.buffer``).
        warnings: when given, every file's located warnings are appended to it.
        options: what the rules know of the command line; None: the defaults
            (with ``package`` set when a package is given).
        package: ``--package``: see :func:`t2gen.package.agree.with_package`.

    Returns:
        ``(job, doc)`` per file, in argument order.

    Raises:
        SchemaError: any file is unreadable or invalid, or disagrees with the
            package; holds every problem of every file.
    """
    if options is None:
        options = RuleOptions(package=package is not None)
    loaded = _load_all(
        paths, namespace=namespace, stdin=stdin, warnings=warnings, options=options
    )
    if package is not None:
        loaded = _with_package(loaded, package, warnings)
    return loaded


def validate_files(
    paths: Sequence[str],
    *,
    namespace: str | None = None,
    stdin: IO[bytes] | None = None,
    warnings: list[Warning_] | None = None,
    package: str | None = None,
) -> list[Job]:
    """Load and validate several job files, reporting the problems of all of them.

    Args:
        paths: job files; ``-`` reads standard input (once).
        namespace: overrides every job's ``metadata.namespace``.
        stdin: the stream read for ``-`` (default ``sys.stdin.buffer``).
        warnings: when given, every file's located warnings are appended to it.
        package: ``--package``: see :func:`t2gen.package.agree.with_package`.

    Returns:
        The validated jobs, in argument order.

    Raises:
        SchemaError: any file is unreadable or invalid, or renders an object
            too large for ``kubectl apply`` (judged as ``render`` judges it:
            a job :func:`t2gen.checks.size.surely_fits` cannot clear is
            rendered and measured); holds every problem of every file.
    """
    loaded = load_jobs(
        paths, namespace=namespace, stdin=stdin, warnings=warnings, package=package
    )
    from t2gen.checks.size import size_problems, surely_fits

    # One verdict for one file: a job that may not fit kubectl apply is rendered
    # and measured exactly, as render measures it; the others surely fit.
    problems: list[Problem] = []
    for job, doc in loaded:
        if not surely_fits(job, len(doc.text.encode("utf-8"))):
            from t2gen.render.context import build_context
            from t2gen.render.engine import render

            rendered = render(build_context(job), builtin_template_set())
            problems += size_problems(job, doc, rendered)
    if problems:
        raise SchemaError(problems=problems)
    return [job for job, _ in loaded]


def _load_all(
    paths: Sequence[str],
    *,
    namespace: str | None,
    stdin: IO[bytes] | None,
    warnings: list[Warning_] | None,
    options: RuleOptions | None,
) -> list[tuple[Job, SourceDoc]]:
    """Load every job file, raising one SchemaError with the problems of all of them."""
    loaded: list[tuple[Job, SourceDoc]] = []
    problems: list[Problem] = []
    for path in paths:
        try:
            loaded.append(
                _load_job(
                    path,
                    namespace=namespace,
                    stdin=stdin,
                    warnings=warnings,
                    options=options,
                )
            )
        except (InputError, SchemaError) as err:
            problems += err.problems
    if problems:
        raise SchemaError(problems=problems)
    return loaded


def _with_package(
    loaded: list[tuple[Job, SourceDoc]],
    package: str,
    warnings: list[Warning_] | None,
) -> list[tuple[Job, SourceDoc]]:
    """:func:`t2gen.package.agree.with_package`, imported only with ``--package`` (it loads protobuf)."""
    from t2gen.package.agree import with_package

    return with_package(loaded, package, warnings)
