"""``t2gen logs``: the kept log files of ``spec.logs``, read through a short-lived reader pod.

The files live on the claim ``<job>-logs`` (:mod:`t2gen.twister2.logfiles`),
which only a pod can read. t2gen talks to the cluster only through
``kubectl`` (as :mod:`t2gen.status.live`): it applies a pod that mounts the
claim read-only and sleeps (:func:`reader_pod`), waits until it is Ready, lists
the log directory and prints the chosen files with ``kubectl exec`` (straight
from the file, so the kubelet's container-log rotation never cuts them), and
deletes the pod whatever happened. The pod runs the job's own image, pull
secrets and security settings (copied from the rendered worker pod), so it
needs nothing the job did not already need; ``activeDeadlineSeconds`` ends it
should t2gen be killed before deleting it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from typing import IO, Any

from t2gen.errors import T2genError
from t2gen.model import Job
from t2gen.status.fetch import Kubectl
from t2gen.twister2 import logfiles, names

__all__ = [
    "READER_CONTAINER",
    "READER_LIFETIME_SECONDS",
    "print_logs",
    "reader_name",
    "reader_pod",
    "select_files",
]

READER_CONTAINER = "reader"
READER_MOUNT = "/logs"
READER_LIFETIME_SECONDS = 3600
"""The reader pod's ``activeDeadlineSeconds``: it is gone within the hour even if t2gen is killed."""
_LISTING_BYTES = 1024 * 1024
"""How much of the log directory's listing is read (about 40,000 file names)."""
_STDERR_BYTES = 64 * 1024


def reader_name(job: str) -> str:
    """The reader pod's name: ``<job>-logs-reader`` (at most 61 characters)."""
    return f"{logfiles.logs_claim_name(job)}-reader"


def reader_pod(job: Job, rendered: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The pod that mounts ``<job>-logs`` read-only at ``/logs`` and sleeps until deleted.

    Args:
        job: a job with ``spec.logs``.
        rendered: its rendered objects; the first worker StatefulSet's pod gives
            the image, pull policy and secrets, and the pod's and container's
            ``securityContext``.

    Returns:
        A ``v1`` Pod, labelled with the job's instance but not ``t2-job`` (it
        is not one of the Twister2 job's objects: ``t2gen status`` ignores it).
    """
    statefulset = next(
        o
        for o in rendered
        if o["kind"] == "StatefulSet"
        and o["metadata"]["name"] == names.worker_statefulset_name(job.name, 0)
    )
    pod_spec = statefulset["spec"]["template"]["spec"]
    worker = pod_spec["containers"][0]
    container: dict[str, Any] = {
        "name": READER_CONTAINER,
        "image": worker["image"],
        "imagePullPolicy": worker.get("imagePullPolicy", "IfNotPresent"),
        "command": ["sleep", str(READER_LIFETIME_SECONDS)],
        "resources": {
            "requests": {"cpu": "10m", "memory": "32Mi"},
            "limits": {"memory": "64Mi"},
        },
        "volumeMounts": [
            {"name": logfiles.LOGS_VOLUME, "mountPath": READER_MOUNT, "readOnly": True}
        ],
    }
    if "securityContext" in worker:
        container["securityContext"] = worker["securityContext"]
    spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "activeDeadlineSeconds": READER_LIFETIME_SECONDS,
        "automountServiceAccountToken": False,
        "enableServiceLinks": False,
        "terminationGracePeriodSeconds": 0,
        "containers": [container],
        "volumes": [
            {
                "name": logfiles.LOGS_VOLUME,
                "persistentVolumeClaim": {
                    "claimName": logfiles.logs_claim_name(job.name),
                    "readOnly": True,
                },
            }
        ],
    }
    for key in ("imagePullSecrets", "securityContext"):
        if key in pod_spec:
            spec[key] = pod_spec[key]
    metadata: dict[str, Any] = {
        "name": reader_name(job.name),
        "labels": {
            "app.kubernetes.io/name": "twister2",
            "app.kubernetes.io/instance": job.name,
            names.COMPONENT_LABEL: "logs-reader",
            "app.kubernetes.io/managed-by": "t2gen",
        },
    }
    if job.namespace:
        metadata["namespace"] = job.namespace
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def select_files(listing: str, worker: int | None, job_master: bool) -> list[str]:
    """The log files to print, from the directory's listing, in reading order.

    The job master's first, then each worker's by worker ID; a file's older
    generations (``.log.1`` is older than ``.log.0``, ``java.util.logging.FileHandler``)
    before its newer ones. Names that are not Twister2 log files are skipped.

    Args:
        listing: ``ls -1`` of the log directory.
        worker: only this worker's files; None: every worker's.
        job_master: only the job master's files (``worker`` is then None).
    """
    found: list[tuple[int, int, str]] = []
    for name in listing.splitlines():
        match = re.fullmatch(logfiles.LOG_FILE_PATTERN, name)
        if match is None:
            continue
        who = -1 if match.group(2) is None else int(match.group(2))
        if (job_master and who != -1) or (worker is not None and who != worker):
            continue
        found.append((who, -int(match.group(3)), name))
    return [name for _, _, name in sorted(found)]


def print_logs(
    job: Job,
    rendered: Sequence[Mapping[str, Any]],
    kubectl: Kubectl,
    out: IO[bytes],
    *,
    worker: int | None = None,
    job_master: bool = False,
    timeout: int = 300,
) -> list[str]:
    """Print the kept log files of ``job`` to ``out`` through a reader pod, then delete the pod.

    Each file is preceded by ``==> NAME <==`` when more than one is printed.

    Args:
        job: a job with ``spec.logs``.
        rendered: its rendered objects (:func:`reader_pod`).
        kubectl: how to run kubectl.
        out: where the files' bytes go, as they arrive.
        worker: only this worker's log (by worker ID).
        job_master: only the job master's log.
        timeout: seconds to wait for the reader pod to be Ready.

    Returns:
        The names of the files printed.

    Raises:
        T2genError: kubectl is not found or fails (its message quoted), the pod
            is not Ready in time, or no log file matches.
    """
    base = _base(job, kubectl)
    pod = reader_name(job.name)
    body = json.dumps(reader_pod(job, rendered)).encode()
    try:
        _run([*base, "apply", "-f", "-"], "apply the reader pod", stdin=body)
        _run(
            [
                *base,
                "wait",
                "--for=condition=Ready",
                f"pod/{pod}",
                f"--timeout={timeout}s",
            ],
            f"wait for pod/{pod} (its claim {logfiles.logs_claim_name(job.name)} must be "
            "bound and mountable on a node: a ReadWriteOnce claim only where it is attached)",
        )
        exec_ = [*base, "exec", pod, "-c", READER_CONTAINER, "--"]
        listing = _run([*exec_, "ls", "-1", READER_MOUNT], "list the log directory")
        files = select_files(listing.decode("utf-8", "replace"), worker, job_master)
        if not files:
            who = (
                "the job master"
                if job_master
                else "any worker or the job master"
                if worker is None
                else f"worker {worker}"
            )
            raise T2genError(
                f"no log file of {who} on claim {logfiles.logs_claim_name(job.name)}: "
                "Twister2 writes one only with its Twister2FileLogHandler (t2gen package "
                "configures it for spec.logs) and once the pod has started"
            )
        script = (
            'headings=$1; shift; for f; do [ "$headings" = 1 ] && printf "==> %s <==\\n" "$f"; '
            f'cat -- "{READER_MOUNT}/$f" || exit 1; done'
        )
        headings = "1" if len(files) > 1 else "0"
        _stream([*exec_, "sh", "-c", script, "sh", headings, *files], out)
        return files
    finally:
        subprocess.run(
            [*base, "delete", "pod", pod, "--ignore-not-found", "--wait=false"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )


def _base(job: Job, kubectl: Kubectl) -> list[str]:
    if shutil.which(kubectl.binary) is None:
        raise T2genError(
            f"{kubectl.binary}: not found; t2gen runs kubectl to read the kept logs: put it on PATH"
        )
    argv = [kubectl.binary]
    if kubectl.kubeconfig is not None:
        argv += ["--kubeconfig", kubectl.kubeconfig]
    if kubectl.context is not None:
        argv += ["--context", kubectl.context]
    if job.namespace:
        argv += ["--namespace", job.namespace]
    return argv


def _failure(what: str, code: int, errors: IO[bytes]) -> T2genError:
    errors.seek(0)
    lines = errors.read(_STDERR_BYTES).decode("utf-8", "replace").splitlines()
    said = next((line for line in reversed(lines) if line.strip()), "")
    return T2genError(f"kubectl could not {what} (exit code {code}): {said[:500]}")


def _run(argv: list[str], what: str, stdin: bytes | None = None) -> bytes:
    """Run kubectl; its standard output, at most :data:`_LISTING_BYTES`."""
    with tempfile.TemporaryFile() as errors:
        with subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors,
        ) as process:
            assert process.stdout is not None
            if stdin is not None:
                assert process.stdin is not None
                process.stdin.write(stdin)
                process.stdin.close()
            raw = process.stdout.read(_LISTING_BYTES)
            process.stdout.read()  # what is beyond the bound is not kept
            code = process.wait()
        if code != 0:
            raise _failure(what, code, errors)
    return raw


def _stream(argv: list[str], out: IO[bytes]) -> None:
    """Run kubectl, copying its standard output to ``out`` as it arrives (never held whole)."""
    with tempfile.TemporaryFile() as errors:
        with subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors
        ) as process:
            assert process.stdout is not None
            while chunk := process.stdout.read1(64 * 1024):  # type: ignore[attr-defined]
                out.write(chunk)
            code = process.wait()
        if code != 0:
            raise _failure("print the log files", code, errors)
