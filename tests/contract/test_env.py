"""The contract on environment variables: every one the runtime reads, in the form it parses.

See :mod:`tests.contract` for what the contract is and where it comes from.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.contract import runtime as t2
from tests.contract.cases import Case, case
from tests.contract.helpers import Container, cases_for, env_of, twister2_containers

# ---------------------------------------------------------------- environment


def _required_env(c: Case, role: str) -> set[str]:
    """The variables a container of ``role`` must have (``runtime.ENV_READERS`` has the readers)."""
    names = {
        "JOB_ID",
        "POD_NAME",
        "HOST_IP",
        "CONTAINER_NAME",
        "POD_MEMORY_VOLUME",
        "JOB_ARCHIVE_DIRECTORY",
        "USER_JOB_JAR_FILE",
        "LOGGER_PROPERTIES_FILE",
        "JOB_PACKAGE_FILENAME",
        "UPLOAD_METHOD",
        "CLASS_TO_RUN",
        "JVM_MEMORY_MB",
        "RESTORE_JOB",
    }
    if role == "worker":
        names |= {"WORKER_PORT", "HOST_NAME"}
        if c.mpi:
            names.add("JOB_SUBMISSION_TIME")
    else:
        names.add("JOB_SUBMISSION_TIME")
    if c.upload_method == "webserver":
        names.add("JOB_PACKAGE_URI")
    else:
        names.add("JOB_PACKAGE_FILE_SIZE")
    return names


@pytest.mark.parametrize("name", cases_for("env-present"))
def test_env_present(name: str) -> None:
    """Every variable the starters and scripts read is set in every Twister2 container.

    Readers: :data:`tests.contract.runtime.ENV_READERS` (e.g. ``WORKER_PORT``:
    ``K8S/worker/K8sWorkerStarter.java:70``; ``UPLOAD_METHOD``:
    ``IMG/get_job_package.sh:117-124``). Conditional ones: ``JOB_PACKAGE_URI``
    for ``webserver`` (``IMG/get_job_package.sh:80``), ``JOB_PACKAGE_FILE_SIZE``
    for ``client-to-pods`` (``:39``), and
    ``JOB_SUBMISSION_TIME`` where ``Long.parseLong`` reads it
    (``K8S/master/JobMasterStarter.java:240``, ``K8S/mpi/MPIMasterStarter.java:228,243``).
    """
    c = case(name)
    missing = [
        f"{pod}/{container['name']}: {sorted(_required_env(c, role) - set(env_of(container)))}"
        for role, pod, container in twister2_containers(c)
        if _required_env(c, role) - set(env_of(container))
    ]
    assert not missing, "missing environment variables:\n" + "\n".join(missing)


def _env_value_problems(c: Case, role: str, container: Container) -> Iterator[str]:
    env = env_of(container)

    def field_path(name: str) -> str | None:
        return ((env.get(name, {}).get("valueFrom") or {}).get("fieldRef") or {}).get(
            "fieldPath"
        )

    literal = {name: entry.get("value") for name, entry in env.items()}
    expected_literals = {
        # RequestObjectBuilder.getCommonEnvVars, K8S/RequestObjectBuilder.java:416-504
        "JOB_ID": c.job,  # :420-422; names: K8S/KubernetesUtils.java:78-89,144-155
        "POD_MEMORY_VOLUME": t2.MEMORY_MOUNT,  # :466-468; the Java reads the constant
        "JOB_ARCHIVE_DIRECTORY": t2.JOB_ARCHIVE_DIRECTORY,  # :470-472, K8sWorkerStarter.java:85
        "LOGGER_PROPERTIES_FILE": t2.LOGGER_PROPERTIES_FILE,  # :491-493
        "JOB_PACKAGE_FILENAME": f"{c.job}.tar.gz",  # :474-476; uploads/DirectUploader.java:107-109
        "CONTAINER_NAME": container["name"],  # :385-387; the worker ID is read from it
    }
    for name, value in expected_literals.items():
        if name in literal and literal[name] != value:
            yield f"{name} is {literal[name]!r}, the runtime needs {value!r}"
    for name, path in (
        ("POD_NAME", "metadata.name"),  # :428-436
        ("HOST_IP", "status.hostIP"),  # :438-446
        ("HOST_NAME", "spec.nodeName"),  # :448-456
    ):
        if name in env and field_path(name) != path:
            yield f"{name} must come from the downward API fieldRef {path}"
    if "UPLOAD_METHOD" in literal and literal["UPLOAD_METHOD"] not in (
        "webserver",
        "client-to-pods",
    ):  # IMG/get_job_package.sh:117-124 exits 1 on anything else
        yield f"UPLOAD_METHOD {literal['UPLOAD_METHOD']!r} is neither webserver nor client-to-pods"
    for name in ("JOB_PACKAGE_FILE_SIZE", "JOB_SUBMISSION_TIME", "JVM_MEMORY_MB"):
        # a decimal integer: compared with stat's size (get_job_package.sh:39),
        # Long.parseLong (JobMasterStarter.java:240), -Xmx${JVM_MEMORY_MB}m (init.sh:27)
        if name in literal and not re.fullmatch(r"\d+", str(literal[name])):
            yield f"{name} {literal[name]!r} is not a decimal integer"
    if literal.get("RESTORE_JOB") not in (None, "true", "false"):
        # Boolean.parseBoolean (K8sWorkerStarter.java:78): anything else is false
        yield f"RESTORE_JOB {literal['RESTORE_JOB']!r} is neither true nor false"
    for name in ("USER_JOB_JAR_FILE", "JOB_PACKAGE_URI", "JOB_MASTER_IP"):
        if name in env and not (literal.get(name) or "").strip():
            yield f"{name} is empty"  # init.sh:22, get_job_package.sh:80, K8sWorkerStarter.java:228
    expected_class = (
        t2.JOB_MASTER_CLASS
        if role == "job-master"
        else t2.MPI_MASTER_CLASS
        if c.mpi
        else t2.WORKER_CLASS
    )  # K8S/RequestObjectBuilder.java:393-400, K8S/master/JobMasterRequestObject.java:219-221
    if literal.get("CLASS_TO_RUN") != expected_class:
        yield f"CLASS_TO_RUN is {literal.get('CLASS_TO_RUN')!r}, not {expected_class}"


@pytest.mark.parametrize("name", cases_for("env-values"))
def test_env_values(name: str) -> None:
    """Every variable has the value form the runtime parses.

    ``JOB_ID`` is the job ID every name is built from; ``POD_NAME``,
    ``HOST_IP``, ``HOST_NAME`` come from the downward API
    (``K8S/RequestObjectBuilder.java:428-456``); ``CONTAINER_NAME`` is the
    container's own name (``:385-387``), from which the worker ID is computed
    (``K8S/worker/K8sWorkerUtils.java:142``); ``POD_MEMORY_VOLUME`` and
    ``JOB_ARCHIVE_DIRECTORY`` equal the constants the Java reads the job from
    (``K8S/worker/K8sWorkerStarter.java:85-93``); ``JOB_PACKAGE_FILENAME`` is
    ``<job>.tar.gz``, where the client copies it (``uploaders/k8s/DirectUploader.java:107-109``);
    sizes and times are decimal integers; ``CLASS_TO_RUN`` is the starter of the role.
    """
    c = case(name)
    problems = [
        f"{pod}/{container['name']}: {problem}"
        for role, pod, container in twister2_containers(c)
        for problem in _env_value_problems(c, role, container)
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", cases_for("env-not-shadowed"))
def test_env_not_shadowed(name: str) -> None:
    """No container sets a variable twice, nor ``HOSTNAME`` or, with OpenMPI, ``SSH_USER``.

    A later duplicate silently replaces the runtime's value. ``HOSTNAME`` tells
    pod ``<job>-0-0`` to start the MPI master (``IMG/init_openmpi.sh:53-60``);
    ``SSH_USER`` (``openmpi``, ``BASE/:70-71``) is the directory the SSH keys are
    copied from (``IMG/../start_sshd.sh:28``), which must match the Secret's mount
    ``/ssh-key/openmpi`` (``K8S/KubernetesConstants.java:28``).
    """
    c = case(name)
    problems = []
    for _role, pod, container in twister2_containers(c):
        names = [entry["name"] for entry in container.get("env") or []]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            problems.append(f"{pod}/{container['name']}: set twice: {twice}")
        forbidden = {"HOSTNAME"} | ({"SSH_USER"} if c.mpi else set())
        if forbidden & set(names):
            problems.append(
                f"{pod}/{container['name']}: sets {sorted(forbidden & set(names))}"
            )
    assert not problems, "\n".join(problems)
