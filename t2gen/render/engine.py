"""Render a template set with Jinja2 into Kubernetes objects.

Every ``{{ expression }}`` is emitted as a YAML flow value (a quoted string, a
number, ``{key: value}``), never as raw text, so no input value can change the
document's structure: strings with newlines, ``---``, ``: `` or ``{{`` come back
unchanged. Build a composite string inside the braces (``{{ job.name ~ "-x" }}``).
Rendered text is parsed again as kubectl parses it, so a template that emits
bad YAML fails with its name instead of producing a broken manifest. With the
built-in templates alone, each distinct document structure is parsed once and
later jobs' objects are built from the values the templates were given
(:mod:`t2gen.render.skeleton`); anything unusual renders and parses the text.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any, cast

import jinja2

from t2gen import fastpaths
from t2gen.errors import TemplateError
from t2gen.record import Record
from t2gen.render import skeleton
from t2gen.render.budget import (
    MAX_OUTPUT_CHARS,
    TemplateLimitError,
    metered,
    unmetered,
)
from t2gen.render.environment import FILTERS, new_environment
from t2gen.render.oslimits import OS_MEMORY_MB, os_bounds
from t2gen.render.overlays import (
    builtin_references,
    file_labels,
    listed_while_unchanged,
    template_files,
    template_line,
)
from t2gen.render.precompiled import (
    PrecompiledLoader,
    compile_builtin_templates,
    compile_key,
    precompiled_name,
)
from t2gen.render.readback import (
    OUTPUT_BOUNDS,
    OVERLAY_OUTPUT_BOUNDS,
    RenderedDocument,
    documents_of,
    parse_output,
)
from t2gen.render.sandbox import SandboxedFileLoader, read_template_file

__all__ = [
    "BUILTIN_OUTPUT_CHARS",
    "FILTERS",
    "PrecompiledLoader",
    "RenderedDocument",
    "TemplateSet",
    "compile_builtin_templates",
    "compile_key",
    "make_environment",
    "precompiled_name",
    "render",
]


BUILTIN_OUTPUT_CHARS = 32 * 1024 * 1024
"""Most characters the unmetered built-in templates may write for one job (32 Mi)."""


class TemplateSet(Record):
    """Where templates come from: overlay directories first, then the built-in set.

    Attributes:
        name: the built-in set's name (``k8s``), shown in ``# Source:`` lines.
        builtin: the built-in set's directory (a ``str`` or ``os.PathLike``).
        overlays: user directories whose files replace built-in ones of the same
            name or add objects (``--templates DIR``), with the label shown for each.
    """

    name: str
    builtin: str | os.PathLike[str]
    overlays: tuple[tuple[str, str | os.PathLike[str]], ...] = ()

    def search_path(self) -> list[str]:
        """Directories in lookup order: overlays, then the built-in set."""
        return [os.fspath(path) for _, path in self.overlays] + [
            os.fspath(self.builtin)
        ]

    def templates(self) -> list[tuple[str, str]]:
        """Return ``(template file name, source label)`` of every emitted template, sorted.

        Partials (``_*.j2``) are only included by other templates, never emitted.
        """
        return [
            (name, label)
            for name, label in self.all_templates()
            if not name.startswith("_")
        ]

    def all_templates(self) -> list[tuple[str, str]]:
        """Return ``(file name, source label)`` of every template and partial, sorted by name."""
        chosen: dict[str, str] = {}
        for label, directory in [*self.overlays, (self.name, self.builtin)]:
            for file_name in template_files(directory):
                chosen.setdefault(file_name, f"{label}/{file_name}")
        return sorted(chosen.items())

    def metered_templates(self) -> frozenset[str]:
        """The template files an overlay touches, whose work and output are metered.

        Every file of an overlay, and every built-in template that includes,
        imports or extends one of them, directly or through other built-in
        ones, or names a template Jinja2 cannot know before it renders. The
        others render as they do without overlays (:func:`render`).
        """
        if not self.overlays:
            return frozenset()
        touched = {
            name for _, directory in self.overlays for name in template_files(directory)
        }
        references = builtin_references(os.fspath(self.builtin))
        changed = True
        while changed:
            changed = False
            for name, names in references.items():
                if name not in touched and (names is None or names & touched):
                    touched.add(name)
                    changed = True
        return frozenset(touched)

    def source(self, name: str) -> str:
        """Return the text of template ``name`` (``configmap.yaml.j2`` or ``k8s/configmap.yaml.j2``).

        Raises:
            TemplateError: no template of that name, or one the sandbox refuses
                to read (:func:`t2gen.render.sandbox.read_template_file`).
        """
        file_name = Path(name).name  # "x.j2/" names x.j2
        for directory in self.search_path():
            try:  # what a render would refuse to read (a link out of the directory...)
                found = (
                    read_template_file(directory, [file_name]) if file_name else None
                )
            except TemplateLimitError as err:
                raise TemplateError(
                    template=name, line=None, message=str(err)
                ) from None
            if found is not None:
                return found[0]
        known = ", ".join(n for n, _ in self.all_templates())
        raise TemplateError(
            template=name,
            line=None,
            message=f"no such template; the templates are {known}",
        )


def make_environment(
    search_path: Sequence[str | os.PathLike[str]],
) -> jinja2.Environment:
    """Return the strict Jinja2 environment used for every template, one per search path.

    The environment is kept for the life of the process, so each template is
    compiled once however many jobs are rendered. The built-in templates are
    not compiled at all when ``t2gen/_generated/templates`` holds them for this
    Jinja2 version and these settings (:class:`PrecompiledLoader`); templates
    from ``--templates`` directories are compiled in memory. Nothing compiled
    is ever read from or written to a cache on disk.

    Args:
        search_path: template directories, first match wins.

    Returns:
        An environment with ``StrictUndefined`` (an undefined name is an error),
        trimmed block lines, no HTML escaping, kept trailing newlines, YAML
        emission of every expression, and :data:`FILTERS`.
    """
    return _environment(
        tuple(os.fspath(path) for path in search_path),
        fastpaths.enabled("PRECOMPILED"),
    )


@functools.lru_cache(maxsize=16)
def _environment(search_path: tuple[str, ...], precompiled: bool) -> jinja2.Environment:
    """One environment per search path, and per ``PRECOMPILED`` switch (its templates differ in origin).

    Either way the loader is the sandbox's (:class:`~t2gen.render.sandbox.SandboxedFileLoader`):
    the switch chooses where a built-in template's code comes from, never which
    files a template may read (with Jinja2's own ``FileSystemLoader`` an overlay
    could include a file through a link out of its directory).
    """
    loader = (
        PrecompiledLoader(list(search_path))
        if precompiled
        else SandboxedFileLoader(list(search_path))
    )
    return new_environment(loader)


def render(
    context: dict[str, Any], template_set: TemplateSet
) -> list[RenderedDocument]:
    """Render every template of a set, in file-name order, into objects.

    Args:
        context: from :func:`t2gen.render.context.build_context`.
        template_set: the templates to render.

    Returns:
        The objects in template order (a template may emit several, or none); each a tree (no YAML alias is read back).

    Raises:
        TemplateError: a template has a syntax error, uses an undefined name,
            emits YAML that does not parse, or emits something that is not a
            Kubernetes object; the message names the template and line.
    """
    environment = make_environment(template_set.search_path())
    if not template_set.overlays:
        # The built-in templates are t2gen's own: their work is bounded by the
        # job file's bounds (docs/untrusted-input.md), so nothing is metered.
        return _render_all(environment, context, template_set)
    current = [""]  # the template being rendered or read back
    try:  # one work budget for the templates the overlays touch
        with metered(), os_bounds():
            return _render_all(environment, context, template_set, current)
    except (TemplateLimitError, MemoryError) as err:  # outside a template's own code
        raise TemplateError(
            template=current[0], line=None, message=_limit_message(err)
        ) from None


def _limit_message(err: BaseException) -> str:
    """What a limit met while rendering says (a MemoryError says nothing itself)."""
    if isinstance(err, RecursionError):
        return (
            "the templates include, import or call each other too deep (a template that "
            "includes itself, or a macro that calls itself without end)"
        )
    if isinstance(err, MemoryError):
        return (
            f"the templates needed more than {OS_MEMORY_MB} MB of memory "
            "(the operating system's bound behind the work meter)"
        )
    return str(err) or type(err).__name__


def _render_all(
    environment: jinja2.Environment,
    context: dict[str, Any],
    template_set: TemplateSet,
    current: list[str] | None = None,
) -> list[RenderedDocument]:
    """Render every template; those an overlay touches metered, with their own output bounds.

    A built-in template that reads no overlay file renders as without
    overlays: unmetered, by the skeleton's fast path where it applies, its
    output read back with :data:`~t2gen.render.readback.OUTPUT_BOUNDS`. The
    others share the meter, :data:`~t2gen.render.budget.MAX_OUTPUT_CHARS` and
    :data:`~t2gen.render.readback.OVERLAY_OUTPUT_BOUNDS`.
    """
    current = current if current is not None else [""]
    documents: list[RenderedDocument] = []
    touched = template_set.metered_templates()
    # [characters written, values read back]: one account for the built-in
    # templates, one for those the overlays touch.
    builtin_account, overlay_account = [0, 0], [0, 0]
    skeleton_on = fastpaths.enabled("SKELETON")
    scope = None
    if skeleton_on and not template_set.overlays:  # the built-in set alone
        scope = skeleton.JobScope(environment, context)  # one merge of the variables
    listed = (
        template_set.templates()
        if scope is None
        else listed_while_unchanged(
            template_set.builtin, template_set.name, template_set.templates
        )
    )
    # Unmetered once with the built-in set alone, else each template an overlay does not touch.
    outer, each = (
        (unmetered, contextlib.nullcontext)
        if scope
        else (contextlib.nullcontext, unmetered)
    )
    with outer():
        for file_name, label in listed:
            current[0] = label
            metered_here = file_name in touched
            account = overlay_account if metered_here else builtin_account
            with contextlib.nullcontext() if metered_here else each():
                if skeleton_on and not metered_here:
                    objects = skeleton.render_objects(
                        environment, file_name, context, scope
                    )
                    if objects is not None:
                        documents.extend(documents_of(objects, label))
                        continue
                text = _render_one(
                    environment,
                    template_set,
                    file_name,
                    label,
                    context,
                    account,
                    metered_here,
                )
                documents.extend(
                    parse_output(
                        text,
                        label,
                        account,
                        OVERLAY_OUTPUT_BOUNDS if metered_here else OUTPUT_BOUNDS,
                    )
                )
    return documents


def _render_one(
    environment: jinja2.Environment,
    template_set: TemplateSet,
    file_name: str,
    label: str,
    context: dict[str, Any],
    account: list[int],
    metered_here: bool,
) -> str:
    """Render one template's text; every error located in the template (or partial) it came from."""
    try:
        return _render_text(
            environment.get_template(file_name),
            context,
            account,
            MAX_OUTPUT_CHARS if metered_here else BUILTIN_OUTPUT_CHARS,
        )
    except jinja2.TemplateSyntaxError as err:
        shown = file_labels(
            [*template_set.overlays, (template_set.name, template_set.builtin)]
        ).get(os.path.normpath(err.filename or ""))
        raise TemplateError(
            template=shown or _label(err.name, label),
            line=err.lineno,
            message=err.message or "syntax error",
        ) from None
    except Exception as err:  # a template may raise anything ({{ 1 / 0 }})
        labels = file_labels(
            [*template_set.overlays, (template_set.name, template_set.builtin)]
        )
        filename, line = template_line(err, set(labels))
        message = _limit_message(err)
        if isinstance(err, jinja2.TemplateNotFound):
            message = f"no template {err.name!r} in the template directories"
        raise TemplateError(
            template=label if filename is None else labels[filename],
            line=line,
            message=message,
        ) from None


def _render_text(
    template: jinja2.Template, context: dict[str, Any], account: list[int], limit: int
) -> str:
    """Render a template as ``Template.render`` does, stopping at ``limit`` characters in its account.

    ``account[0]`` is what the templates of the account wrote so far, updated.
    The limit is raised inside the template (at the ``yield`` of the text
    that passes it), so the error names the line that wrote it.
    """
    chunks = []
    try:
        stream = cast(
            "Generator[str, None, None]",
            template.root_render_func(template.new_context(context)),
        )
        for chunk in stream:
            account[0] += len(chunk)
            if account[0] > limit:
                stream.throw(
                    TemplateLimitError(
                        f"the templates write more than {limit:,} characters"
                    )
                )
            chunks.append(chunk)
    except Exception:
        template.environment.handle_exception()
    return "".join(chunks)


def _label(name: str | None, fallback: str) -> str:
    """Show a template as ``set/file``, keeping the set of the template being rendered."""
    if not name:
        return fallback
    return f"{fallback.rsplit('/', 1)[0]}/{Path(name).name}"
