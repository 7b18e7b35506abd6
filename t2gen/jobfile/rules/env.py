"""Extra environment variables: neither the runtime's own nor repeated."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.jobfile.rules._base import as_dict, as_list, problem, rule
from t2gen.jobfile.yaml import SourceDoc
from t2gen.twister2.names import ENV_SET_BY_T2GEN

# Where t2gen takes each runtime variable from, for messages about a clash.
_ENV_SOURCES = {
    "JOB_ID": "metadata.name",
    "USER_JOB_JAR_FILE": "spec.jobPackage.jarFile",
    "JOB_PACKAGE_URI": "spec.jobPackage.uri",
    "JOB_PACKAGE_FILE_SIZE": "spec.jobPackage.fileSize",
    "UPLOAD_METHOD": "spec.jobPackage.uploadMethod",
    "JOB_MASTER_IP": "spec.jobMaster.address",
    "WORKER_PORT": "spec.network.basePort",
    "JVM_MEMORY_MB": "the worker group's memory",
}


def _names(data: dict[str, Any]) -> Iterator[tuple[int, str]]:
    """Yield (index, name) of every ``spec.env`` entry whose name is a string."""
    for index, variable in enumerate(as_list(as_dict(data.get("spec")).get("env"))):
        name = as_dict(variable).get("name")
        if isinstance(name, str):
            yield index, name


@rule("env-reserved", fields=("spec.env[].name",))
def check_env_reserved(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``spec.env`` does not set a variable t2gen sets for the Twister2 runtime.

    The runtime reads its settings from ``K8sEnvVariables`` (``JOB_ID``,
    ``WORKER_PORT``, ``JVM_MEMORY_MB``...); t2gen derives them from the job file,
    and a second definition in the same container would override or shadow
    them. The message names the job-file field to set instead.
    ``ENCODED_NODE_INFO_LIST`` and ``JOB_SUBMISSION_TIME`` are left to the job.

    Sources: Twister2's ``K8sEnvVariables`` (cylondata/twister2,
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/K8sEnvVariables.java``);
    ``t2gen/twister2/names.py`` (``ENV_SET_BY_T2GEN``).
    """
    for index, name in _names(data):
        if name in ENV_SET_BY_T2GEN:
            source = _ENV_SOURCES.get(name)
            hint = f"set {source} instead" if source else "choose another name"
            yield problem(
                doc,
                ("spec", "env", index, "name"),
                f"{name} is set by t2gen for the Twister2 runtime and cannot be overridden; {hint}",
            )


@rule("env-duplicate", fields=("spec.env[].name",))
def check_env_duplicate(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Each ``spec.env`` variable is listed once.

    With two entries of one name, the container gets the last one; which one
    was meant is unclear, so the second is reported. (A name of the runtime's is
    reported by ``env-reserved`` instead.)

    Sources: Kubernetes API, ``Container.env``
    (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#environment-variables).
    """
    seen: dict[str, int] = {}
    for index, name in _names(data):
        if name in ENV_SET_BY_T2GEN:
            continue
        if name in seen:
            yield problem(
                doc,
                ("spec", "env", index, "name"),
                f"{name} is already set at spec.env[{seen[name]}]; list each variable once",
            )
        else:
            seen[name] = index


_INT64_MAX = 2**63 - 1


@rule("env-job-submission-time", fields=("spec.env[].value",))
def check_job_submission_time(
    data: dict[str, Any], doc: SourceDoc
) -> Iterator[Problem]:
    """A ``JOB_SUBMISSION_TIME`` set in ``spec.env`` is a whole number (milliseconds).

    With ZooKeeper configured, every worker and the job master parse it with
    ``Long.parseLong`` and fail on anything else; OpenMPI's master passes it on
    to the MPI workers. Without it t2gen writes ``0``.

    Sources: cylondata/twister2
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/core/WorkerRuntime.java``
    and ``.../schedulers/k8s/master/JobMasterStarter.java`` (``Long.parseLong``);
    Java ``Long.parseLong`` (https://docs.oracle.com/javase/8/docs/api/java/lang/Long.html#parseLong-java.lang.String-).
    """
    for index, variable in enumerate(as_list(as_dict(data.get("spec")).get("env"))):
        variable = as_dict(variable)
        if variable.get("name") != "JOB_SUBMISSION_TIME":
            continue
        value = variable.get("value", "")
        if not isinstance(value, str):
            continue
        digits = value[1:] if value[:1] in ("+", "-") else value
        if digits.isascii() and digits.isdigit() and abs(int(value)) <= _INT64_MAX:
            continue
        yield problem(
            doc,
            ("spec", "env", index, "value")
            if "value" in variable
            else ("spec", "env", index),
            f"JOB_SUBMISSION_TIME must be a whole number (milliseconds since the epoch, e.g. "
            f'"1700000000000"), which Twister2 reads with Long.parseLong; {value!r} is not one',
        )
