"""``t2gen package``: the job package of a validated job, and how to deliver it.

Orchestration of :mod:`.job` (the ``.job``), :mod:`.config` (the
configuration) and :mod:`.write` (the archive); :func:`delivery` is the upload
step printed for the job's ``uploadMethod``.
"""

from __future__ import annotations

from pathlib import Path

from t2gen.errors import ConfigError, Problem, SchemaError, shell_word
from t2gen.inputs.yaml import SourceDoc
from t2gen.model import Job
from t2gen.package.confagree import Change, conf_with_job, minimal_config
from t2gen.package.jar import check_jar
from t2gen.package.job import job_message
from t2gen.package.write import Member, write_package
from t2gen.record import Record
from t2gen.twister2 import names

__all__ = ["Built", "build_package", "delivery", "jar_name"]

UPLOADER_DIRECTORY = "/usr/share/nginx/html"
"""Where Twister2's uploader serves files (``twister2.kubernetes.uploader.web.server.directory``'s default)."""
UPLOADER_LABEL = "app=twister2-uploader"
"""The uploader pods' label (``twister2.kubernetes.uploader.web.server.label``'s default, ``K8sUploader.java:45-47``)."""


class Built(Record):
    """What ``t2gen package`` wrote: the file, its size, the jar's name in it, the configuration changes and its SHA-256 (hex)."""

    path: str
    size: int
    jar: str
    changes: tuple[Change, ...]
    sha256: str = ""


def jar_name(job: Job) -> str:
    """The jar's file name in the package: ``jobPackage.jarFile``, else ``<job>.jar`` (``USER_JOB_JAR_FILE``)."""
    return job.spec.job_package.jar_file or f"{job.name}.jar"


def _require_regular(path: str, what: str) -> None:
    file = Path(path)
    if not file.exists():
        raise ConfigError(path=path, message=f"no such {what}")
    if not file.is_file():
        raise ConfigError(path=path, message=f"not a regular file: give the {what}")


def build_package(
    job: Job, doc: SourceDoc, *, jar: str, conf: str | None, output: str | None
) -> Built:
    """Write the package of ``job`` and return what was written.

    Args:
        job: the validated job (``-n`` applied).
        doc: its job file as read (to locate a missing ``workerClass``).
        jar: the user's jar, streamed into the package.
        conf: a Twister2 configuration root to take ``common/`` and
            ``kubernetes/`` from, or None for :func:`.config.minimal_config`.
        output: the package file; None: ``<job>.tar.gz`` in the current directory.

    Returns:
        The written package.

    Raises:
        SchemaError: the job file has no ``spec.workerClass``, or the jar lacks its
            class (:func:`t2gen.package.jar.check_jar`).
        ConfigError: an input is unreadable or the output cannot be written
            (nothing is left behind).
    """
    if not job.spec.worker_class:
        line, col = doc.position(("spec",))
        raise SchemaError(
            problems=[
                Problem(
                    doc.path,
                    line,
                    col,
                    "t2gen package needs spec.workerClass, the Java class of the job's workers "
                    "(e.g. edu.iu.dsc.tws.examples.batch.wordcount.tset.WordCount)",
                    "spec.workerClass",
                )
            ]
        )
    _require_regular(jar, "jar file")
    check_jar(jar, job, doc)
    name = jar_name(job)
    if conf is not None:
        files, changes = conf_with_job(conf, job)
    else:
        files, changes = minimal_config(job), []
    message = job_message(job, name)
    members = [
        Member(f"{job.name}.job", data=message.SerializeToString(deterministic=True)),
        Member(name, source=jar),
        *(Member(f"{f.directory}/{f.name}", data=f.data) for f in files),
    ]
    target = output or f"{job.name}.tar.gz"
    inputs = [jar, job.source]
    if conf is not None:
        inputs += [str(Path(conf) / f.directory / f.name) for f in files]
    written = write_package(target, members, inputs=inputs)
    return Built(target, written.size, name, tuple(changes), written.sha256)


def delivery(job: Job, built: Built) -> list[str]:
    """The upload step for the job's ``uploadMethod``, as lines for stderr.

    ``webserver``: copy into every uploader pod, in namespace ``default`` or,
    with ``jobPackage.uploader: job-namespace``, in the job's own, where Twister2
    copies it (the pods labelled ``app=twister2-uploader`` in
    ``kubernetes.namespace``: ``rsched/uploaders/k8s/K8sUploader.java:69-78``,
    ``UploaderToWebServers.java:51,92-103``), or serve it at ``jobPackage.uri``. ``client-to-pods``: copy into the first container of
    every pod of the job, at ``/twister2-memory-dir/<job>.tar.gz``, where
    ``get_job_package.sh`` waits for ``fileSize`` bytes
    (``rsched/uploaders/k8s/DirectUploader.java:107-109``).
    """
    package = job.spec.job_package
    if package.source is not None:
        from t2gen.package.delivery import source_delivery

        return source_delivery(job, built)
    file = shell_word(built.path)
    target_name = f"{job.name}.tar.gz"
    ns = f" -n {job.namespace}" if job.namespace else ""
    if package.upload_method == "webserver":
        default = f"{names.DEFAULT_UPLOADER}/{target_name}"
        if package.uri and package.uri != default:
            return [f"upload: serve {built.path} ({built.size} bytes) at {package.uri}"]
        if not package.uri and package.uploader == "job-namespace":
            where = (
                f"namespace {job.namespace}" if job.namespace else "the job's namespace"
            )
            return [
                f"upload: copy {built.path} ({built.size} bytes) into every Twister2 uploader pod "
                f"({where}, label {UPLOADER_LABEL}), as twister2 submit does:",
                f"  for pod in $(kubectl get pods{ns} -l {UPLOADER_LABEL} -o name); do "
                f"kubectl cp{ns} {file} ${{pod#pod/}}:{UPLOADER_DIRECTORY}/{target_name}; done",
            ]
        return [
            f"upload: copy {built.path} ({built.size} bytes) into every Twister2 uploader pod "
            f"(namespace default, label {UPLOADER_LABEL}), as twister2 submit does:",
            f"  for pod in $(kubectl get pods -n default -l {UPLOADER_LABEL} -o name); do "
            f"kubectl cp {file} default/${{pod#pod/}}:{UPLOADER_DIRECTORY}/{target_name}; done",
        ]
    pods = [
        f"{job.name}-{group.index}-{pod}"
        for group in job.spec.workers
        for pod in range(group.replicas)
    ]
    lines = [
        f"upload: after kubectl apply, copy {built.path} ({built.size} bytes, jobPackage.fileSize) "
        f"to {names.MEMORY_VOLUME_PATH}/{target_name} in the first container of every pod; "
        "each waits until all its bytes have arrived:",
    ]
    lines += [
        f"  kubectl cp{ns} {file} {pod}:{names.MEMORY_VOLUME_PATH}/{target_name} -c twister2-container-0"
        for pod in pods
    ]
    lines.append(
        f"  kubectl cp{ns} {file} {job.name}{names.JOB_MASTER_SUFFIX}-0:"
        f"{names.MEMORY_VOLUME_PATH}/{target_name} -c {names.JOB_MASTER_CONTAINER}"
    )
    lines.append(
        "  a pod created later (restarted or scaled) needs the copy too: see docs/package.md "
        "for the loop that keeps copying until the job ends"
    )
    return lines
