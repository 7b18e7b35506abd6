"""The keys of Twister2's ``network.yaml``: worker ports, the Service, the channel (OpenMPI).

Keys shipped in ``twister2/config/src/yaml/conf/kubernetes/network.yaml`` and
``conf/common/network.yaml`` of cylondata/twister2 0.8 (copied in the fixture
``tests/fixtures/twister2-0.8-conf``), with where Twister2 defines each and the
job-file field it becomes. Regular workers take their port from ``WORKER_PORT``,
which t2gen sets; OpenMPI workers compute it from the base port in the job
package (``MPIWorkerStarter.java:146-147``), hence ``agree_mpi_only``.
"""

from __future__ import annotations

from t2gen.importer.keys.model import KC, MPI_CHANNEL, SC, Key, Kind, Use

__all__ = ["NETWORK_KEYS"]

NETWORK_KEYS: tuple[Key, ...] = (
    Key(
        "kubernetes.worker.base.port",
        Kind.INT,
        9000,
        Use.FIELD,
        "spec.network.basePort",
        agree="OpenMPI workers compute their port from the job package's base port; keep it equal",
        agree_mpi_only=True,
        source=f"{KC}:30-31",
    ),
    Key(
        "kubernetes.worker.transport.protocol",
        Kind.STRING,
        "TCP",
        Use.FIELD,
        "spec.network.protocol",
        source=f"{KC}:43-44",
    ),
    Key(
        "kubernetes.node.port.service.requested",
        Kind.BOOL,
        False,
        Use.FIELD,
        "spec.network.service.type",
        note="NodePort: the workers' Service <job> is a NodePort Service instead of a headless one",
        source=f"{KC}:37-38",
    ),
    Key(
        "kubernetes.service.node.port",
        Kind.INT,
        0,
        Use.FIELD,
        "spec.network.service.nodePort",
        note="0 means Kubernetes picks one (omitted)",
        source=f"{KC}:40-41",
    ),
    Key(
        "twister2.network.channel.class",
        Kind.STRING,
        MPI_CHANNEL,
        Use.FIELD,
        "spec.mpi.enabled",
        note="TWSMPIChannel, the code default, makes an OpenMPI job",
        source=f"{SC}:43-44,209-211",
    ),
    Key(
        "kubernetes.secret.name",
        Kind.STRING,
        None,
        Use.FIELD,
        "spec.mpi.sshSecretName",
        note="used only by OpenMPI jobs",
        source=f"{KC}:73",
    ),
    Key(
        "twister2.kubernetes.check.pwd.free.ssh",
        Kind.BOOL,
        False,
        Use.PACKAGE,
        note="the MPI master checks SSH before mpirun",
        source=f"{KC}:93-94",
    ),
    Key(
        "twister2.resource.scheduler.mpi.params",
        Kind.STRING,
        None,
        Use.PACKAGE,
        note="extra mpirun arguments",
        source="MPIContext.java:33",
    ),
    Key(
        "twister2.job.master.provided.ip",
        Kind.STRING,
        "",
        Use.FIELD,
        "spec.jobMaster.address",
        note="used only when the job master runs in the client",
        source=f"{SC}:107,276-278",
    ),
)
"""The keys of ``network.yaml`` (common and kubernetes), in the reference table's order."""
