"""The pipeline: job file -> validated job -> context -> rendered, checked, ordered objects.

Only :func:`generate` and :func:`validate_files` touch the file system (to read
job files); every other stage is pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO

from t2gen.checks import check_objects
from t2gen.context import build_context
from t2gen.errors import ConfigError, SchemaError, ValidationError
from t2gen.loader import SourceDoc, load_config
from t2gen.model import Job, build_job
from t2gen.output import sort_documents
from t2gen.problems import Problem
from t2gen.render import RenderedDocument, TemplateSet, render
from t2gen.resources import templates_dir
from t2gen.rules import rule_problems
from t2gen.schema import apply_defaults, schema_problems

_CONFIG_MAP_LIMIT = (
    1024 * 1024 - 4096
)  # a ConfigMap holds at most 1 MiB; leave room for the rest

__all__ = [
    "builtin_template_set",
    "generate",
    "generate_ssh_secret",
    "validate",
    "validate_files",
]


def builtin_template_set() -> TemplateSet:
    """The built-in Kubernetes template set (``templates/k8s``)."""
    return TemplateSet(name="k8s", builtin=templates_dir() / "k8s")


def validate(doc: SourceDoc, *, namespace: str | None = None) -> Job:
    """Check a parsed job file against the schema and every semantic rule.

    Args:
        doc: the parsed job file.
        namespace: overrides ``metadata.namespace`` (``--namespace``).

    Returns:
        The validated, typed job.

    Raises:
        SchemaError: with every problem found, schema and rules alike, sorted by position.
    """
    data = apply_defaults(doc.data)
    problems = schema_problems(doc)
    if isinstance(data, dict):
        problems += rule_problems(data, doc)
    if problems:
        raise SchemaError(problems=problems)
    return build_job(data, source=doc.path, namespace=namespace)


def validate_files(
    paths: Sequence[str],
    *,
    namespace: str | None = None,
    stdin: IO[bytes] | None = None,
) -> list[Job]:
    """Load and validate several job files, reporting the problems of all of them.

    Args:
        paths: job files; ``-`` reads standard input (once).
        namespace: overrides every job's ``metadata.namespace``.
        stdin: the stream read for ``-`` (default ``sys.stdin.buffer``).

    Returns:
        The validated jobs, in argument order.

    Raises:
        SchemaError: any file is unreadable or invalid; holds every problem of every file.
    """
    jobs: list[Job] = []
    problems: list[Problem] = []
    for path in paths:
        try:
            jobs.append(validate(load_config(path, stdin=stdin), namespace=namespace))
        except (ConfigError, SchemaError) as err:
            problems += err.problems
    if problems:
        raise SchemaError(problems=problems)
    return jobs


def generate(
    paths: Sequence[str],
    *,
    namespace: str | None = None,
    template_set: TemplateSet | None = None,
    stdin: IO[bytes] | None = None,
    job_object: str | None = None,
) -> list[RenderedDocument]:
    """Validate job files and render every object they need, in install order.

    All or nothing: every job is validated and rendered in memory, and the
    output is checked (:func:`t2gen.checks.check_objects`), before anything is
    returned.

    Args:
        paths: job files; ``-`` reads standard input.
        namespace: overrides every job's ``metadata.namespace``.
        template_set: templates to render (default: the built-in ``k8s`` set).
        stdin: the stream read for ``-``.
        job_object: a file holding the job's serialised Twister2 Job object
            (``TWISTER2_JOB_OBJECT`` in the ConfigMap); only with one job file.

    Returns:
        The objects of every job, sorted by :func:`t2gen.output.sort_documents`.

    Raises:
        SchemaError: a job file is unreadable or invalid (every problem of every file).
        TemplateError: a template fails.
        ValidationError: the rendered objects fail a semantic check, or two
            jobs render the same object.
    """
    templates = template_set or builtin_template_set()
    jobs = validate_files(paths, namespace=namespace, stdin=stdin)
    job_object_bytes = (
        _read_job_object(job_object, jobs) if job_object is not None else None
    )
    documents: list[RenderedDocument] = []
    for job in jobs:
        documents.extend(
            render(build_context(job, job_object=job_object_bytes), templates)
        )
    seen: dict[tuple[str, str | None, str], str] = {}
    duplicates = []
    for document in documents:
        key = (document.kind, document.namespace, document.name)
        if key in seen:
            duplicates.append(
                f"{document.kind}/{document.name}: rendered twice (jobs with the same name?)"
            )
        seen[key] = document.template
    findings = duplicates + check_objects([document.obj for document in documents])
    if findings:
        raise ValidationError(findings=findings)
    return sort_documents(documents)


def _read_job_object(path: str, jobs: Sequence[Job]) -> bytes:
    """Read the serialised Job object for the one job being rendered."""
    from t2gen.loader import read_source

    if len(jobs) != 1:
        raise ConfigError(
            path=path,
            message="--job-object belongs to one job; render one job file with it",
        )
    data = read_source(path)
    if len(data) * 4 // 3 > _CONFIG_MAP_LIMIT:
        raise ConfigError(
            path=path,
            message=f"{len(data)} bytes is too large: base64-encoded it would not fit a ConfigMap (1 MiB)",
        )
    return data


def generate_ssh_secret(
    name: str,
    *,
    namespace: str | None = None,
    key_type: str = "rsa",
    from_key: str | None = None,
) -> list[RenderedDocument]:
    """Render the Secret holding an OpenMPI job's SSH key pair.

    Args:
        name: the Secret's name (``spec.mpi.sshSecretName`` of the jobs using it).
        namespace: its namespace, or None.
        key_type: ``rsa`` or ``ed25519`` for a fresh key pair.
        from_key: a private key file to use instead of a fresh one (``-`` for stdin),
            so that running again gives the same Secret.

    Returns:
        The Secret, checked like every rendered object.

    Raises:
        ConfigError: ``from_key`` is unreadable or not an unencrypted private key.
        ValidationError: the Secret fails a semantic check.
    """
    from t2gen.loader import read_source
    from t2gen.sshkeys import (
        generate_key_files,
        key_files_from_private_key,
        secret_context,
    )

    if from_key is not None:
        files = key_files_from_private_key(
            read_source(from_key), path=from_key, comment=name
        )
    else:
        files = generate_key_files(key_type, comment=name)
    templates = TemplateSet(name="secret", builtin=templates_dir() / "secret")
    documents = render(secret_context(name, namespace, files), templates)
    findings = check_objects([document.obj for document in documents])
    if findings:
        raise ValidationError(findings=findings)
    return documents
