"""The keys of Twister2's ``core.yaml``, ``data.yaml`` and ``checkpoint.yaml``: job ID, job master, runtime.

Keys shipped in ``twister2/config/src/yaml/conf/{common,kubernetes}/core.yaml``,
``data.yaml`` and ``checkpoint.yaml`` of cylondata/twister2 0.8 (copied in the
fixture ``tests/fixtures/twister2-0.8-conf``), and the runtime keys the code reads
without shipping them (the user name, the restart budgets, restoring a job). Most
are read by the runtime from the job package and have no job-file field.
"""

from __future__ import annotations

from t2gen.importer.keys.model import JMC, KC, Key, Kind, Use

__all__ = ["CORE_KEYS"]

CORE_KEYS: tuple[Key, ...] = (
    Key(
        "twister2.job.id",
        Kind.STRING,
        None,
        Use.FIELD,
        "metadata.name",
        note="the job ID; Twister2 generates one with a timestamp when it is absent",
        agree="the job ID in the job package must equal metadata.name",
        source="Context.java:72",
    ),
    Key(
        "twister2.user.name",
        Kind.STRING,
        None,
        Use.CLIENT,
        note="part of a generated job ID",
        source="Context.java:73",
    ),
    Key(
        "twister2.kubernetes.jvm.memory.fraction",
        Kind.NUMBER,
        0.8,
        Use.FIELD,
        "spec.jvmMemoryFraction",
        note="the workers' heap share; t2gen's job master keeps 80%",
        source=f"{KC}:96-97",
    ),
    Key(
        "twister2.job.master.runs.in.client",
        Kind.BOOL,
        False,
        Use.FIELD,
        "spec.jobMaster.enabled",
        note="jobMaster.enabled is its negation",
        agree="workers start a job master client only as the job package's value says; keep it equal",
        source=f"{JMC}:26-27",
    ),
    Key(
        "twister2.job.master.port",
        Kind.INT,
        11011,
        Use.FIELD,
        "spec.jobMaster.port",
        agree="the job master listens, and workers dial, on the job package's port; keep it equal",
        source=f"{JMC}:29-30",
    ),
    Key(
        "twister2.job.master.cpu",
        Kind.NUMBER,
        0.2,
        Use.FIELD,
        "spec.jobMaster.cpu",
        source=f"{JMC}:42-43",
    ),
    Key(
        "twister2.job.master.ram",
        Kind.INT,
        1024,
        Use.FIELD,
        "spec.jobMaster.memory",
        note="MB; the heap, as Twister2's (request ram + 128Mi)",
        source=f"{JMC}:46-47",
    ),
    Key(
        "twister2.job.master.volatile.volume.size",
        Kind.NUMBER,
        0.0,
        Use.FIELD,
        "spec.jobMaster.volatileDisk",
        note="GB; 0 means none",
        source=f"{JMC}:50-51",
    ),
    Key(
        "twister2.job.master.used",
        Kind.BOOL,
        True,
        Use.UNUSED,
        note="ignored by the Kubernetes launcher",
        source=f"{JMC}:22-23",
    ),
    Key(
        "twister2.worker.controller.max.wait.time.for.all.workers.to.join",
        Kind.INT,
        100000,
        Use.PACKAGE,
        note="join timeout (ms); raise it when pods queue",
        source="common/core.yaml:43-46",
    ),
    Key(
        "twister2.worker.controller.max.wait.time.on.barrier",
        Kind.INT,
        100000,
        Use.PACKAGE,
        note="barrier timeout (ms)",
        source="common/core.yaml:48-51",
    ),
    Key(
        "twister2.worker.controller.max.wait.time.on.init.barrier",
        Kind.INT,
        600000,
        Use.PACKAGE,
        note="init barrier timeout (ms)",
        source="common/core.yaml:53-56",
    ),
    Key(
        "twister2.worker.to.job.master.response.wait.duration",
        Kind.INT,
        100000,
        Use.PACKAGE,
        note="request timeout (ms)",
        source=f"{JMC}:37-38",
    ),
    Key(
        "twister2.fault.tolerance.max.worker.restarts",
        Kind.INT,
        5,
        Use.PACKAGE,
        note="restart budget",
        source="FaultToleranceContext.java:30-36",
    ),
    Key(
        "twister2.fault.tolerance.max.mpijob.restarts",
        Kind.INT,
        1,
        Use.PACKAGE,
        note="restart budget",
        source="FaultToleranceContext.java:30-36",
    ),
    Key(
        "twister2.checkpointing.enable",
        Kind.BOOL,
        False,
        Use.PACKAGE,
        note="keeps the claim after a failure",
        source="CheckpointingContext.java:23",
    ),
    Key(
        "twister2.checkpointing.restore.job",
        Kind.BOOL,
        False,
        Use.PACKAGE,
        note="t2gen always sets RESTORE_JOB=false, so a restore cannot be started through t2gen",
        source="CheckpointingContext.java:32,61",
    ),
    Key(
        "twister2.checkpointing.store.fs.dir",
        Kind.STRING,
        None,
        Use.PACKAGE,
        note="checkpoint store",
        source="conf/kubernetes/checkpoint.yaml:2",
    ),
    Key(
        "twister2.persistent.storage.type",
        Kind.STRING,
        "mounted",
        Use.PACKAGE,
        note="runtime storage choice",
        source="FileSystemContext.java:24-26",
    ),
    Key(
        "twister2.persistent.storage.root",
        Kind.STRING,
        None,
        Use.PACKAGE,
        note="runtime storage choice",
        source="FileSystemContext.java:24-26",
    ),
    Key(
        "twister2.logging.storage.type",
        Kind.STRING,
        "volatile",
        Use.PACKAGE,
        note="runtime storage choice",
        source="LoggingContext.java:64",
    ),
)
"""The keys of ``core.yaml``, ``data.yaml`` and ``checkpoint.yaml``, in the reference table's order."""
