"""What ``validate``, ``render`` and ``check`` do once their arguments are parsed, without Typer.

The Typer commands in :mod:`t2gen.cli` parse and check their options, then
call these functions; :mod:`t2gen.cli.launch` calls them directly for the common
exact command lines (``t2gen render JOB...``), skipping the 30-60 ms of
importing Typer and building its command tree. Both paths run the same code
from here on, so what they print, and their exit codes, can only differ in
argument parsing (``tests/cli/test_launch.py`` runs every input case and golden
both ways and compares the bytes).

Each function returns the process's exit code: 0 ok, 1 invalid input or a
failed check. A :class:`~t2gen.errors.T2genError` becomes its lines on stderr;
a closed stdout (``t2gen render job.yaml | head``) ends quietly with 1, as
Click does.
"""

from __future__ import annotations

import errno
import functools
import io
import sys
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, Any

from t2gen.errors import T2genError, Warning_, inert, one_line
from t2gen.output import write_text

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "echo",
    "guard_closed_streams",
    "os_error_exit",
    "print_warnings",
    "run",
    "run_check",
    "run_find",
    "run_render",
    "run_validate",
    "stdout_failed",
    "warn",
]


def echo(message: str, *, err: bool = False) -> None:
    r"""Print one line on stdout (or stderr) and flush, as ``typer.echo`` does.

    Every message may quote what a user gave (a file name, a value), so it is
    printed :func:`t2gen.errors.inert`: a terminal escape is shown
    (``\x1b``), never acted on (a tab, a column separator, is kept), and a
    non-UTF-8 file name's byte is written ``\xff`` rather than failing to
    encode. The line is written whole or the call fails
    (:func:`t2gen.output.write_text`).
    """
    stream: IO[str] = sys.stderr if err else sys.stdout
    # A tab is kept: t2gen's own column separator (`templates list`), harmless on a terminal.
    write_text(stream, "\t".join(inert(part) for part in message.split("\t")) + "\n")


def warn(lines: Sequence[str]) -> None:
    """Print each line on stderr as ``warning: <line>`` (the exit code is not changed)."""
    for line in lines:
        echo(one_line(f"warning: {line}"), err=True)


def print_warnings(warnings: Sequence[Warning_]) -> None:
    """Print each located warning on stderr, in order, once."""
    for warning in sorted(set(warnings)):
        echo(str(warning), err=True)


class _Pacified:
    """A stream whose ``flush`` ignores a closed pipe (Click's ``PacifyFlushWrapper``)."""

    def __init__(self, wrapped: IO[str]) -> None:
        self.wrapped = wrapped

    def flush(self) -> None:
        try:
            self.wrapped.flush()
        except OSError as err:
            if err.errno != errno.EPIPE:
                raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


def run(body: Callable[[list[Warning_]], None]) -> int:
    """Run a command's body; report its errors and warnings; return the exit code.

    Args:
        body: does the command's work; appends located warnings to the list it
            is given, raises :class:`T2genError` on invalid input.

    Returns:
        0, or 1 when the body raised a T2genError (its lines are printed on
        stderr, after the warnings) or stdout is a closed pipe.
    """
    warnings: list[Warning_] = []
    try:
        try:
            body(warnings)
        except T2genError as err:
            print_warnings(warnings)
            for line in err.lines():
                echo(one_line(line), err=True)
            return 1
        print_warnings(warnings)
    except OSError as err:
        if err.errno == errno.EPIPE:  # a closed pipe ends quietly, as in Click
            sys.stdout = _Pacified(sys.stdout)
            sys.stderr = _Pacified(sys.stderr)
            return 1
        if err.filename is not None:  # t2gen reports its own files' errors itself
            raise
        return stdout_failed(err)
    return 0


class _ClosedRaw(io.RawIOBase):
    """A standard stream the process was started without (``t2gen render job.yaml >&-``).

    Python sets ``sys.stdout`` (or ``stdin``) to None then; this stands in for
    it so that using it fails as a closed file does, with an ``OSError``
    (EBADF) that the command reports in one line, instead of an
    ``AttributeError`` traceback.
    """

    def __init__(self, name: str, *, write: bool) -> None:
        super().__init__()
        self.name = name
        self._write = write
        self._told = False

    def readable(self) -> bool:
        return not self._write

    def writable(self) -> bool:
        return self._write

    def _closed(self) -> OSError:
        return OSError(errno.EBADF, f"{self.name} is closed")

    def readinto(self, buffer: Any) -> int:
        raise self._closed()

    def write(self, data: Any) -> int:
        if self._told:  # reported once; what is flushed at exit is dropped
            return len(data)
        self._told = True
        raise self._closed()


def guard_closed_streams() -> None:
    """Stand in for a closed standard input or output (see :class:`_ClosedRaw`).

    Called first by both entry points (:func:`t2gen.cli.launch.main`,
    :func:`t2gen.cli.app.main`): ``validate - <&-`` then reports ``-: cannot read:
    standard input is closed`` and ``render job.yaml >&-`` ``t2gen: cannot write
    to standard output: standard output is closed``, each with exit code 1.
    """
    if sys.stdout is None:
        raw = _ClosedRaw("standard output", write=True)
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(raw), encoding="utf-8")
    if sys.stdin is None:
        raw = _ClosedRaw("standard input", write=False)
        sys.stdin = io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8")


def os_error_exit(err: OSError) -> int:
    """Report an ``OSError`` no command reported in one line; return the exit code, 1.

    One naming a file (``err.filename``) is ``t2gen: FILE: reason``; any other is a
    failed write to standard output (:func:`stdout_failed`). Both
    :func:`t2gen.cli.app.main` and the launcher's fast path end with it, so a
    command line prints the same whichever way it ran.
    """
    if err.filename is not None:
        echo(f"t2gen: {err.filename}: {err.strerror or type(err).__name__}", err=True)
        return 1
    return stdout_failed(err)


def stdout_failed(err: OSError) -> int:
    """Report a failed write to standard output (a full disk, ``> /dev/full``) in one line; return 1.

    Both :func:`t2gen.cli.app.main` and the launcher's fast path call it. Standard output is then
    pointed at the null device, so the final flush of what is still buffered
    cannot fail again.
    """
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    reason = err.strerror or str(err)
    echo(f"t2gen: cannot write to standard output: {reason}", err=True)
    return 1


def _job_paths(jobs: Sequence[str], recursive: bool) -> list[str]:
    """The job files that files and directories name (:func:`t2gen.pipeline.jobfiles.expand_job_paths`)."""
    from pathlib import Path

    if not recursive and all(job == "-" or not Path(job).is_dir() for job in jobs):
        return list(jobs)
    from t2gen.pipeline.jobfiles import expand_job_paths

    return expand_job_paths(jobs, recursive=recursive)


def run_find(paths: Sequence[str], *, recursive: bool = False) -> int:
    """``t2gen find``: each job file among files and directories on stdout; see :func:`run`."""

    def body(_: list[Warning_]) -> None:
        from t2gen.pipeline.jobfiles import expand_job_paths

        found = expand_job_paths(paths, recursive=recursive, only_jobs=True)
        for path in found:
            echo(path)
        if not found:
            echo(f"No job files found in {' '.join(paths)}.", err=True)

    return run(body)


def run_validate(
    jobs: Sequence[str],
    namespace: str | None = None,
    *,
    package: str | None = None,
    recursive: bool = False,
) -> int:
    """``t2gen validate``: one summary line per valid job on stdout; see :func:`run`."""

    def body(warnings: list[Warning_]) -> None:
        from t2gen.pipeline.load import validate_files

        for job in validate_files(
            _job_paths(jobs, recursive),
            namespace=namespace,
            warnings=warnings,
            package=package,
        ):
            workers, pods = job.spec.total_workers, job.spec.total_pods
            echo(
                f"{job.source}: valid: job {job.name}, {workers} worker{'s' if workers != 1 else ''} "
                f"in {pods} pod{'s' if pods != 1 else ''}"
            )

    return run(body)


def run_render(
    jobs: Sequence[str],
    *,
    output: Path | None = None,
    namespace: str | None = None,
    output_format: str = "yaml",
    job_object: str | None = None,
    templates: Sequence[str] = (),
    kube_validate: bool = False,
    kube_version: str | None = None,
    processes: int | None = None,
    force: bool = False,
    package: str | None = None,
    recursive: bool = False,
) -> int:
    """``t2gen render`` once its options are checked; see :func:`run`.

    Args:
        jobs: job files (``-`` for standard input) and directories, whose job
            files are read (:func:`t2gen.pipeline.jobfiles.expand_job_paths`).
        output: ``-o DIR``, or None for standard output.
        namespace: ``--namespace``.
        output_format: ``yaml``, ``json`` or ``helm`` (standard output only).
        job_object: ``--job-object FILE``.
        templates: ``--templates`` directories as the user named them.
        kube_validate: ``--validate``.
        kube_version: ``--kube-version``: the Kubernetes version to render for
            and, with ``kube_validate``, to check against.
        processes: ``--jobs``: at most this many processes for many job files
            (:mod:`t2gen.pipeline.batch`); None: one per usable CPU.
        force: ``--force``: replace ``output`` whatever files it holds.
        package: ``--package``: the job's package (one job file only).
        recursive: ``-R``: also the job files of the directories' subdirectories.
    """

    def body(warnings: list[Warning_]) -> None:
        from t2gen.output import stream, write_stdout

        files = _job_paths(jobs, recursive)
        text: str | None = None
        if len(files) == 1:  # one job file never enters the batch layer
            from t2gen.pipeline.job import generate

            documents = generate(
                files,
                namespace=namespace,
                job_object=job_object,
                template_dirs=templates,
                warnings=warnings,
                kube_version=kube_version,
                package=package,
            )
        else:
            if package is not None:
                raise T2genError(
                    f"--package {package}: a job package belongs to one job; give one job file"
                )
            from t2gen.pipeline.batch import generate_batch

            emit = None
            if output is None and output_format != "json":
                helm = output_format == "helm"
                texts = stream.helm_template_texts if helm else stream.yaml_stream_texts
                emit = functools.partial(texts, trees=True)  # rendered objects
            documents, text = generate_batch(
                files,
                namespace=namespace,
                job_object=job_object,
                template_dirs=templates,
                warnings=warnings,
                kube_version=kube_version,
                processes=processes,
                emit=emit,
            )
        if kube_validate:
            from t2gen.checks.manifests import validate_manifests

            warn(
                validate_manifests(
                    [document.obj for document in documents], kube_version
                )
            )
        if output is not None:
            from t2gen.output.directory import write_directory

            read = [*templates, *(x for x in (package, job_object) if x is not None)]
            for path in write_directory(
                documents, output, sources=files, force=force, inputs=read
            ):
                echo(str(path), err=True)
        elif output_format == "json":
            write_stdout(stream.to_json(documents))
        elif output_format == "helm":
            dropped = sorted({d.namespace for d in documents if d.namespace})
            warn(
                [
                    f"-o helm leaves out metadata.namespace {name!r}: "
                    "`helm install --namespace` places the objects"
                    for name in dropped
                ]
            )
            if text is None:
                text = stream.to_helm_templates(documents, trees=True)
            write_stdout(text)
        else:
            if text is None:
                text = stream.to_yaml_stream(documents, trees=True)
            write_stdout(text)

    return run(body)


def run_check(
    manifests: Sequence[str], kube_version: str | None = None, *, strict: bool = False
) -> int:
    """``t2gen check``: a summary line on stdout, warnings and notes on stderr; see :func:`run`."""

    def body(_: list[Warning_]) -> None:
        from t2gen.checks.manifests import check_manifests
        from t2gen.kube.versions import DEFAULT_KUBE_VERSION

        count, unchecked, notes = check_manifests(
            manifests, kube_version, strict=strict
        )
        version = kube_version or DEFAULT_KUBE_VERSION
        warn(unchecked)
        for note in notes:
            echo(one_line(f"note: {note}"), err=True)
        checked = count - len(unchecked)
        summary = f"{checked} object{'s' if checked != 1 else ''} valid for Kubernetes {version} (strict)"
        if unchecked:
            summary += f"; {len(unchecked)} not checked (no schema)"
        if notes:
            summary += f"; {len(notes)} note{'s' if len(notes) != 1 else ''}"
        echo(summary)

    return run(body)
