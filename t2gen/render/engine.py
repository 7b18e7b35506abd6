"""Render a template set with Jinja2 into Kubernetes objects.

Every ``{{ expression }}`` is emitted as a YAML flow value (a quoted string, a
number, ``{key: value}``), never as raw text, so no input value can change the
document's structure: strings with newlines, ``---``, ``: `` or ``{{`` come back
unchanged. Build a composite string inside the braces (``{{ job.name ~ "-x" }}``).
Rendered text is parsed again as kubectl parses it, so a template that emits
bad YAML fails with its name instead of producing a broken manifest.
"""

from __future__ import annotations

import functools
import os
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import yaml

from t2gen.errors import TemplateError
from t2gen.kube.yamlio import dump_flow, load_all_yaml

__all__ = ["FILTERS", "RenderedDocument", "TemplateSet", "make_environment", "render"]


def _b64encode(value: str | bytes) -> str:
    """Base64 of a string's UTF-8 bytes (for Secret ``data``)."""
    import base64

    raw = value.encode("utf-8") if isinstance(value, str) else value
    return base64.b64encode(raw).decode("ascii")


FILTERS: dict[str, Any] = {"b64encode": _b64encode}
"""Filters added to Jinja2's built-ins."""


@dataclass(frozen=True)
class RenderedDocument:
    """One Kubernetes object and the template that produced it.

    Attributes:
        template: the template's name as shown in ``# Source:`` (``k8s/configmap.yaml.j2``).
        obj: the object as kubectl will read it (dicts, lists, scalars).
    """

    template: str
    obj: dict[str, Any]

    @property
    def kind(self) -> str:
        """The object's ``kind``."""
        return str(self.obj.get("kind", ""))

    @property
    def name(self) -> str:
        """The object's ``metadata.name``."""
        return str(self.obj.get("metadata", {}).get("name", ""))

    @property
    def namespace(self) -> str | None:
        """The object's ``metadata.namespace``, if set."""
        namespace = self.obj.get("metadata", {}).get("namespace")
        return str(namespace) if namespace is not None else None


@dataclass(frozen=True)
class TemplateSet:
    """Where templates come from: overlay directories first, then the built-in set.

    Attributes:
        name: the built-in set's name (``k8s``), shown in ``# Source:`` lines.
        builtin: the built-in set's directory.
        overlays: user directories whose files replace built-in ones of the same
            name or add objects (``--templates DIR``), with the label shown for each.
    """

    name: str
    builtin: Path
    overlays: tuple[tuple[str, Path], ...] = ()

    def search_path(self) -> list[Path]:
        """Directories in lookup order: overlays, then the built-in set."""
        return [path for _, path in self.overlays] + [self.builtin]

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
            for path in sorted(directory.glob("*.j2")):
                chosen.setdefault(path.name, f"{label}/{path.name}")
        return sorted(chosen.items())

    def source(self, name: str) -> str:
        """Return the text of template ``name`` (``configmap.yaml.j2`` or ``k8s/configmap.yaml.j2``).

        Raises:
            TemplateError: no template of that name.
        """
        file_name = Path(name).name
        for directory in self.search_path():
            path = directory / file_name
            if path.is_file():
                return path.read_text(encoding="utf-8")
        known = ", ".join(n for n, _ in self.all_templates())
        raise TemplateError(
            template=name,
            line=None,
            message=f"no such template; the templates are {known}",
        )


def _finalize(value: Any) -> str:
    """Emit an expression's value as YAML (quoted when needed), never as raw text."""
    if isinstance(value, jinja2.Undefined):
        str(value)  # StrictUndefined raises UndefinedError naming the variable
    try:
        return dump_flow(value)
    except TypeError:
        raise TypeError(f"cannot write a {type(value).__name__} as YAML") from None


def make_environment(search_path: Sequence[Path]) -> jinja2.Environment:
    """Return the strict Jinja2 environment used for every template, one per search path.

    The environment is kept for the life of the process, so each template is
    compiled once however many jobs are rendered; compiled templates are also
    kept on disk (:func:`_bytecode_cache`) for the next process.

    Args:
        search_path: template directories, first match wins.

    Returns:
        An environment with ``StrictUndefined`` (an undefined name is an error),
        trimmed block lines, no HTML escaping, kept trailing newlines, YAML
        emission of every expression, and :data:`FILTERS`.
    """
    return _environment(tuple(str(path) for path in search_path))


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Jinja2's on-disk cache of compiled templates, or None if there is no writable place.

    ``$T2GEN_CACHE_DIR`` (empty: no cache), else ``$XDG_CACHE_HOME/t2gen``, else
    ``~/.cache/t2gen``. Entries are keyed by the template's source checksum, so an
    edited template is compiled again.
    """
    configured = os.environ.get("T2GEN_CACHE_DIR")
    if configured == "":
        return None
    if configured:
        base = Path(configured)
    else:
        base = (
            Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "t2gen"
        )
    directory = base / f"jinja-{jinja2.__version__}"
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    if not os.access(directory, os.W_OK):
        return None
    return jinja2.FileSystemBytecodeCache(str(directory))


@functools.lru_cache(maxsize=16)
def _environment(search_path: tuple[str, ...]) -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(list(search_path)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_finalize,
        bytecode_cache=_bytecode_cache(),
        auto_reload=False,
    )
    environment.filters.update(FILTERS)
    return environment


def _template_line(
    error: BaseException, filenames: set[str]
) -> tuple[str | None, int | None]:
    """Find the template file and line an exception was raised from (Jinja2 rewrites tracebacks)."""
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        if frame.filename in filenames:
            return frame.filename, frame.lineno
    return None, None


def render(
    context: dict[str, Any], template_set: TemplateSet
) -> list[RenderedDocument]:
    """Render every template of a set, in file-name order, into objects.

    Args:
        context: from :func:`t2gen.render.context.build_context`.
        template_set: the templates to render.

    Returns:
        The objects in template order (a template may emit several, or none).

    Raises:
        TemplateError: a template has a syntax error, uses an undefined name,
            emits YAML that does not parse, or emits something that is not a
            Kubernetes object; the message names the template and line.
    """
    environment = make_environment(template_set.search_path())
    filenames = {
        str(path)
        for directory in template_set.search_path()
        for path in directory.glob("*.j2")
    }
    documents: list[RenderedDocument] = []
    for file_name, label in template_set.templates():
        try:
            text = environment.get_template(file_name).render(context)
        except jinja2.TemplateSyntaxError as err:
            raise TemplateError(
                template=_label(err.name, label),
                line=err.lineno,
                message=err.message or "syntax error",
            ) from None
        except (
            jinja2.TemplateError,
            TypeError,
            ValueError,
            KeyError,
            AttributeError,
        ) as err:
            filename, line = _template_line(err, filenames)
            where = label if filename is None else _label(Path(filename).name, label)
            raise TemplateError(
                template=where, line=line, message=str(err) or type(err).__name__
            ) from None
        documents.extend(_parse(text, label))
    return documents


def _label(name: str | None, fallback: str) -> str:
    """Show a template as ``set/file``, keeping the set of the template being rendered."""
    if not name:
        return fallback
    return f"{fallback.rsplit('/', 1)[0]}/{Path(name).name}"


def _parse(text: str, label: str) -> list[RenderedDocument]:
    """Parse a template's output into objects, as kubectl would read it."""
    try:
        objects = load_all_yaml(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(err, "problem", None) or str(err)
        snippet = (
            text.splitlines()[line - 1].strip()
            if line and line <= len(text.splitlines())
            else ""
        )
        detail = f" at rendered line {line}: {snippet!r}" if line else ""
        raise TemplateError(
            template=label,
            line=None,
            message=f"the rendered YAML does not parse ({problem}){detail}",
        ) from None
    documents = []
    for obj in objects:
        if obj is None:
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict):
            raise TemplateError(
                template=label,
                line=None,
                message="renders a document that is not a Kubernetes object",
            )
        for key in ("apiVersion", "kind"):
            if not isinstance(obj.get(key), str) or not obj[key]:
                raise TemplateError(
                    template=label,
                    line=None,
                    message=f"renders an object without {key}",
                )
        if (
            not isinstance(obj["metadata"].get("name"), str)
            or not obj["metadata"]["name"]
        ):
            raise TemplateError(
                template=label,
                line=None,
                message=f"renders a {obj['kind']} without metadata.name",
            )
        documents.append(RenderedDocument(template=label, obj=obj))
    return documents
