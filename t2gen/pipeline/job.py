"""The pipeline: job file -> validated job -> context -> rendered, checked, ordered objects.

Orchestration only: each function here calls the stages in order and gathers
their problems; what a stage knows lives in its own module (``jobfile/``,
``render/``, ``checks/``, ``kube/`` and ``twister2/``). The functions read the
files they are given (job files, manifests, a key, a job object) and nothing
else; every stage they call is pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, TypedDict

from t2gen.checks import object_problems
from t2gen.checks.duplicates import duplicate_findings
from t2gen.checks.size import size_problems, surely_fits
from t2gen.errors import (
    Problem,
    SchemaError,
    T2genError,
    ValidationError,
    Warning_,
)
from t2gen.gangs import GROUP_KINDS
from t2gen.jobfile.rules import RuleOptions
from t2gen.kube.order import sort_documents
from t2gen.kube.versions import KubeVersionError, require_kube_version
from t2gen.model import Job
from t2gen.pipeline.load import LoadedJob, builtin_template_set, load_jobs
from t2gen.render.context import build_context
from t2gen.render.engine import RenderedDocument, TemplateSet, render
from t2gen.render.overlays import (
    overlay_problem,
    partials_only_problem,
    too_many_templates,
)

if TYPE_CHECKING:  # typing.Unpack is 3.11+; mypy reads typing_extensions' stub
    from typing_extensions import Unpack

__all__ = [
    "RenderSettings",
    "check_and_sort",
    "generate",
    "generate_loaded",
    "make_template_set",
    "render_jobs",
    "render_loaded",
]


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


def make_template_set(
    overlays: Sequence[str] = (), *, for_render: bool = True
) -> TemplateSet:
    """The built-in set with user template directories laid over it (first wins).

    Args:
        overlays: directories as the user named them; the name is shown in
            ``# Source:`` lines of the objects their templates produce.
        for_render: the set renders jobs, so overlays of new partials only
            (which it would never include) are refused; False for ``t2gen
            templates``, which lists and shows any of them.

    Raises:
        T2genError: a directory does not exist or holds no template, or the
            directories hold only new partials, which nothing would include.
    """
    layers = []
    for directory in overlays:
        if (wrong := overlay_problem(directory or ".")) is not None:
            raise T2genError(f"{directory}: {wrong}")
        label = directory.rstrip("/") or ("/" if directory else ".")
        layers.append((label, directory or "."))
    builtin = builtin_template_set()
    unused = (
        partials_only_problem([path for _, path in layers], builtin.builtin)
        if for_render
        else None
    )
    if unused is not None:
        raise T2genError(f"{overlays[0]}: {unused[1]}")
    if (many := too_many_templates([path for _, path in layers])) is not None:
        raise T2genError(f"{many[0]}: {many[1]}")
    return TemplateSet(
        name=builtin.name, builtin=builtin.builtin, overlays=tuple(layers)
    )


def _duplicate_jobs(loaded: Sequence[LoadedJob]) -> list[Problem]:
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


def kube_version_of(kube_version: str | None) -> tuple[int, int]:
    """``--kube-version`` as a supported ``(major, minor)`` (None: the default).

    Raises:
        T2genError: not a supported version such as ``1.36``.
    """
    try:
        return require_kube_version(kube_version)
    except KubeVersionError as err:
        raise T2genError(f"--kube-version {err}") from None


def load_for_render(
    paths: Sequence[str],
    *,
    namespace: str | None = None,
    stdin: IO[bytes] | None = None,
    warnings: list[Warning_] | None = None,
    kube_version: str | None = None,
    package: str | None = None,
) -> list[LoadedJob]:
    """Read and validate job files for a render in one pass (:func:`t2gen.pipeline.load.load_jobs`).

    The rules read the Kubernetes version rendered for (``workload-api-version``).

    Raises:
        T2genError: ``kube_version`` is not a supported version.
        SchemaError: as :func:`~t2gen.pipeline.load.load_jobs`.
    """
    options = RuleOptions(
        kube_version=kube_version_of(kube_version), package=package is not None
    )
    return load_jobs(
        paths,
        namespace=namespace,
        stdin=stdin,
        warnings=warnings,
        options=options,
        package=package,
    )


def render_loaded(
    loaded: Sequence[LoadedJob],
    *,
    template_set: TemplateSet | None = None,
    job_object: str | None = None,
    template_dirs: Sequence[str] = (),
    kube_version: str | None = None,
) -> list[RenderedDocument]:
    """Render jobs already read and validated, checking each object's size only.

    A job that :func:`t2gen.checks.size.surely_fits` clears from its text
    (with the built-in templates alone and no ``--job-object``) is not
    measured: as ``validate`` judges it, none of its objects can be too large.

    Returns:
        The objects, job by job in the given order, each job's in render order.

    Raises:
        T2genError: ``kube_version`` is not a supported version.
        SchemaError: two jobs share a name, or a job renders an object too large
            for ``kubectl apply``.
        TemplateError: a template fails.
    """
    templates = template_set or make_template_set(template_dirs)
    version = kube_version_of(kube_version)
    duplicates = _duplicate_jobs(loaded)
    if duplicates:
        raise SchemaError(problems=duplicates)
    job_object_bytes = None
    if job_object is not None:  # --job-object: rare, so imported only then
        from t2gen.inputs.jobobject import read_job_object
        from t2gen.twister2.jobobject import require_one_job

        require_one_job(job_object, job_count=len(loaded))
        job_object_bytes = read_job_object(job_object)
    documents: list[RenderedDocument] = []
    problems: list[Problem] = []
    # Only the built-in templates' objects are bounded by the job file's text
    # (surely_fits, which validate judges by too): the rest are measured.
    bounded = not templates.overlays and job_object is None
    for job, doc in loaded:
        rendered = render(
            build_context(job, job_object=job_object_bytes, kube_version=version),
            templates,
        )
        if not (bounded and surely_fits(job, len(doc.text.encode("utf-8")))):
            problems += size_problems(
                job,
                doc,
                rendered,
                job_object=job_object,
                builtin=f"{templates.name}/" if templates.overlays else None,
            )
        documents.extend(rendered)
    if problems:
        raise SchemaError(problems=problems)
    return documents


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
    that the objects are neither checked against each other nor sorted):
    :func:`load_for_render`, then :func:`render_loaded`.

    Returns:
        The objects, job by job in argument order, each job's in render order.

    Raises:
        T2genError: ``kube_version`` is not a supported version.
        SchemaError: a job file is unreadable or invalid, or renders an object
            too large for ``kubectl apply``.
        TemplateError: a template fails.
    """
    templates = template_set or make_template_set(template_dirs)
    loaded = load_for_render(
        paths,
        namespace=namespace,
        stdin=stdin,
        warnings=warnings,
        kube_version=kube_version,
        package=package,
    )
    return render_loaded(
        loaded, template_set=templates, job_object=job_object, kube_version=kube_version
    )


def check_and_sort(documents: list[RenderedDocument]) -> list[RenderedDocument]:
    """The rendered objects checked together (:func:`t2gen.checks.object_problems`) and in install order.

    Raises:
        ValidationError: the objects fail a semantic check, or two jobs render
            the same object.
    """
    # An object an overlay's template rendered is named with the template.
    builtin = f"{builtin_template_set().name}/"
    duplicates = duplicate_findings(documents, builtin)
    if duplicates:  # checking the rest would only repeat it
        raise ValidationError(findings=duplicates)
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


def generate_loaded(
    loaded: Sequence[LoadedJob], *, kube_version: str | None = None
) -> list[RenderedDocument]:
    """:func:`generate` for jobs already read and validated (with the built-in templates).

    Raises:
        T2genError, SchemaError, TemplateError, ValidationError: as :func:`generate`.
    """
    return check_and_sort(render_loaded(loaded, kube_version=kube_version))


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
    return check_and_sort(render_jobs(paths, **settings))
