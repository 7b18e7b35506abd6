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
from typing import TYPE_CHECKING, Any

from t2gen.pipeline.regenerate import config_directory, regenerate

if TYPE_CHECKING:
    from t2gen.inputs.resourcelist import ResourceList

__all__ = ["exec_plugin", "main", "resource_list"]


def resource_list(text: str) -> dict[str, Any]:
    """Answer a KRM function call: the input ResourceList with the job's objects in it.

    Args:
        text: the ResourceList, YAML or JSON (:mod:`t2gen.inputs.resourcelist`).

    Returns:
        The output ResourceList (``items``: the input's but the job's earlier
        objects, then the rendered objects in install order).

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
    directory = config_directory(given.function_config)
    return {
        "apiVersion": given.api_version,
        "kind": "ResourceList",
        "items": regenerate(list(given.items), rendered, directory=directory),
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
        T2genError: the job file is invalid, or the input is not YAML (located).
    """
    from t2gen.inputs.resourcelist import parse_resource_stream
    from t2gen.kube.yamlio import dump_yaml
    from t2gen.pipeline.job import generate

    rendered = generate([job_file])
    objects = regenerate(parse_resource_stream(stream), rendered, directory=None)
    return "".join(f"---\n{dump_yaml(obj)}" for obj in objects)


def main() -> None:
    """Run as kustomize runs a plugin: a job file path (exec plugin) or a ResourceList on stdin."""
    from t2gen.cli.commands import guard_closed_streams, run
    from t2gen.inputs.resourcelist import read_input, read_resource_list
    from t2gen.kube.yamlio import dump_yaml
    from t2gen.output import write_stdout

    guard_closed_streams()
    arguments = sys.argv[1:]

    def plugin(
        _: list[Any],
    ) -> None:  # the configuration file, then its arguments (none)
        # A generator's standard input is empty; one typed at is not read.
        stream = "" if sys.stdin.isatty() else read_input(what="resource stream")
        write_stdout(exec_plugin(arguments[0], stream))

    def function(_: list[Any]) -> None:
        write_stdout(dump_yaml(_answer(read_resource_list())))

    sys.exit(run(plugin if arguments else function))
