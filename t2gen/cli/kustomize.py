"""``t2gen-kustomize``: t2gen as a kustomize generator, in both of kustomize's plugin forms.

* **Exec plugin** (kubectl's own kustomize, ``kubectl kustomize
  --enable-alpha-plugins``): a kustomization lists a job file under
  ``generators:`` (or ``transformers:``); kustomize finds the plugin by the
  file's ``apiVersion`` and ``kind`` at
  ``$XDG_CONFIG_HOME/kustomize/plugin/t2gen/v1/twister2job/Twister2Job`` (a link
  to this script) and runs it with the path of the job file, as it read it, as
  the first argument, and the objects so far as a YAML stream on standard input
  (empty for a generator); the plugin prints the objects
  (https://kubectl.docs.kubernetes.io/guides/extending_kustomize/exec_plugins/;
  kubernetes-sigs/kustomize ``api/internal/plugins/execplugin/execplugin.go``:
  ``Generate`` passes no input, ``Transform`` the resources).
* **KRM function** (standalone kustomize ``--enable-alpha-plugins
  --enable-exec``, kpt, or the Containerfile's ``krm-function`` image): with no
  argument, a ``config.kubernetes.io/v1`` ``ResourceList`` on stdin whose
  ``functionConfig`` is the job file; the answer is the ResourceList with the
  job's objects added to its ``items``
  (https://github.com/kubernetes-sigs/kustomize/blob/master/cmd/config/docs/api-conventions/functions-spec.md).
  The ``config.kubernetes.io/`` and ``internal.config.kubernetes.io/``
  annotations kustomize puts on the functionConfig are removed before the job
  file is validated.

Either way the objects are ``t2gen render``'s, each annotated
``t2gen.dev/generated-from: <job>``, and objects carrying that annotation for
the same job in the input are the output of an earlier run: they are replaced,
so a second run gives the same objects (:mod:`t2gen.pipeline.regenerate`);
every other object passes through. An invalid job file gives t2gen's located
errors on stderr and exit code 1 (the function specification's failure), with
nothing on stdout.
"""

from __future__ import annotations

import io
import sys
from typing import Any

from t2gen.pipeline.regenerate import config_directory, regenerate

__all__ = ["exec_plugin", "function_config", "main", "resource_list"]

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
    directory = config_directory(given.get("functionConfig"))
    return {
        "apiVersion": given.get("apiVersion", "config.kubernetes.io/v1"),
        "kind": "ResourceList",
        "items": regenerate(items, rendered, directory=directory),
    }


def exec_plugin(job_file: str, stream: str) -> str:
    """Answer kustomize's exec plugin: the objects of standard input, the job's earlier ones replaced.

    Args:
        job_file: the job file (kustomize's copy of it).
        stream: the objects kustomize gives a transformer, a YAML stream; empty
            for a generator.

    Returns:
        A YAML stream: the input's objects but the job's earlier ones, then the
        job's objects, each annotated ``t2gen.dev/generated-from``.

    Raises:
        T2genError: the job file is invalid, or the input is not YAML.
    """
    from t2gen.errors import T2genError
    from t2gen.kube.yamlio import dump_yaml, load_all_yaml
    from t2gen.pipeline.job import generate

    rendered = generate([job_file])
    try:
        items = [item for item in load_all_yaml(stream) if item is not None]
    except Exception as err:  # a YAML error of any kind: one line, never a traceback
        raise T2genError(f"stdin: not YAML: {err}".replace("\n", " ")) from None
    objects = regenerate(items, rendered, directory=None)
    return "".join(f"---\n{dump_yaml(obj)}" for obj in objects)


def _stdin(what: str) -> str:
    """Standard input as text, at most :data:`MAX_RESOURCE_LIST_BYTES`."""
    from t2gen.textfile import decode_source, read_source

    raw = read_source(
        "-",
        limit=MAX_RESOURCE_LIST_BYTES,
        what=what,
        advice="t2gen-kustomize reads at most that much",
    )
    return decode_source("stdin", raw, what=what)


def main() -> None:
    """Run as kustomize runs a plugin: a job file path (exec plugin) or a ResourceList on stdin."""
    from t2gen.cli.commands import guard_closed_streams, run
    from t2gen.kube.yamlio import dump_yaml
    from t2gen.output import write_stdout

    guard_closed_streams()
    arguments = sys.argv[1:]

    def plugin(
        _: list[Any],
    ) -> None:  # the configuration file, then its arguments (none)
        # A generator's standard input is empty; one typed at is not read.
        stream = "" if sys.stdin.isatty() else _stdin("resource stream")
        write_stdout(exec_plugin(arguments[0], stream))

    def function(_: list[Any]) -> None:
        write_stdout(dump_yaml(resource_list(_stdin("ResourceList"))))

    sys.exit(run(plugin if arguments else function))
