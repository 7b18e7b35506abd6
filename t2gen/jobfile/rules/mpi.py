"""OpenMPI jobs: one ``perPod`` for all groups, and the SSH Secret only where it is used."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules._base import Rule, as_dict, as_int, groups, problem, rule


@rule("mpi-per-pod", fields=("spec.mpi.enabled", "spec.workers[].perPod"))
def check_mpi_per_pod(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """An OpenMPI job uses one ``perPod`` in every worker group.

    Twister2 starts an OpenMPI job with one ``mpirun`` whose ``-npernode`` is the
    number of workers per pod, the same for every pod of the job.

    Sources: Twister2's ``MPIMasterStarter`` (cylondata/twister2,
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/mpi/MPIMasterStarter.java``);
    Open MPI, ``mpirun(1)``, ``-npernode``
    (https://www.open-mpi.org/doc/v4.1/man1/mpirun.1.php).
    """
    if as_dict(as_dict(data.get("spec")).get("mpi")).get("enabled") is not True:
        return
    found = list(groups(data))
    if not found:
        return
    first = as_int(found[0][1].get("perPod"))
    for index, group in found[1:]:
        per_pod = as_int(group.get("perPod"))
        if per_pod is not None and first is not None and per_pod != first:
            yield problem(
                doc,
                ("spec", "workers", index, "perPod"),
                f"perPod {per_pod} differs from worker group 0's {first}: an OpenMPI job runs mpirun with one "
                f"-npernode for every pod, so all groups must use perPod: {first}",
            )


@rule("mpi-ssh-secret-unused", fields=("spec.mpi.enabled", "spec.mpi.sshSecretName"))
def check_ssh_secret_unused(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``sshSecretName`` is written only for OpenMPI jobs.

    Only OpenMPI pods mount the SSH key Secret. The rule looks at the file as
    written: only a name the user wrote beside ``enabled: false`` is reported.
    """
    if as_dict(as_dict(data.get("spec")).get("mpi")).get("enabled") is not False:
        return
    written = as_dict(as_dict(as_dict(doc.data).get("spec")).get("mpi"))
    if "sshSecretName" in written:
        yield problem(
            doc,
            ("spec", "mpi", "sshSecretName"),
            "sshSecretName is only used by OpenMPI jobs (enabled: true); remove it or enable OpenMPI",
            key=True,
        )


RULES: tuple[Rule, ...] = (check_mpi_per_pod, check_ssh_secret_unused)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
