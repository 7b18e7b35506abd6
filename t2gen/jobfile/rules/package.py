"""The job package: what each upload method needs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.jobfile.rules._base import as_dict, problem, rule
from t2gen.jobfile.yaml import SourceDoc


def _client_to_pods(data: dict[str, Any]) -> dict[str, Any] | None:
    """``spec.jobPackage`` when its upload method is ``client-to-pods``, else None."""
    package = as_dict(as_dict(data.get("spec")).get("jobPackage"))
    return package if package.get("uploadMethod") == "client-to-pods" else None


@rule(
    "package-file-size",
    fields=("spec.jobPackage.uploadMethod", "spec.jobPackage.fileSize"),
)
def check_file_size(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``uploadMethod: client-to-pods`` needs ``fileSize``.

    With ``client-to-pods`` the client copies the package into each pod, and
    the pods wait until ``JOB_PACKAGE_FILE_SIZE`` bytes have arrived.

    Sources: Twister2's ``K8sEnvVariables`` and ``uploader/UploaderToPod.java``
    (cylondata/twister2,
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``).
    """
    package = _client_to_pods(data)
    if package is not None and "fileSize" not in package:
        yield problem(
            doc,
            ("spec", "jobPackage", "uploadMethod"),
            "client-to-pods needs jobPackage.fileSize: the pods wait until that many bytes have arrived",
        )


@rule(
    "package-uri-unused", fields=("spec.jobPackage.uploadMethod", "spec.jobPackage.uri")
)
def check_uri_unused(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``uri`` is set only with ``uploadMethod: webserver``.

    With ``client-to-pods`` nothing downloads the package, so a ``uri`` would be
    ignored; it is reported rather than dropped.
    """
    package = _client_to_pods(data)
    if package is not None and "uri" in package:
        yield problem(
            doc,
            ("spec", "jobPackage", "uri"),
            "uri is only used with uploadMethod: webserver; remove it",
            key=True,
        )
