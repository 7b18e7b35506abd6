"""A job's objects fetched by kubectl itself, for ``status --live``/``--watch`` and ``t2gen wait``.

t2gen talks to the cluster only through ``kubectl`` (no HTTP client of its
own): it runs the ``kubectl get ... -o json`` that :func:`t2gen.status.fetch.collect_command`
prints, with the user's kubeconfig and context, and reads its output through
the same reader as a saved file (:func:`t2gen.inputs.cluster.parse_cluster`),
within the same bound (:data:`t2gen.inputs.cluster.MAX_CLUSTER_BYTES`, measured
while reading kubectl's output).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any

from t2gen.errors import ConfigError, T2genError
from t2gen.inputs.cluster import MAX_CLUSTER_BYTES, parse_cluster
from t2gen.model import Job
from t2gen.status.fetch import Kubectl, get_command

__all__ = ["KUBECTL_SOURCE", "KubectlFailed", "fetch_objects"]

KUBECTL_SOURCE = "kubectl get"
"""How messages name kubectl's output."""


class KubectlFailed(T2genError):
    """kubectl ran and exited non-zero (the API server unreachable, credentials refused...)."""


_STDERR_BYTES = 64 * 1024
"""How much of kubectl's standard error is read on a failure; its last line (kubectl's summary) is quoted."""


def fetch_objects(
    job: Job, rendered: Sequence[Mapping[str, Any]], kubectl: Kubectl
) -> list[dict[str, Any]]:
    """Run ``kubectl get`` and read the job's objects from its output.

    Raises:
        KubectlFailed: kubectl fails (its message quoted).
        T2genError: kubectl is not found, or prints more than :data:`~t2gen.inputs.cluster.MAX_CLUSTER_BYTES`.
        InputError: its output is not a list of objects.
    """
    argv = get_command(job, rendered, kubectl)
    if shutil.which(argv[0]) is None:
        raise T2genError(
            f"{argv[0]}: not found; t2gen runs kubectl to read the cluster: put it on PATH, "
            "or save `t2gen status JOB`'s command's output and pass it with --cluster"
        )
    with tempfile.TemporaryFile() as errors:
        with subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors
        ) as process:
            assert process.stdout is not None
            raw = process.stdout.read(MAX_CLUSTER_BYTES + 1)
            if len(raw) > MAX_CLUSTER_BYTES:
                process.kill()
                raise ConfigError(
                    path=KUBECTL_SOURCE,
                    message=f"printed more than {MAX_CLUSTER_BYTES // 1024} KiB; a job's "
                    "objects are far less",
                )
            code = process.wait()
        if code != 0:
            errors.seek(0)
            lines = errors.read(_STDERR_BYTES).decode("utf-8", "replace").splitlines()
            said = next((line for line in reversed(lines) if line.strip()), "")
            raise KubectlFailed(f"kubectl get failed (exit code {code}): {said[:500]}")
    return parse_cluster(raw, KUBECTL_SOURCE)
