"""Where t2gen's data lives: the only module that builds paths to templates and schemas.

The paths are returned as strings: Jinja2's loaders and the template labels
work with them as such.
"""

from __future__ import annotations

import functools
from pathlib import Path

from t2gen.errors import T2genError

__all__ = [
    "custom_resource_schema_path",
    "data_dir",
    "schema_path",
    "starter_job_path",
    "templates_dir",
]


@functools.cache
def data_dir(name: str) -> str:
    """Return the directory of packaged data ``name`` (``templates`` or ``schemas``).

    An installed wheel holds them inside the package (``t2gen/templates``); a
    checkout or editable install has them beside the package, at the top of
    the repository.

    Looked up once per process (a render asks for every template).

    Raises:
        T2genError: neither place has the directory (a broken installation).
    """
    package = Path(__file__).resolve().parent
    for directory in (package / name, package.parent / name):
        if directory.is_dir():
            return str(directory)
    raise T2genError(f"t2gen is installed without its {name}/ directory; reinstall it")


def templates_dir() -> str:
    """Return the directory of the built-in template sets (``templates/<set>/``)."""
    return data_dir("templates")


def schema_path() -> str:
    """Return the path of the job file's JSON Schema."""
    return str(Path(data_dir("schemas"), "twister2job.schema.json"))


def starter_job_path() -> str:
    """Return the path of the commented starter job that ``t2gen init`` prints."""
    return str(Path(data_dir("templates"), "init", "twister2job.yaml"))


def custom_resource_schema_path(api_version: str, kind: str) -> str | None:
    """Return t2gen's own JSON Schema of a custom resource, or None if t2gen ships none.

    The schemas of gang-scheduling objects (Volcano and coscheduling PodGroups,
    the Kubernetes Workload API) live in ``schemas/kube/`` as
    ``<group>_<version>_<kind>.schema.json``.

    Args:
        api_version: ``<group>/<version>``, e.g. ``scheduling.volcano.sh/v1beta1``.
        kind: e.g. ``PodGroup``.
    """
    group, _, version = api_version.rpartition("/")
    if not group or not version or "/" in group or not kind.isalnum():
        return None
    path = Path(
        data_dir("schemas"), "kube", f"{group}_{version}_{kind.lower()}.schema.json"
    )
    return str(path) if path.is_file() else None
