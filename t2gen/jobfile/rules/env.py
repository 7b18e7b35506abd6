"""Extra environment variables: neither the runtime's own nor repeated."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem, format_json_path
from t2gen.inputs.yaml import JsonPath, SourceDoc
from t2gen.jobfile.rules._base import Rule, as_dict, as_list, groups, problem, rule
from t2gen.twister2.names import ENV_SET_BY_T2GEN, ENV_SET_BY_THE_JOB

# Where t2gen takes each runtime variable from, for messages about a clash.
_ENV_SOURCES = {
    "JOB_ID": "metadata.name",
    "USER_JOB_JAR_FILE": "spec.jobPackage.jarFile",
    "JOB_PACKAGE_URI": "spec.jobPackage.uri",
    "JOB_PACKAGE_FILE_SIZE": "spec.jobPackage.fileSize",
    "UPLOAD_METHOD": "spec.jobPackage.uploadMethod",
    "JOB_MASTER_IP": "spec.jobMaster.address",
    "RESTORE_JOB": "spec.checkpointing.restore",
    "WORKER_PORT": "spec.network.basePort",
    "JVM_MEMORY_MB": "the worker group's memory",
}


def _scope_names(holder: dict[str, Any]) -> Iterator[tuple[int, str]]:
    for index, variable in enumerate(as_list(holder.get("env"))):
        name = as_dict(variable).get("name")
        if isinstance(name, str):
            yield index, name


def _names(data: dict[str, Any]) -> Iterator[tuple[int, str]]:
    """Yield (index, name) of every ``spec.env`` entry whose name is a string."""
    yield from _scope_names(as_dict(data.get("spec")))


def _all_names(data: dict[str, Any]) -> Iterator[tuple[JsonPath, str]]:
    """Yield (path of the entry, name) of ``spec.env``, every group's and the job master's ``env``."""
    spec = as_dict(data.get("spec"))
    holders: list[tuple[JsonPath, dict[str, Any]]] = [(("spec",), spec)]
    holders += [(("spec", "workers", index), group) for index, group in groups(data)]
    holders.append((("spec", "jobMaster"), as_dict(spec.get("jobMaster"))))
    for path, holder in holders:
        for index, name in _scope_names(holder):
            yield (*path, "env", index), name


@rule(
    "env-reserved",
    fields=(
        "spec.env[].name",
        "spec.workers[].env[].name",
        "spec.jobMaster.env[].name",
    ),
)
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
    for path, name in _all_names(data):
        if name in ENV_SET_BY_T2GEN:
            source = _ENV_SOURCES.get(name)
            hint = f"set {source} instead" if source else "choose another name"
            yield problem(
                doc,
                (*path, "name"),
                f"{name} is set by t2gen for the Twister2 runtime and cannot be overridden; {hint}",
            )


@rule(
    "env-duplicate",
    fields=(
        "spec.env[].name",
        "spec.workers[].env[].name",
        "spec.jobMaster.env[].name",
    ),
)
def check_env_duplicate(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Each variable of a container is listed once, in ``spec.env`` and its scope's ``env``.

    A worker group's ``env`` comes after ``spec.env``; with two entries of one
    name, the container gets the last one; which one was meant is unclear, so
    the second is reported. The job master takes of ``spec.env`` only the
    runtime's variables a job may set (``JOB_SUBMISSION_TIME``,
    ``ENCODED_NODE_INFO_LIST``), so only those clash with its own ``env``:
    ``jobMaster.env`` may name a variable of ``spec.env`` for the job master
    to have as well. (A name t2gen sets is reported by ``env-reserved``
    instead.)

    Sources: Kubernetes API, ``Container.env``
    (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#environment-variables).
    """
    common: dict[str, JsonPath] = {}
    scopes: dict[JsonPath, dict[str, JsonPath]] = {}
    for path, name in _all_names(data):
        if name in ENV_SET_BY_T2GEN:
            continue
        scope = path[:-2]
        if scope == ("spec",):
            seen = common
        elif scope == ("spec", "jobMaster"):
            seen = scopes.setdefault(
                scope, {n: p for n, p in common.items() if n in ENV_SET_BY_THE_JOB}
            )
        else:
            seen = scopes.setdefault(scope, dict(common))
        if name in seen:
            yield problem(
                doc,
                (*path, "name"),
                f"{name} is already set at {format_json_path(seen[name])}; list each variable once",
            )
        else:
            seen[name] = path


@rule(
    "env-value-or-value-from",
    fields=("spec.env[]", "spec.workers[].env[]", "spec.jobMaster.env[]"),
)
def check_env_value_from(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """An ``env`` entry has a ``value`` or a ``valueFrom``, not both.

    The API server refuses a variable with both ("may not have more than one
    field specified at a time"); an entry with neither would set an empty
    string, which is what ``value: ""`` says plainly.

    Source: Kubernetes ``pkg/apis/core/validation/validation.go``
    (``validateEnvVarValueFrom``, kubernetes/kubernetes).
    """
    for path, _ in _all_names(data):
        node: Any = data
        for part in path:
            node = node[part]
        if "value" in node and "valueFrom" in node:
            yield problem(
                doc,
                (*path, "valueFrom"),
                "an environment variable has a value or a valueFrom, not both; remove one",
                key=True,
            )


_INT64_MAX = 2**63 - 1


@rule("env-job-submission-time", fields=("spec.env[].name", "spec.env[].value"))
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


@rule(
    "env-from-source",
    fields=("spec.envFrom[]", "spec.workers[].envFrom[]", "spec.jobMaster.envFrom[]"),
)
def check_env_from_source(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """An ``envFrom`` entry names exactly one of ``configMapRef`` and ``secretRef``.

    The API server refuses an ``EnvFromSource`` with neither or both
    ("must specify one of: `configMapRef` or `secretRef`").

    Source: Kubernetes ``pkg/apis/core/validation/validation.go``
    (``validateEnvFrom``, kubernetes/kubernetes).
    """
    spec = as_dict(data.get("spec"))
    holders: list[tuple[JsonPath, dict[str, Any]]] = [(("spec",), spec)]
    holders += [(("spec", "workers", index), group) for index, group in groups(data)]
    holders.append((("spec", "jobMaster"), as_dict(spec.get("jobMaster"))))
    for path, holder in holders:
        for index, item in enumerate(as_list(holder.get("envFrom"))):
            if not isinstance(item, dict):
                continue
            given = [key for key in ("configMapRef", "secretRef") if key in item]
            if len(given) == 1:
                continue
            where: JsonPath = (*path, "envFrom", index)
            yield problem(
                doc,
                (*where, given[1]) if given else where,
                "an envFrom entry names one of configMapRef or secretRef"
                + ("; list the two as two entries" if given else ""),
                key=bool(given),
            )


RULES: tuple[Rule, ...] = (
    check_env_reserved,
    check_env_duplicate,
    check_env_value_from,
    check_job_submission_time,
    check_env_from_source,
)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
