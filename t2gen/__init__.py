"""t2gen: render the Kubernetes manifests of a Twister2 job from one validated job file.

The public API is the pipeline's stages, in order::

    doc = load_config("job.yaml")          # parse, keeping positions
    job = validate(doc)                    # schema + rules -> typed Job
    context = build_context(job)           # names, labels, quantities
    documents = render(context, template_set)
    documents = generate(["job.yaml"])     # all of the above, checked and ordered

Every error a user can cause is a :class:`T2genError`.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

from t2gen.errors import T2genError

try:
    __version__ = version("t2gen")
except (
    PackageNotFoundError
):  # pragma: no cover - running from a checkout without installing
    __version__ = "0+unknown"

__all__ = [
    "T2genError",
    "__version__",
    "build_context",
    "generate",
    "load_config",
    "render",
    "validate",
]

if TYPE_CHECKING:
    from t2gen.context import build_context
    from t2gen.loader import load_config
    from t2gen.pipeline import generate, validate
    from t2gen.render import render

_LAZY = {
    "build_context": "t2gen.context",
    "load_config": "t2gen.loader",
    "generate": "t2gen.pipeline",
    "validate": "t2gen.pipeline",
    "render": "t2gen.render",
}


def __getattr__(name: str) -> Any:
    """Import the pipeline's stages on first use, so ``import t2gen`` stays cheap."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 't2gen' has no attribute {name!r}")
