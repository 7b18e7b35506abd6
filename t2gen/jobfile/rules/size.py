"""The size of what a job renders: t2gen's own limit on environment entries."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.jobfile.rules._base import as_dict, as_int, as_list, groups, problem, rule
from t2gen.jobfile.yaml import SourceDoc

__all__ = ["MAX_ENV_ENTRIES"]

MAX_ENV_ENTRIES = 100_000
"""Most environment variables over all container templates of a job (about 6 MB of YAML).

Containers x (runtime variables + ``spec.env``): 50 groups of 1 worker per pod
with 1,000 extra variables is 51,000; 4 workers per pod would be 204,000.
"""

_RUNTIME_ENV = 20  # variables t2gen sets in each container (K8sEnvVariables), at most


@rule(
    "manifest-size",
    fields=("spec.env", "spec.workers[].perPod", "spec.mpi.enabled"),
)
def check_size(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """The pod templates hold at most 100,000 environment entries (``MAX_ENV_ENTRIES``).

    Every container template repeats the runtime's variables (up to 20, from
    Twister2's ``K8sEnvVariables``) and every ``spec.env`` entry, once per
    container: a worker pod has ``perPod`` containers, an OpenMPI pod one, per
    worker group. A t2gen limit, so that every job renders in seconds and its
    manifests stay a size ``kubectl apply`` handles (about 6 MB of YAML at the
    limit).
    """
    spec = as_dict(data.get("spec"))
    mpi = as_dict(spec.get("mpi")).get("enabled") is True
    containers = sum(
        1 if mpi else (as_int(group.get("perPod")) or 1) for _, group in groups(data)
    )
    variables = len(as_list(spec.get("env"))) + _RUNTIME_ENV
    entries = containers * variables
    if entries > MAX_ENV_ENTRIES:
        # Blame the larger factor: the job's own variables, or the containers.
        where = (
            ("spec", "env")
            if variables - _RUNTIME_ENV > containers
            else ("spec", "workers")
        )
        yield problem(
            doc,
            where,
            f"the job's pod templates would hold {entries:,} environment variables ({containers} containers x "
            f"{variables}); t2gen renders at most {MAX_ENV_ENTRIES:,}: use fewer extra variables, fewer workers "
            "per pod or fewer worker groups",
        )
