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
from typing import Any

__all__ = ["function_config", "main", "resource_list"]

MAX_RESOURCE_LIST_BYTES = 20 * 1024 * 1024
"""Largest ResourceList read from stdin: as ``t2gen check``'s largest manifest stream."""

_KUSTOMIZE_ANNOTATIONS = ("config.kubernetes.io/", "internal.config.kubernetes.io/")


def function_config(resource_list: Any) -> dict[str, Any]:
    """The job file of a ResourceList: its ``functionConfig`` without kustomize's annotations.

    Raises:
        T2genError: the input is not a ResourceList with a mapping as its functionConfig.
    """
    from t2gen.errors import T2genError

    if (
        not isinstance(resource_list, dict)
        or resource_list.get("kind") != "ResourceList"
    ):
        raise T2genError(
            "stdin: not a ResourceList (kind: ResourceList, config.kubernetes.io/v1)"
        )
    config = resource_list.get("functionConfig")
    if not isinstance(config, dict):
        raise T2genError(
            "stdin: functionConfig: missing; it is the job file (kind: Twister2Job)"
        )
    metadata = config.get("metadata")
    if isinstance(metadata, dict) and isinstance(metadata.get("annotations"), dict):
        kept = {
            key: value
            for key, value in metadata["annotations"].items()
            if not str(key).startswith(_KUSTOMIZE_ANNOTATIONS)
        }
        metadata = {
            key: value for key, value in metadata.items() if key != "annotations"
        }
        if kept:
            metadata["annotations"] = kept
        config = {**config, "metadata": metadata}
    return config


def resource_list(text: str) -> dict[str, Any]:
    """Answer a KRM function call: the input ResourceList with the job's objects appended.

    Args:
        text: the ResourceList, YAML or JSON.

    Returns:
        The output ResourceList (``items``: the input's, then the rendered objects
        in install order).

    Raises:
        T2genError: the input is not a ResourceList, or the job file is invalid.
    """
    from t2gen.errors import T2genError
    from t2gen.kube.yamlio import dump_yaml, load_all_yaml
    from t2gen.pipeline.job import generate

    try:
        documents = [
            document for document in load_all_yaml(text) if document is not None
        ]
    except Exception as err:  # a YAML error of any kind: one line, never a traceback
        raise T2genError(f"stdin: not YAML: {err}".replace("\n", " ")) from None
    if len(documents) != 1:
        raise T2genError(
            f"stdin: {len(documents)} documents; a KRM function reads one ResourceList"
        )
    given = documents[0]
    job = dump_yaml(function_config(given)).encode("utf-8")
    rendered = generate(["-"], stdin=io.BytesIO(job))
    items = given.get("items") if isinstance(given.get("items"), list) else []
    return {
        "apiVersion": given.get("apiVersion", "config.kubernetes.io/v1"),
        "kind": "ResourceList",
        "items": [*items, *(document.obj for document in rendered)],
    }


def main() -> None:
    """Run as kustomize runs a generator: a job file path (exec plugin) or a ResourceList on stdin."""
    from t2gen.cli.commands import run, run_render

    arguments = sys.argv[1:]
    if arguments:  # the exec plugin: the configuration file, then its arguments (none)
        sys.exit(run_render(arguments[:1]))

    def body(_: list[Any]) -> None:
        from t2gen.kube.yamlio import dump_yaml
        from t2gen.output import write_stdout
        from t2gen.textfile import decode_source, read_source

        raw = read_source(
            "-",
            limit=MAX_RESOURCE_LIST_BYTES,
            what="ResourceList",
            advice="a KRM function reads at most that much",
        )
        write_stdout(
            dump_yaml(resource_list(decode_source("stdin", raw, what="ResourceList")))
        )

    sys.exit(run(body))
