"""The sandbox every template renders in: no code, no files outside the template directories, bounded work.

Templates may come from a pull request (``render --templates DIR``), so they
render in a subclass of Jinja2's ``ImmutableSandboxedEnvironment``
(https://jinja.palletsprojects.com/en/stable/sandbox/), made stricter (the work
limits and their meter live in :mod:`t2gen.render.budget`):

* **No Python.** No attribute starting with ``_`` (``__class__``,
  ``__globals__``...), no method that changes a list or dict (Jinja2's
  immutable sandbox), and of ``str``, ``list``, ``dict`` and the numbers only
  the methods in :data:`SAFE_METHODS`. The globals are ``range`` (at most
  :data:`MAX_RANGE` items), ``dict``, ``namespace``, ``cycler`` and
  ``joiner``; ``lipsum`` is removed (it writes text without bound).
* **No files.** :class:`SandboxedFileLoader` reads a template only if it is a
  regular file of at most :data:`MAX_TEMPLATE_BYTES`, whose real path (symbolic
  links resolved) lies inside the directory it was found in.
* **Bounded work.** Every loop iteration, call, filter, include and written
  expression is charged to a :class:`Meter` of :data:`WORK_BUDGET` units
  (strings count their characters, lists and mappings their items, each time
  they are reached); an operation that would make a value larger than
  :data:`MAX_VALUE_SIZE` (``'x' * 10**9``, ``s.center(10**9)``, an integer of
  more than :data:`MAX_INT_BITS` bits) is refused before it runs; and a
  render writes at most :data:`MAX_OUTPUT_CHARS`. Each limit raises
  :class:`TemplateLimitError` inside the template, so the error names the
  template and line (:func:`t2gen.render.engine.render`).

The built-in templates are compiled by this environment too
(``scripts/precompile_templates.py``), so they obey the same rules.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment

from t2gen.render.budget import (
    TemplateLimitError,
    charge,
    charge_binop,
    charge_compile,
    charge_slice,
    check_binop,
    check_made,
    concat,
    limited_range,
    metered_loop,
)
from t2gen.render.guards import guard_call, guard_filter, made_by

__all__ = [
    "MAX_TEMPLATE_BYTES",
    "SAFE_METHODS",
    "SANDBOX_VERSION",
    "SandboxedFileLoader",
    "T2genSandbox",
    "read_template_file",
]

SANDBOX_VERSION = "2"
"""Changes whenever the code the sandbox compiles changes (part of the precompiled templates' key)."""

MAX_TEMPLATE_BYTES = 1024 * 1024
"""Largest template file read (1 MiB); the built-in ones are under 4 KiB."""

SAFE_METHODS: dict[type, frozenset[str]] = {
    str: frozenset(
        [
            "capitalize",
            "casefold",
            "center",
            "count",
            "endswith",
            "find",
            "format",
            "format_map",
            "index",
            "isalnum",
            "isalpha",
            "isascii",
            "isdecimal",
            "isdigit",
            "islower",
            "isnumeric",
            "isspace",
            "istitle",
            "isupper",
            "join",
            "ljust",
            "lower",
            "lstrip",
            "partition",
            "removeprefix",
            "removesuffix",
            "replace",
            "rfind",
            "rindex",
            "rjust",
            "rpartition",
            "rsplit",
            "rstrip",
            "split",
            "splitlines",
            "startswith",
            "strip",
            "swapcase",
            "title",
            "upper",
            "zfill",
        ]
    ),
    dict: frozenset({"get", "items", "keys", "values"}),
    list: frozenset({"count", "index"}),
    tuple: frozenset({"count", "index"}),
    int: frozenset({"bit_length"}),
    float: frozenset({"is_integer"}),
    bool: frozenset(),
}
"""The only methods a template may use on these types (every other attribute is refused)."""


def _allowed_methods(kind: type[object]) -> frozenset[str] | None:
    """The :data:`SAFE_METHODS` of ``kind`` or of its nearest base that has some; None: not a builtin type."""
    for base in kind.__mro__:
        if base in SAFE_METHODS:
            return SAFE_METHODS[base]
    return None


class _CodeGenerator(CodeGenerator):
    """Jinja2's code generator with ``~`` going through :func:`concat`, and slices through :func:`charged_slice`."""

    def visit_Getitem(self, node: nodes.Getitem, frame: Frame) -> None:
        """Write ``environment.t2gen_slice(obj, slice(a, b, c))`` for a slice (Jinja2 writes ``obj[a:b:c]``)."""
        if not isinstance(node.arg, nodes.Slice):
            super().visit_Getitem(node, frame)
            return
        self.write("environment.t2gen_slice(")
        self.visit(node.node, frame)
        self.write(", slice(")
        for part in (node.arg.start, node.arg.stop, node.arg.step):
            if part is None:
                self.write("None")
            else:
                self.visit(part, frame)
            self.write(", ")
        self.write("))")

    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        """Write ``environment.t2gen_concat((a, b, ...))`` instead of a plain join."""
        self.write("environment.t2gen_concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


def charged_slice(obj: Any, part: slice) -> Any:
    """``obj[part]``, charged by what it copies (:func:`t2gen.render.budget.charge_slice`)."""
    charge_slice(obj, part)
    return obj[part]


def _static_text(node: nodes.Node) -> int:
    """Characters of literal template text directly inside ``node``'s body."""
    return sum(len(data.data) for data in node.find_all(nodes.TemplateData))


_DICT_NAMES = frozenset(dir(dict))
"""Every attribute a plain dict has (its type's and ``object``'s)."""


class T2genSandbox(ImmutableSandboxedEnvironment):
    """Jinja2's immutable sandbox, stricter: see the module docstring for what a template may do."""

    intercepted_binops = frozenset({"*", "**", "+", "%", "//", "/"})
    code_generator_class = _CodeGenerator
    sandbox_version = SANDBOX_VERSION

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Create the environment (arguments as :class:`jinja2.Environment`)."""
        super().__init__(*args, **kwargs)
        self.globals.pop("lipsum", None)
        self.globals["range"] = limited_range
        self.filters = {
            name: guard_filter(name, function)
            for name, function in self.filters.items()
        }
        self.filters["t2gen_loop"] = metered_loop
        self.t2gen_concat = concat
        self.t2gen_slice = charged_slice
        self.t2gen_sizes: dict[str, int] = {}
        """Characters of each template file read, by path (an include is charged by it)."""
        self.t2gen_keys_first = False
        """While true, :meth:`getattr` reads a plain dict's key without looking for an attribute first
        (:class:`t2gen.render.skeleton.JobScope` sets it for the built-in set alone)."""

    def add_filters(self, filters: dict[str, Callable[..., Any]]) -> None:
        """Add filters, each metered and size-checked as the built-in ones are."""
        for name, function in filters.items():
            self.filters[name] = guard_filter(name, function)

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        """Refuse private names, mutating methods, and methods of builtin types not in :data:`SAFE_METHODS`.

        A subclass gets its nearest base's list (a ``Markup``, which ``|safe`` and
        ``|e`` make, is a ``str``: its ``translate`` and ``expandtabs`` are
        refused as a ``str``'s are).
        """
        if not super().is_safe_attribute(obj, attr, value):
            return False
        kind: type[object] = type(obj)
        allowed = _allowed_methods(kind)
        return allowed is None or attr in allowed

    def getattr(self, obj: Any, attribute: str) -> Any:
        """``obj.attribute`` as Jinja2's sandbox reads it: an attribute, else an item, else undefined.

        With :attr:`t2gen_keys_first`, a plain dict's name that no dict has as an
        attribute (``dir(dict)``: a dict has no others) is read as the key at
        once: the same value or undefined, without the attribute lookup that
        must fail (raising costs some 2 µs, ten times the key).
        """
        if (
            self.t2gen_keys_first
            and type(obj) is dict
            and type(attribute) is str
            and attribute not in _DICT_NAMES
        ):
            try:
                return obj[attribute]
            except LookupError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        """Run ``left operator right`` when the result stays within the limits: charged by its digits."""
        check_binop(operator, left, right)
        charge_binop(operator, left, right)
        result = super().call_binop(context, operator, left, right)
        check_made(result, f"'{operator}'")
        return result

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        """Call ``__obj`` from a template: charged, and refused when it would make a value over the limits."""
        args = guard_call(__obj, args, kwargs)
        result = super().call(__context, __obj, *args, **kwargs)
        check_made(result, made_by(__obj))
        return result

    def get_template(
        self, name: Any, parent: str | None = None, globals: Any = None
    ) -> jinja2.Template:
        """Load a template (``include``, ``import``, ``extends``): charged by its size."""
        template = super().get_template(name, parent, globals)
        charge(self.t2gen_sizes.get(template.filename or "", 0) // 8 + 1)
        return template

    def _parse(
        self, source: str, name: str | None, filename: str | None
    ) -> nodes.Template:
        """Charge the compilation, parse, then wrap every ``{% for %}`` loop's iterable in the metering ``t2gen_loop`` filter."""
        charge_compile(source)  # before the parser and Python's compiler run
        tree = super()._parse(source, name, filename)
        for loop in tree.find_all(nodes.For):
            weight = 1 + (_static_text(nodes.Output(loop.body)) // 8)
            loop.iter = nodes.Filter(
                loop.iter,
                "t2gen_loop",
                [nodes.Const(weight)],
                [],
                None,
                None,
                lineno=loop.lineno,
            )
        return tree


def read_template_file(directory: str, pieces: list[str]) -> tuple[str, str] | None:
    """Read ``directory/pieces...`` as a template, refusing what a sandbox must not read.

    Args:
        directory: a template directory (an overlay or the built-in set).
        pieces: the template's name split at ``/`` (no ``..``, as Jinja2's
            ``split_template_path`` gives it).

    Returns:
        ``(source, path)``, or None when there is no such entry (the next
        directory is searched).

    Raises:
        TemplateLimitError: the entry is a symbolic link (or lies under one)
            leading outside ``directory``, is not a regular file, or is larger
            than :data:`MAX_TEMPLATE_BYTES`.
    """
    path = os.path.normpath(os.path.join(directory, *pieces))
    if not os.path.lexists(path):
        return None
    root = os.path.realpath(directory)
    real = os.path.realpath(path)
    if os.path.commonpath([root, real]) != root:
        raise TemplateLimitError(
            f"{path} is a symbolic link to {real}, outside the template directory {directory}; "
            "templates may read only files inside their directory"
        )
    if os.path.isdir(real):
        return None
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(real, flags)
    except OSError as err:
        raise TemplateLimitError(
            f"{path}: cannot read the template ({err.strerror})"
        ) from None
    with os.fdopen(descriptor, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise TemplateLimitError(
                f"{path} is not a regular file; a template must be one"
            )
        if info.st_size > MAX_TEMPLATE_BYTES:
            raise TemplateLimitError(
                f"{path} is {info.st_size:,} bytes; a template may have at most {MAX_TEMPLATE_BYTES:,}"
            )
        data = file.read(MAX_TEMPLATE_BYTES + 1)
    if len(data) > MAX_TEMPLATE_BYTES:
        raise TemplateLimitError(
            f"{path} is over {MAX_TEMPLATE_BYTES:,} bytes; a template may have at most that"
        )
    try:
        return data.decode("utf-8"), path
    except UnicodeDecodeError as err:
        raise TemplateLimitError(
            f"{path} is not UTF-8 text ({err.reason} at byte {err.start})"
        ) from None


class SandboxedFileLoader(jinja2.FileSystemLoader):
    """Jinja2's file-system loader, reading through :func:`read_template_file`."""

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        """The source of ``template`` from the first directory holding it."""
        from jinja2.loaders import split_template_path

        pieces = split_template_path(template)
        for directory in self.searchpath:
            found = read_template_file(directory, pieces)
            if found is not None:
                sizes = getattr(environment, "t2gen_sizes", None)
                if sizes is not None:
                    sizes[found[1]] = len(found[0])
                return found[0], found[1], lambda: True
        raise jinja2.TemplateNotFound(template)
