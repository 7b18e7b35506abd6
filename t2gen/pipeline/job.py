"""The pipeline: job file -> validated job -> context -> rendered, checked, ordered objects.

Orchestration only: each function here calls the stages in order and gathers
their problems; what a stage knows lives in its own module (``jobfile/``,
``render/``, ``checks/``, ``kube/`` and ``twister2/``). The functions read the
files they are given (job files, manifests, a key, a job object) and nothing
else; every stage they call is pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, TypedDict

from t2gen.checks import object_problems
from t2gen.checks.duplicates import duplicate_findings
from t2gen.checks.size import size_problems, surely_fits
from t2gen.errors import (
    ConfigError,
    Problem,
    SchemaError,
    T2genError,
    ValidationError,
    Warning_,
)
from t2gen.gangs import GROUP_KINDS
from t2gen.jobfile.rules import RuleOptions, run_rules
from t2gen.jobfile.schema import (
    apply_defaults,
    is_valid_fast,
    schema_findings,
    without_rejected,
)
from t2gen.jobfile.yaml import SourceDoc, read_job
from t2gen.kube.order import sort_documents
from t2gen.kube.versions import KubeVersionError, require_kube_version
from t2gen.model import Job, build_job
from t2gen.render.context import build_context
from t2gen.render.engine import RenderedDocument, TemplateSet, overlay_problem, render
from t2gen.resources import templates_dir
from t2gen.textfile import read_source

if TYPE_CHECKING:  # typing.Unpack is 3.11+; mypy reads typing_extensions' stub
    from typing_extensions import Unpack

__all__ = [
    "RenderSettings",
    "builtin_template_set",
    "generate",
    "make_template_set",
    "render_jobs",
    "validate",
    "validate_files",
]

_JOB_OBJECT_BOUND = "base64-encoded, the job object must fit the ConfigMap (1 MiB)"


class RenderSettings(TypedDict, total=False):
    """The keyword arguments of :func:`render_jobs`, which :func:`generate` passes on unchanged.

    They are documented in :func:`generate`; every one may be left out.
    """

    namespace: str | None
    template_set: TemplateSet | None
    stdin: IO[bytes] | None
    job_object: str | None
    template_dirs: Sequence[str]
    warnings: list[Warning_] | None
    kube_version: str | None
    package: str | None


def builtin_template_set() -> TemplateSet:
    """The built-in Kubernetes template set (``templates/k8s``)."""
    return TemplateSet(name="k8s", builtin=str(Path(templates_dir(), "k8s")))


def make_template_set(overlays: Sequence[str] = ()) -> TemplateSet:
    """The built-in set with user template directories laid over it (first wins).

    Args:
        overlays: directories as the user named them; the name is shown in
            ``# Source:`` lines of the objects their templates produce.

    Raises:
        T2genError: a directory does not exist or holds no template.
    """
    layers = []
    for directory in overlays:
        if (wrong := overlay_problem(directory or ".")) is not None:
            raise T2genError(f"{directory}: {wrong}")
        label = directory.rstrip("/") or ("/" if directory else ".")
        layers.append((label, directory or "."))
    builtin = builtin_template_set()
    return TemplateSet(
        name=builtin.name, builtin=builtin.builtin, overlays=tuple(layers)
    )


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
    data = apply_defaults(doc.data)
    # The generated schema code says only "valid"; jsonschema runs for the
    # files it refuses, to say why (the same verdict: tests/jobfile/yaml/test_fastpath.py).
    if is_valid_fast(doc.data):
        problems: list[Problem] = []
        checked = data
    else:
        problems, rejected = schema_findings(doc)
        checked = without_rejected(apply_defaults(doc.data), rejected)
    if isinstance(checked, dict):  # the rules never read what the schema refused
        findings = run_rules(checked, doc, options)
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
    options = RuleOptions(package=package is not None)
    loaded = _load_all(
        paths, namespace=namespace, stdin=stdin, warnings=warnings, options=options
    )
    if package is not None:
        loaded = _with_package(loaded, package, warnings)
    # One verdict for one file: a job that may not fit kubectl apply is rendered
    # and measured exactly, as render measures it; the others surely fit.
    problems: list[Problem] = []
    for job, doc in loaded:
        if not surely_fits(job, len(doc.text.encode("utf-8"))):
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
        except (ConfigError, SchemaError) as err:
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


def _duplicate_jobs(loaded: Sequence[tuple[Job, SourceDoc]]) -> list[Problem]:
    """Jobs of one batch with the same name in the same namespace, each naming the file of the first.

    Their objects would have the same names, so one ``kubectl apply`` would
    replace the first job's objects with the second's.
    """
    first: dict[tuple[str | None, str], Job] = {}
    problems = []
    for job, doc in loaded:
        key = (job.namespace, job.name)
        if key not in first:
            first[key] = job
            continue
        line, col = doc.position(("metadata", "name"))
        where = f"namespace {job.namespace}" if job.namespace else "one namespace"
        message = (
            "the job file is given twice; give each job file once"
            if first[key].source == job.source
            else f"job {job.name!r} is also defined by {first[key].source}; two jobs in "
            f"{where} need different names (their objects would replace each other)"
        )
        problems.append(Problem(job.source, line, col, message, "metadata.name"))
    return problems


def render_jobs(
    paths: Sequence[str],
    *,
    namespace: str | None = None,
    template_set: TemplateSet | None = None,
    stdin: IO[bytes] | None = None,
    job_object: str | None = None,
    template_dirs: Sequence[str] = (),
    warnings: list[Warning_] | None = None,
    kube_version: str | None = None,
    package: str | None = None,
) -> list[RenderedDocument]:
    """Validate job files and render their objects, checking each object's size only.

    The first half of :func:`generate` (same arguments and errors, except
    that the objects are neither checked against each other nor sorted).

    Returns:
        The objects, job by job in argument order, each job's in render order.

    Raises:
        T2genError: ``kube_version`` is not a supported version.
        SchemaError: a job file is unreadable or invalid, or renders an object
            too large for ``kubectl apply``.
        TemplateError: a template fails.
    """
    templates = template_set or make_template_set(template_dirs)
    try:
        version = require_kube_version(kube_version)
    except KubeVersionError as err:
        raise T2genError(f"--kube-version {err}") from None
    loaded = _load_all(
        paths,
        namespace=namespace,
        stdin=stdin,
        warnings=warnings,
        options=RuleOptions(kube_version=version, package=package is not None),
    )
    if package is not None:
        loaded = _with_package(loaded, package, warnings)
    duplicates = _duplicate_jobs(loaded)
    if duplicates:
        raise SchemaError(problems=duplicates)
    job_object_bytes = None
    if job_object is not None:  # --job-object: rare, so imported only then
        from t2gen.twister2.jobobject import check_job_object, require_one_job

        require_one_job(job_object, job_count=len(loaded))
        raw = read_source(job_object, what="job object file", advice=_JOB_OBJECT_BOUND)
        job_object_bytes = check_job_object(job_object, raw)
    documents: list[RenderedDocument] = []
    problems: list[Problem] = []
    for job, doc in loaded:
        rendered = render(
            build_context(job, job_object=job_object_bytes, kube_version=version),
            templates,
        )
        problems += size_problems(job, doc, rendered, job_object=job_object)
        documents.extend(rendered)
    if problems:
        raise SchemaError(problems=problems)
    return documents


def generate(
    paths: Sequence[str], **settings: Unpack[RenderSettings]
) -> list[RenderedDocument]:
    """Validate job files and render every object they need, in install order.

    All or nothing: every job is validated and rendered in memory, and the
    output is checked (:func:`t2gen.checks.object_problems`), before anything is
    returned. :func:`t2gen.pipeline.batch.generate_batch` gives the same result
    over several processes.

    Args:
        paths: job files; ``-`` reads standard input.
        settings: keyword arguments only (:class:`RenderSettings`), passed on to
            :func:`render_jobs`; each may be left out:
        namespace: overrides every job's ``metadata.namespace``.
        template_set: templates to render (default: the built-in ``k8s`` set with
            ``template_dirs`` laid over it).
        stdin: the stream read for ``-``.
        job_object: a file holding the job's serialised Twister2 Job object
            (``TWISTER2_JOB_OBJECT`` in the ConfigMap); only with one job file.
        template_dirs: user template directories (``--templates``).
        warnings: when given, every job file's located warnings are appended to it.
        kube_version: the Kubernetes version rendered for (``--kube-version``,
            e.g. ``1.36``); None: :data:`t2gen.kube.versions.DEFAULT_KUBE_VERSION`.
            It chooses the Workload API's shape (``gang: kubernetes``).
        package: ``--package``: see :func:`t2gen.package.agree.with_package`.

    Returns:
        The objects of every job, sorted by :func:`t2gen.kube.order.sort_documents`.

    Raises:
        T2genError: ``kube_version`` is not a supported version such as ``1.36``
            (the command line checks it first: :func:`t2gen.cli._options.check_kube_version`).
        SchemaError: a job file is unreadable or invalid (every problem of every
            file, including the rules that read ``kube_version``, such as
            ``workload-api-version``), or renders an object too large for
            ``kubectl apply`` (:data:`t2gen.kube.limits.APPLY_LIMIT_BYTES`).
        TemplateError: a template fails.
        ValidationError: the rendered objects fail a semantic check, or two
            jobs render the same object.
    """
    documents = render_jobs(paths, **settings)
    duplicates = duplicate_findings(documents)
    if duplicates:  # checking the rest would only repeat it
        raise ValidationError(findings=duplicates)
    # An object an overlay's template rendered is named with the template.
    builtin = f"{builtin_template_set().name}/"
    origins = [
        None if document.template.startswith(builtin) else document.template
        for document in documents
    ]
    findings = object_problems(
        [document.obj for document in documents], origins if any(origins) else None
    )
    if findings:
        raise ValidationError(findings=findings)
    return sort_documents(documents, GROUP_KINDS)
