"""What a template can and cannot do, as Markdown for ``docs/templates.md`` (``make docs``).

Written from the limits themselves (:mod:`t2gen.render.budget`,
:mod:`t2gen.render.sandbox`, :mod:`t2gen.render.overlays`,
:mod:`t2gen.render.readback`, :mod:`t2gen.render.oslimits`), so the page
says what the code does.
"""

from __future__ import annotations

from t2gen.render.budget import (
    BINOP_UNITS,
    CALL_UNITS,
    INT_PRODUCTS_PER_UNIT,
    MACRO_CALL_UNITS,
    MAX_INT_BITS,
    MAX_ITEMS,
    MAX_OUTPUT_CHARS,
    MAX_RANGE,
    MAX_VALUE_SIZE,
    OUTPUT_UNITS,
    SLICE_CHARS_PER_UNIT,
    SLICE_ITEMS_PER_UNIT,
    STEP_SLICE_CHARS_PER_UNIT,
    WORK_BUDGET,
)
from t2gen.render.estimate import COMPILE_TOKEN_UNITS
from t2gen.render.oslimits import OS_CPU_SECONDS, OS_MEMORY_MB
from t2gen.render.overlays import MAX_OVERLAY_DIRS, MAX_OVERLAY_TEMPLATES
from t2gen.render.readback import OVERLAY_OUTPUT_BOUNDS
from t2gen.render.sandbox import MAX_TEMPLATE_BYTES, SAFE_METHODS

__all__ = ["sandbox_reference"]


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
* call only these methods of these types and of their subclasses (any other attribute
  of them is refused; a `Markup` string, as `|safe` and `|e` make, is a `str`):
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
* make a string of more than {MAX_VALUE_SIZE:,} characters, a list or mapping of more
  than {MAX_ITEMS:,} items (a filter that makes a list of a string's characters counts
  them), or an integer of more than {MAX_INT_BITS:,} bits (`2 ** (10**9)`): judged from
  the operands before the operation runs (`'x' * 10**9`, `s.center(10**9)`,
  `'%1000000000d' % 1`, `('{{0}}' * 400).format(s)`, `s.join(...)`, `tojson(indent=...)`,
  `|e` or `|urlize` of a long text, a `replace` or `~` that grows past it);
* do more than {WORK_BUDGET:,} units of work for one job, about half a second of CPU
  (a unit is an empty loop iteration, 0.23 µs): a loop iteration or a filter is 1 or 2
  units, a written expression {OUTPUT_UNITS}, a call {CALL_UNITS}, a macro call {MACRO_CALL_UNITS}, an operator
  {BINOP_UNITS} (on integers, one more per {INT_PRODUCTS_PER_UNIT} products of their 30-bit digits: a
  4,096-bit by 2,048-bit division is about 90), a slice one per {SLICE_CHARS_PER_UNIT} characters it copies
  ({STEP_SLICE_CHARS_PER_UNIT} with a step, `s[::-1]`; {SLICE_ITEMS_PER_UNIT} items of a list), compiling a template one a character
  and {COMPILE_TOKEN_UNITS} a token inside its tags (`{{{{ a ~ b }}}}` is 7 tokens), plus the size of
  every value it reads or makes (a string's receiver too: `s.isdigit()` reads `s`; one
  unit per 8 characters or per item), plus what the filter does per character or item
  (`sort` 7 an item, `urlize` 5 a character, each item `map` yields 8;
  `t2gen/render/estimate.py`); only the templates an overlay touches are metered (its own
  files, and built-in templates that include one of them, as the StatefulSets include
  `_pod.yaml.j2`): the other built-in templates render as without overlays, their work
  bounded by the job file's bounds;
* write more than {MAX_OUTPUT_CHARS:,} characters for one job, or render more than
  {OVERLAY_OUTPUT_BOUNDS.nodes:,} values (scalars, lists, mappings) in the templates an overlay touches;
* be one of more than {MAX_OVERLAY_TEMPLATES} templates in all the `--templates` directories, or come
  with more than {MAX_OVERLAY_DIRS} `--templates` directories (a usage error, before any is read);
* use more than {OS_MEMORY_MB} MB of memory or {OS_CPU_SECONDS} s of CPU while the
  job's templates render, a bound the operating system keeps
  (`resource.setrlimit`, `t2gen/render/oslimits.py`) for whatever the checks above miss.
"""
