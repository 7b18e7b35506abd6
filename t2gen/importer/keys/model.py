"""The types of the key table, and the facts about Twister2's configuration it rests on.

The key modules (:mod:`.resource`, :mod:`.network`, :mod:`.core`, :mod:`.legacy`)
list the keys as :class:`Key` values; :mod:`t2gen.importer.keys` collects them.
"""

from __future__ import annotations

from enum import Enum

from t2gen.record import Record

__all__ = [
    "COMPUTE_RESOURCE_FIELDS",
    "JMC",
    "JVM_MEMORY_FRACTION",
    "KC",
    "KUBERNETES_PREFIXES",
    "MPI_CHANNEL",
    "SC",
    "ComputeField",
    "Key",
    "Kind",
    "Use",
]

MPI_CHANNEL = "edu.iu.dsc.tws.comms.mpi.TWSMPIChannel"
"""The channel class that makes a job an OpenMPI job; also the code default (SchedulerContext)."""

JVM_MEMORY_FRACTION = 0.8
"""t2gen's fixed JVM heap fraction, Twister2's default (KubernetesContext)."""

KUBERNETES_PREFIXES: tuple[str, ...] = (
    "kubernetes.",
    "twister2.kubernetes.",
    "twister2.resource.kubernetes.",
)
"""Key prefixes that only the Kubernetes launcher uses: an unknown key with one is a typo."""

KC = "KubernetesContext.java"
"""``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/KubernetesContext.java``."""
SC = "SchedulerContext.java"
"""``twister2/api/src/java/edu/iu/dsc/tws/api/config/SchedulerContext.java``."""
JMC = "JobMasterContext.java"
"""``twister2/master/src/java/edu/iu/dsc/tws/master/JobMasterContext.java``."""


class Kind(str, Enum):
    """The value type a key holds, as Twister2's TypeUtils converts it."""

    BOOL = "boolean"
    INT = "integer"
    NUMBER = "number"
    STRING = "string"
    STRING_LIST = "list of strings"
    COMPUTE_RESOURCES = "list of compute resources"
    ANY = "any value"


class Use(str, Enum):
    """What the importer does with a key."""

    FIELD = "field"
    """Converted to a job-file field."""
    PACKAGE = "package"
    """Read by the runtime from the job package's configuration; no manifest effect."""
    CLIENT = "client"
    """Read only by the Twister2 client (``twister2 submit``); no manifest effect."""
    UNUSED = "unused"
    """Not read on Kubernetes (another launcher's key, or dead code)."""


class Key(Record):
    """One Twister2 configuration key.

    Attributes:
        name: the key as Twister2 0.8 reads it.
        kind: its value type.
        default: Twister2's code default; None when there is none.
        use: what the importer does with it.
        field: the job-file field it becomes (``spec.network.basePort``), or None.
        aliases: legacy names (renamed on 2019-09-13 or removed on 2018-11-08)
            accepted in their place.
        note: how the value converts, or why the key has no field.
        agree: when set, the runtime also reads the key from the job package, and
            this says what must agree between the package and the job file.
        agree_mpi_only: the runtime reads it from the job package only in an
            OpenMPI job, so ``agree`` is shown only for one.
        source: where Twister2 defines the key and its default.
    """

    name: str
    kind: Kind
    default: object
    use: Use
    field: str | None = None
    aliases: tuple[str, ...] = ()
    note: str = ""
    agree: str = ""
    agree_mpi_only: bool = False
    source: str = ""


class ComputeField(Record):
    """One field of a compute resource (an item of the compute-resources list).

    Attributes:
        name: the field name.
        kind: its type (Twister2 casts it: ``(Double)``, ``(Integer)``, ``(Boolean)``).
        required: whether Twister2 needs it.
        default: its default when optional.
    """

    name: str
    kind: Kind
    required: bool
    default: object = None

    @property
    def java_type(self) -> type | None:
        """The Python type SnakeYAML must load for Twister2's cast to succeed (None: any)."""
        return {Kind.NUMBER: float, Kind.INT: int}.get(self.kind)


COMPUTE_RESOURCE_FIELDS: dict[str, ComputeField] = {
    field.name: field
    for field in (
        ComputeField("cpu", Kind.NUMBER, True),
        ComputeField("ram", Kind.INT, True),
        ComputeField("disk", Kind.NUMBER, True),
        ComputeField("instances", Kind.INT, True),
        ComputeField("scalable", Kind.BOOL, False, False),
        ComputeField("workersPerPod", Kind.INT, False, 1),
    )
}
"""Fields of a compute resource (Twister2Job.loadComputeResources)."""
