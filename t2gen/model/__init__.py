"""The job as typed, frozen data, built only from documents that passed validation.

One module per part of the job file: :mod:`.placement`, :mod:`.pods` (worker
groups and the job master), :mod:`.runtime` (network, storage, OpenMPI, job
package, environment), :mod:`.security` (security profile and RBAC),
:mod:`.isolation` (the opt-in NetworkPolicy), :mod:`.destinations` (the dashboard and
HDFS the job's configuration reaches, against that policy), :mod:`.scheduling`, :mod:`.lifecycle` (``spec.lifecycle``), :mod:`.surface`
(runtime class, extra volumes, ``envFrom``), :mod:`.job` (the job and its spec); :mod:`.build` builds
them from the validated document. Every public name is importable from here.
"""

from __future__ import annotations

from t2gen.model.build import build_job
from t2gen.model.isolation import EgressDestination, NetworkPolicy
from t2gen.model.job import Job, JobSpec
from t2gen.model.lifecycle import Lifecycle
from t2gen.model.placement import (
    NodeSelectorRequirement,
    Placement,
    PreferredRequirement,
    Toleration,
)
from t2gen.model.pods import JobMaster, WorkerGroup
from t2gen.model.runtime import (
    Checkpointing,
    EnvVar,
    JobPackage,
    KeptLogs,
    Mpi,
    Network,
    PackageSource,
    PersistentStorage,
    ZooKeeper,
)
from t2gen.model.scheduling import Scheduling
from t2gen.model.security import Rbac, Security
from t2gen.model.surface import ExtraVolume, PodSurface

__all__ = [
    "Checkpointing",
    "EgressDestination",
    "EnvVar",
    "ExtraVolume",
    "Job",
    "JobMaster",
    "JobPackage",
    "JobSpec",
    "KeptLogs",
    "Lifecycle",
    "Mpi",
    "Network",
    "NetworkPolicy",
    "NodeSelectorRequirement",
    "PackageSource",
    "PersistentStorage",
    "Placement",
    "PodSurface",
    "PreferredRequirement",
    "Rbac",
    "Scheduling",
    "Security",
    "Toleration",
    "WorkerGroup",
    "ZooKeeper",
    "build_job",
]
