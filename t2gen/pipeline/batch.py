"""Render many job files over the machine's cores, with the output of one process.

``t2gen render a.yaml b.yaml ...`` validates, renders, checks and emits every
job before it writes anything. With many job files (:data:`MIN_JOBS`) and more
than one usable CPU (``os.sched_getaffinity``), :func:`generate_batch` splits
the files into contiguous chunks in argument order, renders the first job
(which warms the process: imports, templates, schemas, caches), then forks one
worker process per chunk but the first, and renders the rest of the first chunk
itself. The output is
that of :func:`t2gen.pipeline.job.generate` followed by the writer, byte for byte.

What runs where, and why:

* Each process loads, validates and renders its jobs and checks each object's
  size, as :func:`t2gen.pipeline.job.render_jobs` does for all of them.
* The output checks split in two (:attr:`t2gen.checks.base.Check.reads`).
  The checks whose findings depend on one object alone (labels, names,
  quantities, containers) give the same findings whatever else is in the
  stream, so each process runs them on its own objects
  (``object_problems(part="object")``). The checks that look at other objects
  (a selector selects pods of another job, a ``serviceName``, a
  RoleBinding's references, a gang's members; all looked up within a
  namespace, but nothing keeps two jobs out of one namespace) must see every
  object, as in one process: the parent runs them once over all of them
  (``object_problems(part="stream")``), with :func:`t2gen.checks.duplicates.duplicate_findings`,
  which spans jobs too. For the 500 jobs of ``bench/bench.py``, in one
  process with the collector off, all checks take 0.15-0.17 s (2026-12-08),
  those of one object alone 0.06-0.10 s of it: the part the workers take off
  the parent.
* Each worker sends its objects as soon as they are checked (:func:`_pack`:
  ``marshal``, which writes plain data at about half pickle's CPU), then
  emits them as text (:func:`t2gen.output.stream.yaml_stream_texts`: one text per object,
  which joined is the stream of all of them) and sends the texts. The parent
  emits its own chunk while the workers render, then runs the cross-object
  checks and sorts the objects (:func:`t2gen.kube.order.sort_documents`) while
  they emit, and joins the texts in that order.

All or nothing, and the same report: only a batch where everything is right
takes this path to the end. When anything at all is wrong (a file unreadable or
invalid, an object too large, a template error, a finding of any check, two
jobs rendering the same object, a worker that fails for any reason), the
parent stops the workers and does the whole batch again in one process, so
the warnings, error lines and exit code are exactly those of one process. A
bad batch costs about one and a half renders; a good one gets the cores.

In one process always: ``T2GEN_NO_PROCESSES`` set (:mod:`t2gen.fastpaths`), ``--jobs 1``, fewer than :data:`MIN_JOBS` job files,
one usable CPU, a platform without ``fork``, standard input (``-``: read once)
and ``--job-object`` (one job file only).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from t2gen import fastpaths
from t2gen.errors import Warning_

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from queue import SimpleQueue

    from t2gen.pipeline.job import RenderSettings
    from t2gen.render.engine import RenderedDocument

__all__ = ["MIN_JOBS", "Emit", "generate_batch", "plan_processes", "usable_cpus"]

MIN_JOBS = 32
"""The fewest job files rendered over several processes: below it the gain on
an idle 2-CPU machine is within the noise (``bench/results.md``, "batch
threshold"), and on a machine busy with other work the pool is slower than one
process, so small batches stay in one process."""

PARENT_SHARE = 0.9
"""The parent's chunk, relative to a worker's: it also gathers, checks across
jobs, sorts and writes (set by measurement on 2 CPUs)."""

Emit = Callable[[Sequence["RenderedDocument"]], list[str]]
"""Turns objects into output text, one per object, e.g. :func:`t2gen.output.stream.yaml_stream_texts`;
each text must be what it gives for that object alone, whatever the others."""

_Part = tuple[list["RenderedDocument"], list[Warning_]]


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no sched_getaffinity (macOS, Windows)
        return max(1, os.cpu_count() or 1)


def plan_processes(
    paths: Sequence[str], processes: int | None, *, job_object: str | None = None
) -> int:
    """How many processes render ``paths``.

    Args:
        paths: the job files.
        processes: ``--jobs``: at most this many; None: one per usable CPU.
            Never more than the usable CPUs: more processes than CPUs only
            add forks and copies (64 on 2 CPUs took 4x as long as one).
        job_object: ``--job-object`` (rendered in one process).

    Returns:
        1 for one process (see the module docstring), else the count, at most
        one per job file.
    """
    if processes == 1 or len(paths) < MIN_JOBS or "-" in paths or job_object:
        return 1
    if not fastpaths.enabled("PROCESSES"):
        return 1
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(processes or usable_cpus(), usable_cpus(), len(paths)))


def _chunks(paths: Sequence[str], count: int) -> list[Sequence[str]]:
    """``count`` contiguous chunks in order; the first (the parent's) weighs :data:`PARENT_SHARE`."""
    total = PARENT_SHARE + count - 1
    bounds = [0] + [
        round(len(paths) * (PARENT_SHARE + index) / total) for index in range(count)
    ]
    return [paths[bounds[index] : bounds[index + 1]] for index in range(count)]


def _render_part(paths: Sequence[str], settings: RenderSettings) -> _Part | None:
    """Render and check one chunk; None when anything is wrong (or raises)."""
    from t2gen.checks import object_problems
    from t2gen.pipeline.job import render_jobs

    warnings: list[Warning_] = []
    own: RenderSettings = {**settings, "warnings": warnings}
    try:
        documents = render_jobs(paths, **own)
        if object_problems([document.obj for document in documents], part="object"):
            return None
    except Exception:  # the one-process run reports it, exactly
        return None
    return documents, warnings


def _pack(part: _Part) -> tuple[bytes | list[RenderedDocument], list[Warning_]]:
    """A worker's objects for the pipe: ``marshal`` of ``(template, obj)`` pairs.

    Pickling the :class:`~t2gen.render.engine.RenderedDocument` records cost
    0.2-0.27 ms of CPU per job of the 500-job batch of ``bench/bench.py``
    (writing and reading); ``marshal`` writes the same dicts, lists, strings and
    numbers (their exact types, order and sharing kept) at about half that. Data
    ``marshal`` refuses (a subclass of a plain type, any other object) goes
    pickled, as the records themselves. The reader is this program's own
    parent, so the bytes are trusted as a pickle would be.
    """
    import marshal

    documents, warnings = part
    try:
        return marshal.dumps([(d.template, d.obj) for d in documents]), warnings
    except ValueError:
        return documents, warnings


def _unpack(message: tuple[bytes | list[RenderedDocument], list[Warning_]]) -> _Part:
    """The part :func:`_pack` sent."""
    import marshal

    from t2gen.render.engine import RenderedDocument

    payload, warnings = message
    if isinstance(payload, bytes):
        pairs = marshal.loads(payload)
        return [RenderedDocument(template, obj) for template, obj in pairs], warnings
    return payload, warnings


def _emit(documents: Sequence[RenderedDocument], emit: Emit | None) -> list[str]:
    return emit(documents) if emit else []


def _work(
    send: Connection,
    paths: Sequence[str],
    settings: RenderSettings,
    emit: Emit | None,
    inherited: Sequence[Connection],
) -> None:
    """A worker: send ``_Part | None``, then the texts of its objects (or None).

    ``inherited`` are the read ends of the pipes forked into this process (its
    own and earlier workers'): closed first, so that when the parent dies
    (SIGTERM, SIGKILL, out of memory) a write fails with EPIPE and the worker
    ends instead of waiting for ever on a pipe nobody reads.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    for connection in inherited:
        connection.close()
    try:
        part = _render_part(paths, settings)
        send.send(None if part is None else _pack(part))
        if part is not None:
            try:
                texts: list[str] | None = _emit(part[0], emit)
            except Exception:
                texts = None
            send.send(texts)
    except Exception:  # the parent sees the pipe close and runs the batch itself
        pass
    finally:
        send.close()


def _widen(pipe: Connection) -> None:
    """Let a pipe hold 1 MiB (Linux; else as it is), so a worker's objects rarely wait on the parent."""
    try:
        import fcntl

        fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)
    except (ImportError, AttributeError, OSError):
        pass


def _read(receive: Connection, inbox: SimpleQueue[Any]) -> None:
    """Put a worker's two messages (or None: it failed) in ``inbox``, as they come.

    A thread of the parent runs it, so that a worker never waits on a full pipe
    while the parent renders or emits.
    """
    for _ in range(2):
        try:
            message = receive.recv()
        except (EOFError, OSError):
            message = None
        inbox.put(message)
        if message is None:
            return


def _parallel(
    paths: Sequence[str],
    count: int,
    settings: RenderSettings,
    emit: Emit | None,
) -> tuple[list[RenderedDocument], str | None, list[Warning_]] | None:
    """The batch over ``count`` processes; None when anything is wrong."""
    import multiprocessing
    from queue import SimpleQueue

    from t2gen.checks import object_problems
    from t2gen.checks.duplicates import duplicate_findings
    from t2gen.gangs import GROUP_KINDS
    from t2gen.kube.order import sort_documents

    context = multiprocessing.get_context("fork")
    chunks = _chunks(paths, count)
    # The first job warms this process (imports, the template set, compiled
    # templates and schemas, the checks' caches: some 100 ms) before it forks,
    # so that no worker does that work again.
    first = _render_part(chunks[0][:1], settings)
    if first is None:
        return None
    texts = _emit(first[0], emit)
    sys.stdout.flush()  # nothing buffered may be written twice
    sys.stderr.flush()
    workers: list[tuple[Any, Connection, SimpleQueue[Any]]] = []
    readers: list[threading.Thread] = []
    try:
        for chunk in chunks[1:]:
            receive, send = context.Pipe(duplex=False)
            _widen(receive)
            inherited = [*(pipe for _, pipe, _ in workers), receive]
            process = context.Process(
                target=_work,
                args=(send, chunk, settings, emit, inherited),
                daemon=True,
            )
            process.start()
            send.close()
            inbox: SimpleQueue[Any] = SimpleQueue()
            workers.append((process, receive, inbox))
        for _, receive, inbox in workers:  # once every worker is forked: no thread is
            readers.append(
                threading.Thread(target=_read, args=(receive, inbox), daemon=True)
            )
            readers[-1].start()
        rest = _render_part(chunks[0][1:], settings)
        if rest is None:
            return None
        texts += _emit(rest[0], emit)  # while the workers still render
        parts = [first, rest]
        for _, _, inbox in workers:
            part = inbox.get()
            if part is None:
                return None
            parts.append(_unpack(part))
        documents = [document for part in parts for document in part[0]]
        if duplicate_findings(documents) or object_problems(
            [document.obj for document in documents], part="stream"
        ):
            return None
        ordered = sort_documents(documents, GROUP_KINDS)  # while the workers emit
        for _, _, inbox in workers:
            more = inbox.get()
            if more is None:
                return None
            texts += more
    finally:
        for process, _, _ in workers:
            if process.is_alive():
                process.kill()
            process.join()
        for reader in readers:
            reader.join()  # the workers are gone: their pipes are at their end
        for _, receive, _ in workers:
            receive.close()
    warnings = [warning for part in parts for warning in part[1]]
    if emit is None:
        return ordered, None, warnings
    text_of = {
        id(document): text for document, text in zip(documents, texts, strict=True)
    }
    return ordered, "".join(text_of[id(document)] for document in ordered), warnings


def generate_batch(
    paths: Sequence[str],
    *,
    namespace: str | None = None,
    job_object: str | None = None,
    template_dirs: Sequence[str] = (),
    warnings: list[Warning_] | None = None,
    kube_version: str | None = None,
    processes: int | None = None,
    emit: Emit | None = None,
) -> tuple[list[RenderedDocument], str | None]:
    """:func:`t2gen.pipeline.job.generate`, over several processes for many job files.

    Args:
        paths: job files; ``-`` reads standard input.
        namespace: overrides every job's ``metadata.namespace``.
        job_object: ``--job-object``: the serialised Twister2 Job object.
        template_dirs: ``--templates`` directories.
        warnings: when given, every job file's located warnings are appended to it.
        kube_version: the Kubernetes version rendered for.
        processes: ``--jobs``: at most this many processes; 1: one; None: one
            per usable CPU (:func:`plan_processes`).
        emit: what the objects are written as (:data:`Emit`), done in the
            workers too; None: nothing is emitted.

    Returns:
        ``(objects, text)``: the objects as :func:`~t2gen.pipeline.job.generate`
        returns them, and ``emit(objects)`` when the workers emitted it (None
        otherwise: the caller emits).

    Raises:
        T2genError: as :func:`t2gen.pipeline.job.generate`, with the same
            problems in the same order (from a run in one process).
    """
    from t2gen.pipeline.job import generate

    settings: RenderSettings = {
        "namespace": namespace,
        "template_dirs": template_dirs,
        "kube_version": kube_version,
    }
    count = plan_processes(paths, processes, job_object=job_object)
    if count > 1:
        done = _parallel(paths, count, settings, emit)
        if done is not None:
            documents, text, found = done
            if warnings is not None:
                warnings += found
            return documents, text
    one: RenderSettings = {**settings, "job_object": job_object, "warnings": warnings}
    return generate(paths, **one), None
