"""No test leaves a process running (issue 42, item 9): what ``tests/conftest.py`` checks after every test.

A process a test starts and does not end (a background ``kubectl --watch`` of a
script whose shell exits first, a daemon) outlives its parent and is handed to
the nearest *subreaper* among its ancestors, else to PID 1, where nobody sees it
(Linux ``prctl(2)``, ``PR_SET_CHILD_SUBREAPER``). The test process makes itself
that subreaper, so after each test every process the test left behind is its
child: alive, or a zombie if it ended since. Direct children a test waits for
(``subprocess.run``) are gone by then, so a running child is a leftover: it is
named with its command line, killed, reaped, and the test fails. A zombie has
ended (an orphan that exited, as a batch worker does when its parent is
killed): it is only reaped, as PID 1 would have reaped it.

``waitid(P_ALL, WNOHANG | WNOWAIT)`` (POSIX) tells whether there is any child
without reaping one, so a clean test costs one system call; ``/proc`` is read
only to name what was left.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
"""``<linux/prctl.h>``: this process adopts its descendants' orphans."""

KEPT: set[int] = set()
"""Children that outlive a test on purpose: a session fixture's servers (the real
control plane of ``tests/kubeapi/``, started once per test process). They are
neither counted, killed nor reaped; their fixture ends them."""


def keep(pid: int) -> None:
    """Exempt a session fixture's child ``pid`` from the check after each test (:data:`KEPT`)."""
    KEPT.add(pid)


def become_subreaper() -> bool:
    """Make this process the subreaper of its descendants (Linux only); return whether it is."""
    if not sys.platform.startswith("linux") or not hasattr(os, "waitid"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0


def _any_child() -> bool:
    """Whether this process has a child, alive or a zombie (none is reaped)."""
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False
    return True


def _described(pid: int) -> tuple[bool, str]:
    """Whether a process is still running, and ``PID command line``, from ``/proc``."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text("utf-8", "replace")
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False, f"{pid} (gone)"
    state = stat[stat.rindex(")") + 2 :].split()[0]
    command = raw.replace(b"\0", b" ").decode("utf-8", "replace").strip()
    name = stat[stat.index("(") + 1 : stat.rindex(")")]
    return state != "Z", f"{pid} {command or name}"


def children() -> list[int]:
    """This process's children, from ``/proc`` (the fourth field of ``stat`` is the parent), but :data:`KEPT`."""
    me = os.getpid()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text("utf-8", "replace")
        except OSError:
            continue
        parent = int(stat[stat.rindex(")") + 2 :].split()[1])
        if parent == me and int(entry.name) not in KEPT:
            found.append(int(entry.name))
    return sorted(found)


def leftovers() -> list[str]:
    """Name and kill every running child of this process, reap every child; return the names.

    A child that has exited already (a zombie: an orphan that ended, as a batch
    worker does when its parent is killed) is reaped and not counted: it is not
    left running.

    Returns:
        ``PID command line`` of each child that was running, before it was
        killed; empty when there was none.
    """
    if not _any_child():
        return []
    running = []
    for pid in children():
        alive, described = _described(pid)
        if alive:
            running.append(described)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    return running
