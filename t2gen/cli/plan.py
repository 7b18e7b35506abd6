"""``t2gen plan``: the worker map of a job, or whether it fits a cluster's nodes."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

import typer

from t2gen.cli._options import (
    FileNames,
    Namespace,
    PackageFile,
    check_kube_version,
    complete_kube_versions,
    job_files,
)
from t2gen.cli._report import reporting, write_stdout
from t2gen.errors import Warning_
from t2gen.kube.versions import DEFAULT_KUBE_VERSION, supported_range

__all__ = ["EPILOG", "PlanFormat", "plan"]

EPILOG = (
    "Examples:\n\n"
    "  t2gen plan job.yaml\n\n"
    "  kubectl t2gen plan -f job.yaml\n\n"
    "  t2gen plan job.yaml -o json | jq '.workers[] | select(.id == 5)'\n\n"
    "  kubectl get nodes -o json > nodes.json; kubectl get pods -A -o json > pods.json\n\n"
    "  t2gen plan job.yaml --nodes nodes.json --pods pods.json\n\n"
    "  kubectl get resourcequota,limitrange -n analytics -o json > quota.json\n\n"
    "  t2gen plan job.yaml -n analytics --nodes nodes.json --quota quota.json\n\n"
    "  t2gen plan job.yaml -n analytics --quota quota.json   # admission only"
)


class PlanFormat(str, Enum):
    """Formats ``plan`` can write."""

    table = "table"
    json = "json"


def plan(
    job: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Argument(
            help="A job file (YAML or JSON); `-` reads it from standard input. Or -f FILE.",
            metavar="JOB",
            show_default=False,
        ),
    ] = None,
    filenames: FileNames = None,
    nodes: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--nodes",
            help="The cluster's nodes: the output of `kubectl get nodes -o json` (or -o yaml). "
            "Checks whether the job fits instead of printing the worker map.",
            metavar="FILE",
        ),
    ] = None,
    pods: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--pods",
            help="The running pods: the output of `kubectl get pods -A -o json`; their requests "
            "are subtracted from the nodes' allocatable (with --nodes).",
            metavar="FILE",
        ),
    ] = None,
    quota: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--quota",
            help="The namespace's quotas: the output of `kubectl get resourcequota,limitrange -o "
            "json`, with Kueue ClusterQueues and LocalQueues or Volcano Queues if the job uses "
            "them; says whether the job will be admitted, and by which limit not. Without "
            "--nodes: admission only, and the output says placement was not judged.",
            metavar="FILE",
        ),
    ] = None,
    gang: Annotated[
        bool,
        typer.Option(
            "--gang",
            help="Plan the whole job as one gang (all pods start together or none), as a gang "
            "scheduler would; pods that carry a pod group in the rendered objects are "
            "planned as a gang without it (with --nodes).",
        ),
    ] = False,
    output_format: Annotated[
        PlanFormat,
        typer.Option(
            "--output",
            "-o",
            "--format",
            help="table: for people; json: for scripts. --format is an alias.",
            case_sensitive=False,
        ),
    ] = PlanFormat.table,
    summary: Annotated[
        bool,
        typer.Option(
            "--summary",
            help="One row per worker group, not one per worker (for large jobs; without --nodes).",
        ),
    ] = False,
    namespace: Namespace = None,
    kube_version: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--kube-version",
            callback=check_kube_version,
            help="Kubernetes version the job is rendered for, as with `t2gen render` (the Workload "
            f"API of `gang: kubernetes` differs by version; {supported_range()}; default "
            f"{DEFAULT_KUBE_VERSION}).",
            metavar="VERSION",
            autocompletion=complete_kube_versions,
        ),
    ] = None,
    package: PackageFile = None,
) -> None:
    """Show where every worker runs, or check that the job fits a cluster.

    Without --nodes: the worker map. Per worker its ID (with OpenMPI, its MPI
    rank), worker group, StatefulSet, pod, container, ports and the pod's DNS
    name under the workers' headless Service
    (<pod>.<service>.<namespace>.svc.cluster.local; just <pod>.<service>,
    relative to the job's namespace, when neither the job file nor
    --namespace names one); the job master's address; and the pods and their
    summed resource requests.

    With --nodes: for each StatefulSet, the nodes that pass the scheduler's
    filters t2gen's output uses (nodeSelector and node affinity, taints and
    tolerations, cordoned nodes, allocatable cpu, memory, pods and extended
    resources, whole free cores for workers bound to cpus, pod
    (anti-)affinity of all-separate-nodes and all-same-node), then a verdict
    with its reasons and one placement of every pod at once; nodes whose
    Ready condition is not True are not schedulable. When the job fits, under
    which queue orders (the StatefulSet controller creates the StatefulSets'
    pods concurrently) the default scheduler strands a pod. With --quota,
    first whether the job will be admitted: LimitRange defaults and limits,
    each ResourceQuota pod by pod, a Kueue or Volcano queue; the first refused
    pod and the limit. Exit code 0 when the job fits (and is admitted), 1 when
    it does not. --quota without --nodes (a tenant who may not list the nodes):
    admission only, saying that placement was not judged; exit code 0 when the
    job is admitted, 1 when not. This predicts feasibility by the filters' rules: the
    scheduler may choose other nodes than the placement shown, and pods or
    nodes that change before the job is applied change the answer.
    """
    files, deprecated_format = job_files(
        [job] if job is not None else None,
        filenames,
        formats=tuple(item.value for item in PlanFormat),
    )
    if len(files) > 1:
        raise typer.BadParameter(
            f"plans one job at a time; got {len(files)}: {', '.join(files)}",
            param_hint="'JOB'",
        )
    (job,) = files
    if deprecated_format is not None:
        output_format = PlanFormat(deprecated_format)
    if nodes is None:
        if pods is not None:
            raise typer.BadParameter("needs --nodes", param_hint="'--pods'")
        if gang:
            raise typer.BadParameter("needs --nodes", param_hint="'--gang'")
    if (nodes is not None or quota is not None) and summary:
        raise typer.BadParameter(
            "applies to the worker map, not to --nodes or --quota",
            param_hint="'--summary'",
        )
    warnings: list[Warning_] = []
    with reporting(warnings):
        from t2gen.errors import inert
        from t2gen.pipeline.plan import plan_job

        outcome = plan_job(
            job,
            namespace=namespace,
            kube_version=kube_version,
            package=package,
            nodes=nodes,
            pods=pods,
            quota=quota,
            gang=gang,
            json_output=output_format is PlanFormat.json,
            summary=summary,
            warnings=warnings,
        )
        write_stdout(inert(outcome.text))
    if not outcome.fits:
        raise typer.Exit(1)
