"""What names the job and what it runs: metadata, the image, and the job package.

The job name and the jar file can also come from ``t2gen import``'s options
(``twister2 submit`` takes the jar on its command line); :func:`refusal` checks
such a value the way the job file would, so that the command can refuse it as a
usage error before reading any configuration.
"""

from __future__ import annotations

import json
from typing import Any

from t2gen.errors import SchemaError, format_json_path
from t2gen.importer.state import Conversion, named
from t2gen.inputs.jobfile import parse_job
from t2gen.inputs.yaml import JsonPath

__all__ = [
    "JAR_FILE_FIELD",
    "JOB_NAME_FIELD",
    "convert_image",
    "convert_metadata",
    "convert_package",
    "refusal",
]

JOB_NAME_ARG = "the job name argument"
JAR_FILE_ARG = "the jar file argument"
JOB_NAME_FIELD: JsonPath = ("metadata", "name")
"""The field ``--name`` sets."""
JAR_FILE_FIELD: JsonPath = ("spec", "jobPackage", "jarFile")
"""The field ``--jar`` sets."""


def refusal(where: JsonPath, value: str) -> str | None:
    """Why t2gen refuses ``value`` as the field ``where`` of a job, or None when it accepts it.

    The value is put into a minimal valid job, which is validated like any job
    file (schema and rules), so the message is the job file's own.

    Args:
        where: the field, e.g. :data:`JOB_NAME_FIELD`.
        value: the value given on the command line.

    Returns:
        The first problem reported at ``where``, or None.
    """
    from t2gen.pipeline.load import validate

    job: dict[str, Any] = {
        "apiVersion": "t2gen/v1",
        "kind": "Twister2Job",
        "metadata": {"name": "job"},
        "spec": {"image": "image", "workers": [{"count": 1}]},
    }
    node = job
    for part in where[:-1]:
        node = node.setdefault(str(part), {})
    node[str(where[-1])] = value
    try:
        validate(parse_job(json.dumps(job), path="<argument>"))
    except SchemaError as err:
        target = format_json_path(where)
        for problem in err.problems:
            if problem.json_path == target:
                return problem.message
    return None


def convert_metadata(conv: Conversion, job_name: str | None) -> None:
    """apiVersion, kind and metadata: the job name (the argument, or the job ID) and namespace."""
    conv.put(("apiVersion",), "t2gen/v1", "t2gen", None)
    conv.put(("kind",), "Twister2Job", "t2gen", None)
    conv.comments.pop(("apiVersion",))
    conv.comments.pop(("kind",))
    if job_name is not None:
        conv.put(JOB_NAME_FIELD, job_name, JOB_NAME_ARG, None)
    elif not conv.field("twister2.job.id", ("metadata", "name")):
        got = conv.get("twister2.resource.job.name")
        if got is None:
            conv.problems.append(
                conv.missing(
                    "no job name: give it with --name NAME, or set twister2.resource.job.name "
                    "(or twister2.job.id, the job ID the runtime uses)",
                    "twister2.resource.job.name",
                    "twister2.job.id",
                )
            )
        else:
            setting, value = got
            conv.put(
                ("metadata", "name"),
                value,
                named(setting),
                setting.at(),
                "twister2.job.id not set",
            )
            conv.warn(
                setting.origin,
                setting.name,
                "twister2.job.id is not set, so Twister2 would generate [user]-[name]-[timestamp]; "
                "t2gen names the job after the job name itself, so set twister2.job.id in the job package to match",
            )
    conv.field("kubernetes.namespace", ("metadata", "namespace"))


def convert_image(conv: Conversion) -> None:
    """spec.image, spec.imagePullPolicy (the image is required) and the worker and driver classes."""
    if not conv.field("twister2.resource.kubernetes.docker.image", ("spec", "image")):
        conv.problems.append(
            conv.missing(
                "no image: set twister2.resource.kubernetes.docker.image, e.g. twister2/twister2-k8s:0.8.0",
                "twister2.resource.kubernetes.docker.image",
            )
        )
    _snapshot_remark(conv)
    conv.field("kubernetes.image.pull.policy", ("spec", "imagePullPolicy"))
    conv.field("twister2.resource.job.worker.class", ("spec", "workerClass"))
    conv.field("twister2.resource.job.driver.class", ("spec", "driverClass"))


def _package_source_note(conv: Conversion) -> None:
    """Point Twister2's delivery keys at their nearest digest-pinned form, ``jobPackage.source``.

    The configuration names how the package travels, never which package:
    its SHA-256 and size exist only once ``t2gen package`` has built it, so the
    job file keeps Twister2's form (a valid job as it is) and the note says
    what to write instead (docs/package.md). ``client-to-pods`` also needs the
    package's size (``jobPackage.fileSize``, rule ``package-file-size``), which
    ``t2gen package`` does not need and ``--package FILE`` supplies: the note
    says to write it, and the job file is checked as with ``--package``
    (:func:`t2gen.importer.convert.needs_package_size`).
    """
    method = conv.get("twister2.kubernetes.uploading.method")
    server = conv.get("twister2.kubernetes.uploader.web.server")
    if method is None and server is None:
        return
    origin = (method or server)[0].at()  # type: ignore[index]
    key = (
        "twister2.kubernetes.uploading.method"
        if method
        else "twister2.kubernetes.uploader.web.server"
    )
    kept = "kept as Twister2's delivery"
    if method is not None and method[1] == "client-to-pods":
        form = (
            "jobPackage.source with oci (t2gen package --oci, then push) or url + sha256 + size: "
            "an init container places the package in every pod, also those created after a copy"
        )
        if "fileSize" not in conv.job.get("spec", {}).get("jobPackage", {}):
            kept = (
                "kept as Twister2's delivery, which needs the package's size, in no "
                "configuration: write jobPackage.fileSize: <the bytes t2gen package prints>, "
                "or give render, validate and plan --package FILE"
            )
    else:
        uri = (
            conv.job.get("spec", {})
            .get("jobPackage", {})
            .get("uri", "<server>/<job>.tar.gz")
        )
        form = (
            f"jobPackage.source: {{url: {uri}, sha256: ..., size: ...}} with the SHA-256 and size "
            "t2gen package prints, in place of uploadMethod and uri: every pod then checks the "
            "package it runs"
        )
    conv.warn(
        origin,
        key,
        f"{kept}; its nearest digest-pinned form is {form} (docs/package.md)",
    )


def _snapshot_remark(conv: Conversion) -> None:
    """A warning for an image whose tag is a ``-SNAPSHOT``: a development build, not a release.

    Maven's convention, which Twister2's build follows (its version is
    ``0.8.0-SNAPSHOT`` and its shipped ``conf/kubernetes/resource.yaml:5`` names
    ``twister2/twister2-k8s:0.8.0-SNAPSHOT``): a snapshot is published again under
    the same name. A tag is looked up when a node pulls it, and
    ``IfNotPresent`` (the default) keeps each node's first copy, so the pods of
    one job may run different builds (https://kubernetes.io/docs/concepts/containers/images/#image-pull-policy).
    """
    got = conv.get("twister2.resource.kubernetes.docker.image")
    if got is None or not isinstance(got[1], str):
        return
    setting, image = got
    name = image.split("@", 1)[0]
    tag = name.rpartition(":")[2] if ":" in name.rpartition("/")[2] else ""
    if "@" in image or not tag.upper().endswith("-SNAPSHOT"):
        return  # a digest pins the build, whatever its tag says
    conv.warn(
        setting.value_at(),
        setting.name,
        f"{image!r} is a -SNAPSHOT tag, a development build that is published again under "
        "the same name: nodes that pull it at different times may run different code, and "
        "imagePullPolicy IfNotPresent keeps each node's first copy (Twister2 0.8's shipped "
        "configuration names it, conf/kubernetes/resource.yaml:5); use a released tag, or "
        "pin the build by digest (image@sha256:...)",
    )


def convert_package(conv: Conversion, jar_file: str | None) -> None:
    """spec.jobPackage: the uploader's URI of the package, the upload method (an older key), and the jar file (an argument)."""
    server = conv.get("twister2.kubernetes.uploader.web.server")
    name = conv.job.get("metadata", {}).get("name")
    if server is not None and name:
        conv.field(
            "twister2.kubernetes.uploader.web.server",
            ("spec", "jobPackage", "uri"),
            f"{server[1].rstrip('/')}/{name}.tar.gz",
            "<server>/<job>.tar.gz",
        )
    conv.field(
        "twister2.kubernetes.uploading.method", ("spec", "jobPackage", "uploadMethod")
    )
    _package_source_note(conv)
    if jar_file is not None:
        conv.put(JAR_FILE_FIELD, jar_file, JAR_FILE_ARG, None)
    else:
        conv.warn(
            None,
            "spec.jobPackage.jarFile",
            "the jar comes from twister2 submit's command line, not from the configuration: give its file name, or the workers' CLASSPATH lacks it (USER_JOB_JAR_FILE)",
        )
