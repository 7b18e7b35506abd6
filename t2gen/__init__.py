"""t2gen: render the Kubernetes manifests of a Twister2 job from one validated job file.

The public API is the pipeline's stages, in order::

    doc = read_job("job.yaml")          # parse, keeping positions
    job = validate(doc)                    # schema + rules -> typed Job
    context = build_context(job)           # names, labels, quantities
    documents = render(context, template_set)
    documents = generate(["job.yaml"])     # all of the above, checked and ordered

Every error a user can cause is a :class:`T2genError`. The stages and
``__version__`` are loaded on first use, so ``import t2gen`` stays cheap.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `t2gen --version` needs no typing at run time

__all__ = [
    "T2genError",
    "__version__",
    "build_context",
    "generate",
    "read_job",
    "render",
    "validate",
]

if TYPE_CHECKING:
    from t2gen.errors import T2genError
    from t2gen.inputs.jobfile import read_job
    from t2gen.pipeline.job import generate
    from t2gen.pipeline.load import validate
    from t2gen.render.context import build_context
    from t2gen.render.engine import render

    __version__: str

_LAZY = {
    "T2genError": "t2gen.errors",
    "build_context": "t2gen.render.context",
    "read_job": "t2gen.inputs.jobfile",
    "generate": "t2gen.pipeline.job",
    "validate": "t2gen.pipeline.load",
    "render": "t2gen.render.engine",
}


def __getattr__(name: str) -> object:
    """Load a pipeline stage, or read the installed version, on first use."""
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("t2gen")
        except PackageNotFoundError:  # pragma: no cover - a checkout never installed
            return "0+unknown"
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 't2gen' has no attribute {name!r}")
