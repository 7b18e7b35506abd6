"""Where t2gen's data lives: the only module that builds paths to templates and schemas."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from t2gen.errors import T2genError

__all__ = ["data_dir", "schema_path", "starter_job_path", "templates_dir"]


def data_dir(name: str) -> Path:
    """Return the directory of packaged data ``name`` (``templates`` or ``schemas``).

    An installed wheel holds them inside the package (``t2gen/templates``); a
    checkout or editable install has them beside the package, at the top of
    the repository.

    Raises:
        T2genError: neither place has the directory (a broken installation).
    """
    packaged = Path(str(resources.files("t2gen"))) / name
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parent.parent / name
    if checkout.is_dir():
        return checkout
    raise T2genError(f"t2gen is installed without its {name}/ directory; reinstall it")


def templates_dir() -> Path:
    """Return the directory of the built-in template sets (``templates/<set>/``)."""
    return data_dir("templates")


def schema_path() -> Path:
    """Return the path of the job file's JSON Schema."""
    return data_dir("schemas") / "twister2job.schema.json"


def starter_job_path() -> Path:
    """Return the path of the commented starter job that ``t2gen init`` prints."""
    return data_dir("templates") / "init" / "twister2job.yaml"
