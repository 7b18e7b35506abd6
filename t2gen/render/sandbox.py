"""The sandbox every template renders in: no code, no files outside the template directories, bounded work.

Templates may come from a pull request (``render --templates DIR``), so they
render in a subclass of Jinja2's ``ImmutableSandboxedEnvironment``
(https://jinja.palletsprojects.com/en/stable/sandbox/), made stricter:

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

import contextlib
import functools
import os
import stat
from collections.abc import Callable, Iterator
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.exceptions import SecurityError
from jinja2.nodes import EvalContext
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment

from t2gen.patterns import LazyPattern

__all__ = [
    "MAX_INT_BITS",
    "MAX_OUTPUT_CHARS",
    "MAX_RANGE",
    "MAX_TEMPLATE_BYTES",
    "MAX_VALUE_SIZE",
    "SAFE_METHODS",
    "SANDBOX_VERSION",
    "WORK_BUDGET",
    "Meter",
    "SandboxedFileLoader",
    "T2genSandbox",
    "TemplateLimitError",
    "charge_output",
    "metered",
    "read_template_file",
    "sandbox_reference",
]

SANDBOX_VERSION = "1"
"""Changes whenever the code the sandbox compiles changes (part of the precompiled templates' key)."""

MAX_TEMPLATE_BYTES = 1024 * 1024
"""Largest template file read (1 MiB); the built-in ones are under 4 KiB."""

MAX_RANGE = 10_000
"""Most items ``range()`` gives in a template."""

MAX_VALUE_SIZE = 4 * 1024 * 1024
"""Largest value an operation may make: characters of a string, items of a list (4 Mi)."""

MAX_INT_BITS = 4096
"""Largest integer an operation may make, in bits (``2 ** 4096``)."""

WORK_BUDGET = 5_000_000
"""Work units one job's render may use: a loop iteration, call or filter is 1
plus the size of the values it reads and makes (a string of n characters is
n/8 + 1); a written expression is the size of its value. The largest jobs
t2gen renders (50 worker groups of 64 workers per pod, about 14 MB of YAML)
use about a third of it with the built-in templates."""

MAX_OUTPUT_CHARS = 32 * 1024 * 1024
"""Most characters one job's templates may write (32 Mi)."""

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

_WIDTH_METHODS = frozenset({"center", "ljust", "rjust", "zfill"})
_WIDTH_FILTERS = frozenset(
    {"center", "indent", "batch", "slice", "truncate", "wordwrap"}
)


class TemplateLimitError(SecurityError):
    """A template tried something the sandbox refuses (a limit or a forbidden name)."""


class Meter:
    """The work and output a render has used (see :data:`WORK_BUDGET`, :data:`MAX_OUTPUT_CHARS`)."""

    def __init__(self, budget: int = WORK_BUDGET) -> None:
        """A meter with ``budget`` work units left."""
        self.left = budget
        self.budget = budget

    def charge(self, units: int) -> None:
        """Use ``units`` of work; raise when the budget is spent."""
        self.left -= units
        if self.left < 0:
            raise TemplateLimitError(
                f"the templates did more than {self.budget:,} units of work "
                "(loop iterations, calls and the sizes of the values they handle); "
                "loop over less"
            )

    def charge_value(self, value: Any) -> None:
        """Charge the size of ``value`` (a walk that stops when the budget is spent)."""
        self.charge(_size(value, max(self.left, 0) + 1))


_meter: Meter | None = None


@contextlib.contextmanager
def metered(budget: int = WORK_BUDGET) -> Iterator[Meter]:
    """Meter every template rendered inside the block with one fresh budget."""
    global _meter
    previous, _meter = _meter, Meter(budget)
    try:
        yield _meter
    finally:
        _meter = previous


def _charge(units: int) -> None:
    if _meter is not None:
        _meter.charge(units)


def _charge_value(value: Any) -> None:
    if _meter is not None:
        _meter.charge_value(value)


def charge_output(value: Any) -> None:
    """Charge a value a ``{{ expression }}`` writes (called by the environment's finalize)."""
    _charge_value(value)


def _size(value: Any, limit: int) -> int:
    """The size of a value (characters, items, counted at every reach), or more than ``limit``.

    Shared items count each time they are reached (``[a, a]`` is twice ``a``),
    as a writer would write them; the walk stops once the count passes ``limit``.
    """
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (str, bytes)):
            total += len(item) // 8 + 1
        elif isinstance(item, dict):
            total += 1
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            total += 1
            stack.extend(item)
        elif isinstance(item, int) and not isinstance(item, bool):
            total += item.bit_length() // 64 + 1
        else:
            total += 1
        if total > limit:
            break
    return total


def _length(value: Any) -> int:
    if isinstance(value, (str, bytes, list, tuple, dict, set, frozenset)):
        return len(value)
    return 0


def _refuse_value(what: str, size: int) -> None:
    if size > MAX_VALUE_SIZE:
        raise TemplateLimitError(
            f"{what} would make a value of {size:,} characters or items, "
            f"more than the {MAX_VALUE_SIZE:,} a template may make"
        )


def _check_int(value: Any, what: str) -> None:
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise TemplateLimitError(
            f"{what} would make an integer of {value.bit_length():,} bits, "
            f"more than the {MAX_INT_BITS:,} a template may make"
        )


def _check_made(value: Any, what: str) -> None:
    """Refuse a value an operation made that is over the limits, and charge it."""
    _refuse_value(what, _length(value))
    _check_int(value, what)
    _charge_value(value)


_PRINTF_WIDTH = LazyPattern(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")
_FORMAT_FIELD = LazyPattern(r"\{[^{}]*\}")
_DIGITS = LazyPattern(r"\d+")


def _check_format(template: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Refuse printf and ``str.format`` widths or precisions over :data:`MAX_VALUE_SIZE`."""
    numbers: list[int] = []
    if "%" in template:
        for match in _PRINTF_WIDTH.finditer(template):
            numbers += [int(g[:13]) for g in match.groups() if g and g != "*"]
    if "{" in template:
        for match in _FORMAT_FIELD.finditer(template):
            numbers += [int(d.group()[:13]) for d in _DIGITS.finditer(match.group())]
    numbers += [
        value
        for value in (*args, *kwargs.values())
        if isinstance(value, int) and not isinstance(value, bool)
    ]
    for number in numbers:
        _refuse_value("a format width or precision", abs(number))


def _check_call(obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Refuse a call of a string method that would make a value over the limits."""
    method = getattr(obj, "__wrapped__", obj)  # the sandbox wraps str.format
    owner = getattr(method, "__self__", None)
    name = getattr(method, "__name__", "")
    if not isinstance(owner, str):
        return
    if name in _WIDTH_METHODS and args and isinstance(args[0], int):
        _refuse_value(f"str.{name}", args[0])
    elif name == "replace" and len(args) >= 2:
        old, new = str(args[0]), str(args[1])
        count = owner.count(old) if old else len(owner) + 1
        if len(args) > 2 and isinstance(args[2], int) and args[2] >= 0:
            count = min(count, args[2])
        _refuse_value("str.replace", len(owner) + count * max(len(new) - len(old), 0))
    elif name == "join" and args:
        items = args[0]
        if isinstance(items, (list, tuple, str)):
            total = len(owner) * len(items) + sum(_length(item) for item in items)
            _refuse_value("str.join", total)
    elif name in {"format", "format_map"}:
        _check_format(owner, args, kwargs)


def _check_binop(operator: str, left: Any, right: Any) -> None:
    """Refuse ``*``, ``**``, ``+`` and ``%`` that would make a value over the limits."""
    if operator == "*":
        for seq, times in ((left, right), (right, left)):
            if isinstance(times, int) and _length(seq):
                _refuse_value("'*'", _length(seq) * max(times, 0))
        if isinstance(left, int) and isinstance(right, int):
            bits = left.bit_length() + right.bit_length()
            if bits > MAX_INT_BITS + 1:
                _check_int(1 << bits, "'*'")
    elif operator == "**":
        if isinstance(left, int) and isinstance(right, int) and right > 0:
            bits = max(left.bit_length() - 1, 0) * right
            if abs(left) > 1 and (right > MAX_INT_BITS or bits > MAX_INT_BITS):
                raise TemplateLimitError(
                    f"'**' would make an integer of more than {MAX_INT_BITS:,} bits"
                )
    elif operator == "+":
        _refuse_value("'+'", _length(left) + _length(right))
    elif operator == "%" and isinstance(left, str):
        args = right if isinstance(right, tuple) else (right,)
        _check_format(left, args, {})


def _limited_range(*args: int) -> range:
    """``range`` of at most :data:`MAX_RANGE` items."""
    numbers = range(*args)
    if len(numbers) > MAX_RANGE:
        raise TemplateLimitError(
            f"range() of {len(numbers):,} items; a template may loop over at most {MAX_RANGE:,}"
        )
    return numbers


def _loop(iterable: Any, weight: int = 1) -> Iterator[Any]:
    """The filter every ``{% for %}`` loop is wrapped in: charge ``weight`` per iteration."""
    for item in iterable:
        _charge(weight)
        yield item


def _concat(parts: tuple[Any, ...]) -> str:
    """The ``~`` operator, refused when the joined string would be over :data:`MAX_VALUE_SIZE`."""
    texts = [str(part) for part in parts]
    total = sum(len(text) for text in texts)
    _refuse_value("'~'", total)
    _charge(total // 8 + 1)
    return "".join(texts)


def _guard_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a filter: charge its arguments and result, refuse over-size results."""

    @functools.wraps(function)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        values = [
            value
            for value in (*args, *kwargs.values())
            if not isinstance(value, (jinja2.Environment, Context, EvalContext))
        ]
        for value in values:
            _charge_value(value)
        _charge(1)
        if name in _WIDTH_FILTERS:
            for value in values[1:]:
                if isinstance(value, int) and not isinstance(value, bool):
                    _refuse_value(f"the {name} filter", abs(value))
        if name == "indent" and values:
            width = values[1] if len(values) > 1 else 4
            lines = str(values[0]).count("\n") + 1
            _refuse_value(
                "the indent filter", len(str(values[0])) + lines * _length_or(width)
            )
        elif name == "replace" and len(values) >= 3:
            owner, old, new = (str(v) for v in values[:3])
            count = owner.count(old) if old else len(owner) + 1
            _refuse_value(
                "the replace filter", len(owner) + count * max(len(new) - len(old), 0)
            )
        elif name == "format" and values and isinstance(values[0], str):
            _check_format(values[0], tuple(values[1:]), {})
        elif name == "join" and values and isinstance(values[0], (list, tuple)):
            separator = str(values[1]) if len(values) > 1 else ""
            total = len(separator) * len(values[0]) + sum(_length(v) for v in values[0])
            _refuse_value("the join filter", total)
        result = function(*args, **kwargs)
        if isinstance(result, (str, list, tuple, dict)):
            _check_made(result, f"the {name} filter")
        return result

    return guarded


def _length_or(width: Any) -> int:
    if isinstance(width, int) and not isinstance(width, bool):
        return abs(width)
    return len(str(width))


def _callable_name(obj: Any) -> str:
    """What a template called, for messages (``f`` for a macro ``f``)."""
    name = getattr(obj, "name", None) or getattr(obj, "__name__", None)
    return str(name) if name else type(obj).__name__


class _CodeGenerator(CodeGenerator):
    """Jinja2's code generator with ``~`` going through :func:`_concat`."""

    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        """Write ``environment.t2gen_concat((a, b, ...))`` instead of a plain join."""
        self.write("environment.t2gen_concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


def _static_text(node: nodes.Node) -> int:
    """Characters of literal template text directly inside ``node``'s body."""
    return sum(len(data.data) for data in node.find_all(nodes.TemplateData))


class T2genSandbox(ImmutableSandboxedEnvironment):
    """Jinja2's immutable sandbox, stricter: see the module docstring for what a template may do."""

    intercepted_binops = frozenset({"*", "**", "+", "%"})
    code_generator_class = _CodeGenerator
    sandbox_version = SANDBOX_VERSION

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Create the environment (arguments as :class:`jinja2.Environment`)."""
        super().__init__(*args, **kwargs)
        self.globals.pop("lipsum", None)
        self.globals["range"] = _limited_range
        self.filters = {
            name: _guard_filter(name, function)
            for name, function in self.filters.items()
        }
        self.filters["t2gen_loop"] = _loop
        self.t2gen_concat = _concat
        self.t2gen_sizes: dict[str, int] = {}
        """Characters of each template file read, by path (an include is charged by it)."""

    def add_filters(self, filters: dict[str, Callable[..., Any]]) -> None:
        """Add filters, each metered and size-checked as the built-in ones are."""
        for name, function in filters.items():
            self.filters[name] = _guard_filter(name, function)

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        """Refuse private names, mutating methods, and methods of builtin types not in :data:`SAFE_METHODS`."""
        if not super().is_safe_attribute(obj, attr, value):
            return False
        allowed = SAFE_METHODS.get(type(obj))
        return allowed is None or attr in allowed

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        """Run ``left operator right`` when the result stays within the limits."""
        _check_binop(operator, left, right)
        result = super().call_binop(context, operator, left, right)
        _check_made(result, f"'{operator}'")
        return result

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        """Call ``__obj`` from a template: charged, and refused when it would make a value over the limits."""
        _charge(1)
        for value in (*args, *kwargs.values()):
            _charge_value(value)
        _check_call(__obj, args, kwargs)
        result = super().call(__context, __obj, *args, **kwargs)
        _check_made(result, f"a call of {_callable_name(__obj)}")
        return result

    def get_template(
        self, name: Any, parent: str | None = None, globals: Any = None
    ) -> jinja2.Template:
        """Load a template (``include``, ``import``, ``extends``): charged by its size."""
        template = super().get_template(name, parent, globals)
        _charge(self.t2gen_sizes.get(template.filename or "", 0) // 8 + 1)
        return template

    def _parse(
        self, source: str, name: str | None, filename: str | None
    ) -> nodes.Template:
        """Parse, then wrap every ``{% for %}`` loop's iterable in the metering ``t2gen_loop`` filter."""
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


def sandbox_reference() -> str:
    """What a template can and cannot do, as Markdown (``docs/templates.md``, ``make docs``)."""
    methods = "\n".join(
        f"  * `{kind.__name__}`: {', '.join(f'`{m}`' for m in sorted(names)) or 'none'}"
        for kind, names in SAFE_METHODS.items()
    )
    return f"""## What a template can and cannot do

Templates render in a sandbox (`t2gen/render/sandbox.py`, a stricter Jinja2
[`ImmutableSandboxedEnvironment`](https://jinja.palletsprojects.com/en/stable/sandbox/)),
the built-in ones as well as yours, because an overlay may come from a pull request.
This list is the whole of what a template can do, as Helm's function list is for a chart.

A template **can**:

* read the context above, and the literals it writes itself (strings, numbers, lists,
  mappings, `true`/`false`/`none`);
* use Jinja2's statements (`if`, `for`, `set`, `macro`, `call`, `filter`, `include`,
  `import`, `from`, `extends`, `block`), tests, and filters (Jinja2's own plus the one
  above), operators and string formatting (`'%03d' % n`, `'{{}}-x'.format(name)`);
* use the globals `range` (at most {MAX_RANGE:,} items), `dict`, `namespace`, `cycler`
  and `joiner`;
* call only these methods of these types (any other attribute of them is refused):
{methods}
* include, import or extend templates of the overlay directories and the built-in set,
  by name (`{{% include "_pod.yaml.j2" %}}`); a symbolic link is followed only while its
  target stays inside the directory it is in.

A template **cannot** (each is an error naming the template and line, and nothing is
written):

* reach Python: no attribute starting with `_` (`__class__`, `__globals__`...), no
  method that changes a list or mapping, no `lipsum`; so no code runs and no module is
  imported;
* read a file outside its directory (`../x`, an absolute path, a symbolic link leading
  out), a file that is not a regular file (a FIFO, a device), or a template file of more
  than {MAX_TEMPLATE_BYTES:,} bytes;
* make a string or list of more than {MAX_VALUE_SIZE:,} characters or items
  (`'x' * 10**9`, `s.center(10**9)`, `'%1000000000d' % 1`, a `replace` or `~` that
  grows past it), or an integer of more than {MAX_INT_BITS:,} bits (`2 ** (10**9)`);
* do more than {WORK_BUDGET:,} units of work for one job (each loop iteration, call,
  filter and include is one unit plus the size of the values it reads and makes,
  a string counting one unit per 8 characters; the largest jobs t2gen renders use about
  a third of it with the built-in templates);
* write more than {MAX_OUTPUT_CHARS:,} characters for one job.
"""
