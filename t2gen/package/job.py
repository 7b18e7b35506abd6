"""The job description ``<job>.job``: the ``tws.proto.job.Job`` message ``Twister2Job.serialize()`` gives.

Every value is the one Twister2's Java client puts there for the same job
(DSC-SPIDAL/twister2 at c6844d2; ``T2J`` is
``twister2/api/src/java/edu/iu/dsc/tws/api/Twister2Job.java``, ``RA``
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/core/ResourceAllocator.java``):

* ``config``: always set, possibly empty (``T2J:100-107``); each
  ``spec.jobConfig`` entry in ``config_byte_map`` as Kryo bytes
  (:mod:`t2gen.twister2.kryo`).
* ``job_name`` (``T2J:108``) and ``job_id`` (``T2J:111-114``): both
  ``metadata.name``, the ``JOB_ID`` every pod gets. ``twister2 submit`` makes
  the ID ``<name>-<user>-<time>`` (``JobIDUtils.generateJobID``) and names the
  Kubernetes objects after it; t2gen's objects are named ``metadata.name``, so
  the ID is that name, as a ``main()`` calling ``setJobID(name)`` gets.
* ``worker_class_name`` (``T2J:116``), ``driver_class_name`` only when set
  (``T2J:118-121``).
* ``number_of_workers``: the sum of instances x workers per pod (``T2J:123,261-267``).
* ``compute_resource``: one per worker group in the runtime's order, the one
  ``scalable`` group last (``T2J:125-127,137-168``, the job-file rule
  ``scalable-group-last`` keeps the job file in that order), each with
  ``cpu`` (cores, a double), ``ram_mega_bytes`` (the builder's ``int``,
  ``T2J:380-388``; t2gen's memory in whole MiB, as the launcher requests
  ``<ram>Mi``), ``disk_giga_bytes`` (volatile disk in GiB, the launcher's
  ``<disk>Gi``), ``instances`` (pods), ``workers_per_pod``, ``scalable``
  (always set, ``T2J:385``) and ``index`` (``T2J:387``).
* ``job_format``: ``JAR`` and the jar's file name without a directory
  (``RA:190-212``).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from t2gen._generated import twister2_job_pb2 as pb
from t2gen.model import Job, WorkerGroup
from t2gen.twister2 import kryo

__all__ = [
    "ComputeResource",
    "compute_resources",
    "describe",
    "job_message",
    "parse_job_message",
]

ComputeResource = dict[str, Any]
"""A compute resource as plain data: cpu, ram_mega_bytes, disk_giga_bytes, instances, workers_per_pod, scalable, index."""

_GIB = Decimal(2**30)


def compute_resource(group: WorkerGroup, index: int) -> ComputeResource:
    """One worker group as the compute resource the Java builder makes (``T2J:374-392``).

    Args:
        group: the worker group.
        index: its index in the runtime's order.

    Returns:
        The fields of ``ComputeResource``: cpu cores (float), ram MB (int,
        whole MiB rounded down), disk GB (float, GiB), instances (pods),
        workers per pod, scalable, index.
    """
    return {
        "cpu": float(group.cpu.value),
        "ram_mega_bytes": int(group.memory.mebibytes()),
        "disk_giga_bytes": float(group.volatile_disk.value / _GIB),
        "instances": group.replicas,
        "workers_per_pod": group.per_pod,
        "scalable": group.scalable,
        "index": index,
    }


def compute_resources(job: Job) -> list[ComputeResource]:
    """The job's compute resources in the runtime's order (``spec.workers`` order: scalable last)."""
    return [compute_resource(group, i) for i, group in enumerate(job.spec.workers)]


def job_message(job: Job, jar_name: str) -> pb.Job:
    """The ``tws.proto.job.Job`` of ``job``, as ``Twister2Job.serialize()`` and ``prepareJobFiles`` build it.

    Args:
        job: the validated job; ``spec.workerClass`` must be set.
        jar_name: the jar's file name in the package (no directory).

    Returns:
        The message; ``SerializeToString(deterministic=True)`` gives the file.

    Raises:
        ValueError: the job has no worker class (the command checks it first).
    """
    if not job.spec.worker_class:
        raise ValueError("spec.workerClass is not set")
    message = pb.Job()
    message.config.SetInParent()  # T2J:107: set even when JobConfig is empty
    for key, value in job.spec.job_config:
        plain: kryo.Value = list(value) if isinstance(value, tuple) else value
        message.config.config_byte_map[key] = kryo.encode(plain)
    message.job_name = job.name
    message.job_id = job.name
    message.worker_class_name = job.spec.worker_class
    if job.spec.driver_class:
        message.driver_class_name = job.spec.driver_class
    resources = compute_resources(job)
    message.number_of_workers = sum(
        r["instances"] * r["workers_per_pod"] for r in resources
    )
    for resource in resources:
        message.compute_resource.add(**resource)
    message.job_format.type = pb.JAR
    message.job_format.job_file = jar_name
    return message


def parse_job_message(data: bytes) -> pb.Job:
    """Parse ``<job>.job`` bytes as Twister2 does (``JobUtils.readJobFile``).

    Raises:
        google.protobuf.message.DecodeError: the bytes are not a Job message.
    """
    message = pb.Job()
    message.ParseFromString(data)
    return message


def _config_text(message: pb.Job) -> list[str]:
    """The job configuration entries, decoded where t2gen reads the Kryo class."""
    lines = []
    for key in sorted(message.config.config_byte_map):
        raw = message.config.config_byte_map[key]
        try:
            value = kryo.decode(raw)
            shown = f"{value!r} ({kryo.java_type(value)})"
        except kryo.KryoError as err:
            shown = f"<{len(raw)} Kryo bytes: {err}>"
        lines.append(f"    {key}: {shown}")
    return lines


def describe(message: pb.Job) -> str:
    """The message as text, one field a line, for the golden packages and ``--package`` errors."""
    from google.protobuf import text_format

    plain = pb.Job()
    plain.CopyFrom(message)
    plain.config.ClearField("config_byte_map")
    text = text_format.MessageToString(plain)
    extra = _config_text(message)
    if extra:
        text += "# config.config_byte_map, Kryo-decoded:\n" + "\n".join(extra) + "\n"
    return text
