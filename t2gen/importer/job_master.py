"""The job master: in the cluster or in the client, its resources and port.

Twister2 runs the job master's JVM heap at ``twister2.job.master.ram`` MB and
requests ram + 128Mi (the key table, :mod:`t2gen.importer.keys.core`); t2gen
does the same with ``jobMaster.memory`` as the ram, so the import keeps it as
it is: heap and request alike.
"""

from __future__ import annotations

from t2gen.importer.state import Conversion, named
from t2gen.importer.values import cpu, mib

__all__ = ["convert_job_master"]


def convert_job_master(conv: Conversion) -> None:
    """spec.jobMaster: where the job master runs, its resources and port."""
    in_client = conv.get("twister2.job.master.runs.in.client")
    address = conv.get("twister2.job.master.provided.ip")
    if in_client is not None and in_client[1]:
        conv.put(
            ("spec", "jobMaster", "enabled"),
            False,
            named(in_client[0]),
            in_client[0].at(),
            "runs in the client",
        )
        if address is not None and address[1]:
            conv.field(
                "twister2.job.master.provided.ip",
                ("spec", "jobMaster", "address"),
            )
        else:
            conv.error(
                in_client[0].at(),
                in_client[0].name,
                "the job master runs in the client, so the workers need its address: set twister2.job.master.provided.ip",
            )
        return
    if address is not None and address[1]:
        conv.skip(address[0], "ignored: the job master runs in the cluster")
    cores = conv.get("twister2.job.master.cpu")
    if cores is not None:
        conv.field(
            "twister2.job.master.cpu", ("spec", "jobMaster", "cpu"), cpu(cores[1])
        )
    ram = conv.get("twister2.job.master.ram")
    if ram is not None:
        setting, megabytes = ram
        conv.put(
            ("spec", "jobMaster", "memory"),
            mib(megabytes),
            named(setting),
            setting.at(),
            "the heap; the container requests it + 128Mi, as Twister2",
        )
    conv.field("twister2.job.master.port", ("spec", "jobMaster", "port"))
    conv.disk_field(
        "twister2.job.master.volatile.volume.size",
        ("spec", "jobMaster", "volatileDisk"),
    )
    conv.disk_field(
        "twister2.job.master.persistent.volume.size",
        ("spec", "jobMaster", "persistentDisk"),
    )
