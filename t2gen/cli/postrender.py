"""``t2gen-post-renderer``: Helm's post-renderer, turning a chart's job files into the job's objects.

Helm 4 takes a plugin's name: ``helm install|upgrade|template --post-renderer
t2gen`` runs the ``postrenderer/v1`` plugin of ``integrations/helm/plugin.yaml``,
whose command is this script; Helm 3 took an executable
(``--post-renderer t2gen-post-renderer``). What it does to the stream:
:mod:`t2gen.pipeline.poststream`.

Where its errors go. Helm 4 gives the plugin a standard error that nobody
reads: helm/helm ``internal/plugin/runtime_subprocess.go``,
``runPostrenderer``, sets ``cmd.Stderr`` to a buffer it never shows, and
``executeCmd`` turns a failure into ``plugin "t2gen" exited with error``
(its debug line reads ``ExitError.Stderr``, which Go's ``os/exec`` leaves
empty when ``cmd.Stderr`` is set: "Stderr ... if the error was not from
Output"). Seen with Helm 4.3.1: ``Error: error while running post render on
files: failed to invoke post-renderer plugin "t2gen": plugin "t2gen" exited
with error``, with ``--debug`` too. So, run by Helm as a plugin (Helm sets
``HELM_PLUGIN_NAME``), this script writes to Helm's own standard error instead
(:func:`to_helms_stderr`): t2gen's located errors and warnings stand right
before Helm's line, where a terminal or a CI log shows them. Where that cannot
be done (no ``/proc``, as on macOS; Helm's standard error a file opened
without ``O_APPEND``, which t2gen would overwrite), they go to t2gen's own
standard error, which Helm 4 drops: ``t2gen validate`` of the rendered job
(``helm template ... --show-only templates/job.yaml | t2gen validate -``)
then says what is wrong.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from t2gen.errors import Warning_

__all__ = ["MAX_STREAM_BYTES", "main", "to_helms_stderr"]

MAX_STREAM_BYTES = 20 * 1024 * 1024
"""Largest stream read from stdin: as ``t2gen check``'s largest manifest stream."""


def _appends(pid: int, fd: int) -> bool:
    """Whether a process's file descriptor was opened for appending (``/proc/PID/fdinfo``)."""
    try:
        info = Path(f"/proc/{pid}/fdinfo/{fd}").read_text(encoding="ascii")
    except OSError:
        return False
    for line in info.splitlines():
        if line.startswith("flags:"):
            return bool(int(line.split()[1], 8) & os.O_APPEND)
    return False


def to_helms_stderr() -> bool:
    """Point standard error at Helm's, when Helm runs this as a plugin and would drop it.

    Linux only: Helm's standard error is opened through ``/proc/<Helm's
    pid>/fd/2``. Nothing changes when this does not run under Helm 4
    (``HELM_PLUGIN_NAME`` unset), when standard error already is Helm's, or
    when Helm's is a regular file opened without ``O_APPEND`` (a write at its
    end would be overwritten by Helm's next line).

    Returns:
        Whether standard error now is Helm's.
    """
    if "HELM_PLUGIN_NAME" not in os.environ:
        return False
    helm = os.getppid()
    target = Path(f"/proc/{helm}/fd/2")
    try:
        theirs = target.stat()
        mine = os.fstat(2)
    except OSError:
        return False
    if (theirs.st_dev, theirs.st_ino) == (mine.st_dev, mine.st_ino):
        return False
    if stat.S_ISREG(theirs.st_mode) and not _appends(helm, 2):
        return False
    try:
        descriptor = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_NOCTTY)
    except OSError:
        return False
    sys.stderr.flush()
    os.dup2(descriptor, 2)
    os.close(descriptor)
    return True


def main() -> None:
    """Read the chart's manifests on stdin, print them with every job rendered (see the module)."""
    from t2gen.cli.commands import guard_closed_streams, run

    guard_closed_streams()
    to_helms_stderr()
    if sys.argv[1:]:  # --post-renderer-args: none are taken
        sys.stderr.write(
            f"t2gen-post-renderer: takes no arguments, got {' '.join(sys.argv[1:])!r}; "
            "the job file in the chart says everything\n"
        )
        sys.exit(2)

    def body(warnings: list[Warning_]) -> None:
        from t2gen.inputs.textfile import decode_source, read_source
        from t2gen.output import write_stdout
        from t2gen.pipeline.poststream import post_render

        raw = read_source(
            "-",
            limit=MAX_STREAM_BYTES,
            what="manifest stream",
            advice="t2gen-post-renderer reads at most that much",
        )
        text = decode_source("stdin", raw, what="manifest stream")
        write_stdout(post_render(text, warnings))

    sys.exit(run(body))
