"""The operating system's bound on a render with overlays: the last line behind the work meter.

The meter (:mod:`t2gen.render.budget`) charges what it can see; a C call it
did not foresee (a filter's inner loop, an allocation) could still run long or
grow large. While a job's templates render with ``--templates``, t2gen lowers
its own soft limits (``resource.setrlimit``, POSIX):

* ``RLIMIT_AS``: the address space may grow by at most :data:`OS_MEMORY_MB`
  over what it is when the render starts; an allocation past it fails and
  Python raises ``MemoryError``;
* ``RLIMIT_CPU``: at most :data:`OS_CPU_SECONDS` more seconds of CPU; the
  kernel then sends ``SIGXCPU``, whose handler raises
  :class:`~t2gen.render.budget.TemplateLimitError`.

Either ends as a located error naming the template (:func:`t2gen.render.engine.render`),
never as a kill with no message. Both soft limits are put back when the render
ends: a process may always raise a soft limit again up to its hard limit, which
t2gen never changes (so the kernel's ``SIGKILL`` at the hard CPU limit stays
where it was). The address-space bound is set only while the process runs one
thread (the command line does; a test runner with helper threads does not,
and their allocations must not fail), and the CPU bound only from the main
thread, where the signal handler runs.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import threading
from collections.abc import Callable, Iterator

from t2gen.render.budget import TemplateLimitError

__all__ = ["OS_CPU_SECONDS", "OS_MEMORY_MB", "os_bounds"]

OS_MEMORY_MB = 150
"""Most megabytes the address space may grow while one job's templates render."""

OS_CPU_SECONDS = 10
"""Most seconds of CPU one job's templates may use (the meter stops most overlays in under one)."""


def _address_space() -> int | None:
    """The process's address space in bytes (``/proc/self/statm``), or None where unknown."""
    try:
        with open("/proc/self/statm", "rb") as statm:  # noqa: PTH123 - a proc file, read once
            pages = int(statm.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


def _bound_memory(undo: list[Callable[[], None]]) -> None:
    import resource

    size = _address_space()
    if size is None or threading.active_count() != 1:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    wanted = size + OS_MEMORY_MB * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft <= wanted:
        return  # already bounded at least as tightly
    resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))
    undo.append(lambda: resource.setrlimit(resource.RLIMIT_AS, (soft, hard)))


def _bound_cpu(undo: list[Callable[[], None]]) -> None:
    import resource
    import signal

    if threading.current_thread() is not threading.main_thread():
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    wanted = math.ceil(usage.ru_utime + usage.ru_stime) + OS_CPU_SECONDS
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft <= wanted:
        return
    raised = [False]

    def over(signum: int, frame: object) -> None:
        if not raised[0]:  # the kernel repeats SIGXCPU each second past the limit
            raised[0] = True
            raise TemplateLimitError(
                f"the templates used more than {OS_CPU_SECONDS} s of CPU "
                "(the operating system's bound behind the work meter)"
            )

    previous = signal.signal(signal.SIGXCPU, over)
    resource.setrlimit(resource.RLIMIT_CPU, (wanted, hard))

    def put_back() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
        signal.signal(signal.SIGXCPU, previous)

    undo.append(put_back)


@contextlib.contextmanager
def os_bounds() -> Iterator[None]:
    """Hold the operating system's bounds (see the module docstring) for the block, then put them back."""
    undo: list[Callable[[], None]] = []
    if sys.platform != "win32":
        try:
            _bound_memory(undo)
            _bound_cpu(undo)
        except (OSError, ValueError):  # a system without these limits: the meter alone
            pass
    try:
        yield
    finally:
        for step in reversed(undo):
            step()
