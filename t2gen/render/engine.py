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
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jinja2
import yaml

from t2gen.errors import TemplateError
from t2gen.kube.yamlio import dump_flow, load_all_yaml
from t2gen.record import Record
from t2gen.resources import templates_dir

__all__ = [
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


def _b64encode(value: str | bytes) -> str:
    """Base64 of a string's UTF-8 bytes (for Secret ``data``)."""
    import base64

    raw = value.encode("utf-8") if isinstance(value, str) else value
    return base64.b64encode(raw).decode("ascii")


FILTERS: dict[str, Any] = {"b64encode": _b64encode}
"""Filters added to Jinja2's built-ins."""


class RenderedDocument(Record):
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


class TemplateSet(Record):
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
    compiled once however many jobs are rendered. The built-in templates are
    not compiled at all when ``t2gen/render/_precompiled`` holds them for this
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
    return _environment(tuple(str(path) for path in search_path))


def _new_environment(loader: jinja2.BaseLoader | None) -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_finalize,
        auto_reload=False,
    )
    environment.filters.update(FILTERS)
    return environment


def compile_key(environment: jinja2.Environment) -> str:
    """What compiled template code depends on besides its source: Jinja2's version and the syntax settings.

    The precompiled templates are used only when this key equals the one they
    were generated with.
    """
    settings = [
        jinja2.__version__,
        environment.block_start_string,
        environment.block_end_string,
        environment.variable_start_string,
        environment.variable_end_string,
        environment.comment_start_string,
        environment.comment_end_string,
        str(environment.line_statement_prefix),
        str(environment.line_comment_prefix),
        str(environment.trim_blocks),
        str(environment.lstrip_blocks),
        repr(environment.newline_sequence),
        str(environment.keep_trailing_newline),
        str(environment.finalize is not None),
        str(environment.autoescape),
        str(environment.optimized),
        str(environment.is_async),
        ",".join(sorted(environment.extensions)),
    ]
    return "|".join(settings)


def precompiled_name(template_path: Path) -> str:
    """The module in ``t2gen/render/_precompiled`` for a built-in template (``k8s__configmap_yaml_j2``)."""
    return f"{template_path.parent.name}__{template_path.name}".replace(
        ".", "_"
    ).replace("-", "_")


def compile_builtin_templates() -> dict[str, str]:
    """Compile every built-in template to Python source, as ``make generate`` writes it.

    Returns:
        ``{module file name: Python source}``: one module per template
        (Jinja2's raw code, ``defer_init``), plus ``__init__.py`` holding
        :func:`compile_key` and, per template, the SHA-256 of the source it was
        compiled from.
    """
    import hashlib

    environment = _new_environment(None)
    manifest: dict[str, tuple[str, str]] = {}
    modules: dict[str, str] = {}
    for directory in sorted(
        path for path in templates_dir().iterdir() if path.is_dir()
    ):
        for path in sorted(directory.glob("*.j2")):
            source = path.read_text(encoding="utf-8")
            module = precompiled_name(path)
            code = environment.compile(
                source, path.name, str(path), raw=True, defer_init=True
            )
            modules[f"{module}.py"] = (
                f"# Generated by `make generate` from templates/{directory.name}/{path.name}"
                f" (Jinja2 {jinja2.__version__}); do not edit.\n"
                "# ruff: noqa\n"
                "# mypy: ignore-errors\n"
                f"{code}\n"
            )
            manifest[f"{directory.name}/{path.name}"] = (
                hashlib.sha256(source.encode("utf-8")).hexdigest(),
                module,
            )
    lines = [
        '"""The built-in templates compiled by Jinja2 (generated by `make generate`; do not edit).',
        "",
        "Used only while :data:`KEY` equals :func:`t2gen.render.engine.compile_key`",
        "and a template's source still has the SHA-256 recorded here; otherwise the",
        "template is compiled from its source.",
        '"""',
        "",
        f"KEY = {compile_key(environment)!r}",
        "",
        "TEMPLATES = {",
        *(f"    {key!r}: {value!r}," for key, value in sorted(manifest.items())),
        "}",
        "",
    ]
    modules["__init__.py"] = "\n".join(lines)
    return modules


class PrecompiledLoader(jinja2.FileSystemLoader):
    """A file-system loader that takes built-in templates from ``t2gen/render/_precompiled``.

    A template is taken precompiled only if its file is a built-in template
    (``templates/<set>/<file>``), the precompiled set was generated with this
    environment's :func:`compile_key` (the same Jinja2 version and settings),
    and the file's SHA-256 is the one it was compiled from. Everything else,
    and every ``--templates`` overlay, is compiled from source in memory. The
    precompiled code ships inside the package, so it is as trusted as t2gen's
    own modules; nothing is loaded from a cache directory.
    """

    def load(
        self,
        environment: jinja2.Environment,
        name: str,
        globals: Any = None,
    ) -> jinja2.Template:
        """Load template ``name``: precompiled when it is current, else compiled from source."""
        source, filename, uptodate = self.get_source(environment, name)
        namespace = _precompiled(environment, name, filename, source)
        if namespace is None:
            code = environment.compile(source, name, filename)
            return environment.template_class.from_code(
                environment, code, globals or {}, uptodate
            )
        template = environment.template_class.from_module_dict(
            environment, namespace, globals or {}
        )
        template._uptodate = uptodate  # as from_code sets it
        return template


def _precompiled(
    environment: jinja2.Environment, name: str, filename: str, source: str
) -> dict[str, Any] | None:
    """The namespace of a current precompiled built-in template, or None."""
    import hashlib

    from t2gen.render import _precompiled

    path = Path(filename)
    if path.parent.parent != templates_dir() or name != path.name:
        return None
    entry = _precompiled.TEMPLATES.get(f"{path.parent.name}/{path.name}")
    if entry is None or compile_key(environment) != _precompiled.KEY:
        return None
    digest, module = entry
    if hashlib.sha256(source.encode("utf-8")).hexdigest() != digest:
        return None
    from importlib.machinery import SourceFileLoader

    module_path = Path(_precompiled.__file__).parent / f"{module}.py"
    qualified = f"{_precompiled.__name__}.{module}"
    code = SourceFileLoader(qualified, str(module_path)).get_code(qualified)
    if code is None:  # pragma: no cover - a source file always has code
        return None
    namespace: dict[str, Any] = {
        "environment": environment,
        "__file__": filename,
        "__name__": qualified,
    }
    exec(code, namespace)
    return namespace


@functools.lru_cache(maxsize=16)
def _environment(search_path: tuple[str, ...]) -> jinja2.Environment:
    return _new_environment(PrecompiledLoader(list(search_path)))


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
