"""``t2gen-kustomize``: t2gen as a kustomize generator, in both of kustomize's plugin forms.

* **Exec generator plugin** (kubectl's own kustomize, ``kubectl kustomize
  --enable-alpha-plugins``): a kustomization lists a job file under
  ``generators:``; kustomize finds the plugin by the file's ``apiVersion`` and
  ``kind`` at ``$XDG_CONFIG_HOME/kustomize/plugin/t2gen/v1/twister2job/Twister2Job``
  (a link to this script) and runs it with the path of the job file, as it
  read it, as the first argument; the plugin prints the objects as YAML
  (https://kubectl.docs.kubernetes.io/guides/extending_kustomize/exec_plugins/).
* **KRM function** (standalone kustomize ``--enable-alpha-plugins
  --enable-exec``, kpt): with no argument, a ``config.kubernetes.io/v1``
  ``ResourceList`` on stdin whose ``functionConfig`` is the job file; the
  answer is the ResourceList with the job's objects added to its ``items``
  (https://github.com/kubernetes-sigs/kustomize/blob/master/cmd/config/docs/api-conventions/functions-spec.md).
  The ``config.kubernetes.io/`` and ``internal.config.kubernetes.io/``
  annotations kustomize puts on the functionConfig are removed before the job
  file is validated.

Either way the objects are exactly ``t2gen render``'s, and an invalid job file
gives t2gen's located errors on stderr and exit code 1 (the function
specification's failure), with nothing on stdout.
"""

from __future__ import annotations

import io
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from t2gen.inputs.resourcelist import ResourceList

__all__ = ["main", "resource_list"]


def resource_list(text: str) -> dict[str, Any]:
    """Answer a KRM function call: the input ResourceList with the job's objects appended.

    Args:
        text: the ResourceList, YAML or JSON (:mod:`t2gen.inputs.resourcelist`).

    Returns:
        The output ResourceList (``items``: the input's, then the rendered objects
        in install order).

    Raises:
        T2genError: the input is not a ResourceList (located), or the job file
            is invalid.
    """
    from t2gen.inputs.resourcelist import parse_resource_list

    return _answer(parse_resource_list(text))


def _answer(given: ResourceList) -> dict[str, Any]:
    """The output ResourceList for ``given`` (see :func:`resource_list`)."""
    from t2gen.kube.yamlio import dump_yaml
    from t2gen.pipeline.job import generate

    job = dump_yaml(given.job).encode("utf-8")
    rendered = generate(["-"], stdin=io.BytesIO(job))
    return {
        "apiVersion": given.api_version,
        "kind": "ResourceList",
        "items": [*given.items, *(document.obj for document in rendered)],
    }


def main() -> None:
    """Run as kustomize runs a generator: a job file path (exec plugin) or a ResourceList on stdin."""
    from t2gen.cli.commands import run, run_render

    arguments = sys.argv[1:]
    if arguments:  # the exec plugin: the configuration file, then its arguments (none)
        sys.exit(run_render(arguments[:1]))

    def body(_: list[Any]) -> None:
        from t2gen.inputs.resourcelist import read_resource_list
        from t2gen.kube.yamlio import dump_yaml
        from t2gen.output import write_stdout

        write_stdout(dump_yaml(_answer(read_resource_list())))

    sys.exit(run(body))
