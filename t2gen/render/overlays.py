"""What ``--templates`` directories may hold, judged before any template renders (:func:`t2gen.pipeline.job.make_template_set`).

An overlay directory must hold a template (``*.j2``), overlays of new partials
only are refused (nothing would include them), and the overlays of one
command hold at most :data:`MAX_OVERLAY_TEMPLATES` templates in at most
:data:`MAX_OVERLAY_DIRS` directories. :func:`builtin_references` lists what
each built-in template includes, so a render meters only the templates an
overlay touches (:meth:`t2gen.render.engine.TemplateSet.metered_templates`).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import jinja2

__all__ = [
    "MAX_OVERLAY_DIRS",
    "MAX_OVERLAY_TEMPLATES",
    "builtin_references",
    "overlay_problem",
    "partials_only_problem",
    "template_files",
    "too_many_templates",
]

MAX_OVERLAY_DIRS = 16
"""Most ``--templates`` directories one command takes (a usage error past it, before any is read).

Each is searched for every template a render loads: 10,000 of them once cost
95x a plain render's CPU."""

MAX_OVERLAY_TEMPLATES = 500
"""Most ``*.j2`` files in all the ``--templates`` directories together (2,000 cost 14.5x a render)."""


@functools.lru_cache(maxsize=4)
def builtin_references(builtin: str) -> dict[str, frozenset[str] | None]:
    """``{built-in template: the templates it names}``; None where a name is computed when it renders."""
    from jinja2 import meta

    parser = jinja2.Environment()  # parsing only: the tags are the sandbox's
    references: dict[str, frozenset[str] | None] = {}
    for name in template_files(builtin):
        source = Path(builtin, name).read_text(encoding="utf-8")
        names = list(meta.find_referenced_templates(parser.parse(source)))
        references[name] = (
            None if any(n is None for n in names) else frozenset(str(n) for n in names)
        )
    return references


def overlay_problem(directory: str) -> str | None:
    """What makes ``directory`` no template overlay (``--templates``), or None.

    A directory without a ``*.j2`` file changes nothing, which is never what
    was meant: most often its templates are named ``x.yaml``, and silently
    ignored they would drop the objects the user added.
    """
    if not Path(directory).is_dir():
        return "no such template directory"
    if not template_files(directory):
        return (
            "holds no template: only files ending in .j2 are read (e.g. "
            "networkpolicy.yaml.j2; `t2gen templates list` shows the built-in ones)"
        )
    return None


def partials_only_problem(
    overlays: Sequence[str | os.PathLike[str]], builtin: str | os.PathLike[str]
) -> tuple[str, str] | None:
    """The first overlay directory and why, when the overlays hold nothing a render uses.

    A partial (``_*.j2``) is rendered only where a template includes it: the
    built-in templates include only built-in partials, so overlays whose every
    file is a partial of a new name change nothing, and the render would exit
    0 with none of the objects they were written for. Such overlays are
    refused; one template among them (which may include the others'
    partials), or one partial replacing a built-in one, is enough.

    Args:
        overlays: the ``--templates`` directories, each already an overlay
            (:func:`overlay_problem`).
        builtin: the built-in set's directory.

    Returns:
        ``(directory, problem)`` of the first overlay, or None when the overlays
        change what is rendered.
    """
    builtin_partials = set(template_files(builtin))
    listed = [(directory, template_files(directory)) for directory in overlays]
    for _, names in listed:
        if any(not name.startswith("_") or name in builtin_partials for name in names):
            return None
    if not listed:
        return None
    directory, names = listed[0]
    return os.fspath(directory), (
        f"holds only partials ({', '.join(names)}), which only a template includes, and "
        "none replaces a built-in one: add a template (a *.j2 file not starting with _) "
        "that includes them"
    )


def too_many_templates(
    overlays: Sequence[str | os.PathLike[str]],
) -> tuple[str, str] | None:
    """The overlay directory where the templates pass :data:`MAX_OVERLAY_TEMPLATES`, and why; or None.

    Counted in argument order, each directory's ``*.j2`` files (a name that
    several directories hold counts in each); the count stops past the limit.
    """
    total = 0
    for directory in overlays:
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    total += entry.name.endswith(".j2")
                    if total > MAX_OVERLAY_TEMPLATES:
                        return os.fspath(directory), (
                            f"the template directories hold more than {MAX_OVERLAY_TEMPLATES} "
                            f"templates (*.j2 files) in all; a render reads at most "
                            f"{MAX_OVERLAY_TEMPLATES}: keep only the templates you change or add"
                        )
        except OSError:
            continue
    return None


def template_files(directory: str | os.PathLike[str]) -> list[str]:
    """The names in ``directory`` ending in ``.j2`` (as ``Path.glob("*.j2")``), sorted; none if unreadable."""
    try:
        with os.scandir(directory) as entries:
            return sorted(entry.name for entry in entries if entry.name.endswith(".j2"))
    except OSError:
        return []


_LISTINGS = 8
_listings: dict[tuple[str, str, int, int, int], tuple[tuple[str, str], ...]] = {}


def listed_while_unchanged(
    directory: str | os.PathLike[str],
    name: str,
    list_them: Callable[[], list[tuple[str, str]]],
) -> tuple[tuple[str, str], ...]:
    """What ``list_them()`` lists from ``directory`` (shown as set ``name``), listed again only when the directory changes.

    Keyed on the directory's path, device, inode and modification time (a file
    added, removed or renamed in it changes the time); at most
    :data:`_LISTINGS` listings are kept. A directory that cannot be read is
    listed every time.
    """
    path = os.fspath(directory)
    try:
        status = os.stat(path)  # noqa: PTH116 - once per job, a Path costs more than the stat
    except OSError:
        return tuple(list_them())
    key = (name, path, status.st_dev, status.st_ino, status.st_mtime_ns)
    found = _listings.get(key)
    if found is None:
        if len(_listings) >= _LISTINGS:
            _listings.clear()
        found = _listings[key] = tuple(list_them())
    return found


def file_labels(
    layers: Sequence[tuple[str, str | os.PathLike[str]]],
) -> dict[str, str]:
    """``{template file, as Jinja2 names it: its label}``: ``DIR/file`` in an overlay, ``set/file`` built in.

    Args:
        layers: ``(label, directory)`` of each overlay, then of the built-in set.

    Listed only when a template fails, to name the file the error is in, which
    may be an overlay's partial included by a built-in template.
    """
    labels: dict[str, str] = {}
    for label, directory in layers:
        for file_name in template_files(directory):
            # The first directory wins, as in Jinja2's search and all_templates().
            labels.setdefault(
                os.path.normpath(Path(directory, file_name)),
                f"{label}/{file_name}",
            )
    return labels


def template_line(
    error: BaseException, filenames: set[str]
) -> tuple[str | None, int | None]:
    """Find the template file and line an exception was raised from (Jinja2 rewrites tracebacks)."""
    import traceback  # only when a template fails

    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        if frame.filename in filenames:
            return frame.filename, frame.lineno
    return None, None
