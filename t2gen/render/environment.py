"""The strict, sandboxed Jinja2 environment every template is rendered in.

Every ``{{ expression }}`` is emitted as a YAML flow value (:func:`t2gen.kube.yamlio.dump_flow`),
never as raw text; an undefined name is an error. :mod:`t2gen.render.engine`
renders with it, :mod:`t2gen.render.precompiled` compiles the built-in
templates with the same settings.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import jinja2

from t2gen.kube.yamlio import dump_flow
from t2gen.render.budget import charge_output
from t2gen.render.sandbox import T2genSandbox

__all__ = ["FILTERS", "capture", "new_environment"]

capture: Callable[[Any], str] | None = None
"""While set, every expression's value goes to this hook instead of being written
(:mod:`t2gen.render.skeleton` records the values and writes placeholders)."""


def _b64encode(value: str | bytes) -> str:
    """Base64 of a string's UTF-8 bytes (for Secret ``data``)."""
    raw = value.encode("utf-8") if isinstance(value, str) else value
    return base64.b64encode(raw).decode("ascii")


FILTERS: dict[str, Any] = {"b64encode": _b64encode}
"""Filters added to Jinja2's built-ins."""


def _finalize(value: Any) -> str:
    """Emit an expression's value as YAML (quoted when needed), never as raw text."""
    charge_output(value)
    if capture is not None:
        return capture(value)
    if isinstance(value, jinja2.Undefined):
        str(value)  # StrictUndefined raises UndefinedError naming the variable
    try:
        return dump_flow(value)
    except TypeError:
        raise TypeError(f"cannot write a {type(value).__name__} as YAML") from None


def new_environment(loader: jinja2.BaseLoader | None) -> jinja2.Environment:
    """A new sandboxed environment with t2gen's settings and ``loader`` (None: compile sources only).

    Returns:
        A :class:`t2gen.render.sandbox.T2genSandbox` with ``StrictUndefined``,
        trimmed block lines, no HTML escaping, kept trailing newlines, YAML
        emission of every expression, no auto-reload, and :data:`FILTERS`.
    """
    environment = T2genSandbox(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_finalize,
        auto_reload=False,
    )
    environment.add_filters(FILTERS)
    return environment
