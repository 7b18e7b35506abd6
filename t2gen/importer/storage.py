"""Storage: the workers' persistent volume claim and its storage class and access mode.

Workers mount ``/persistent`` only when the job package's
``twister2.resource.persistent.volume.per.worker`` is above 0; the claim's
storage class and access mode mean nothing without it.
"""

from __future__ import annotations

from t2gen.importer.state import Conversion
from t2gen.jobfile.yaml import JsonPath

__all__ = ["convert_storage"]


def convert_storage(conv: Conversion) -> None:
    """spec.storage.persistent: a claim per worker when its size (GB) is above 0."""
    base: JsonPath = ("spec", "storage", "persistent")
    claim = conv.disk_field(
        "twister2.resource.persistent.volume.per.worker", (*base, "perWorker")
    )
    for name, where in (
        ("twister2.resource.kubernetes.persistent.storage.class", "storageClassName"),
        ("twister2.resource.kubernetes.storage.access.mode", "accessMode"),
    ):
        got = conv.get(name)
        if got is None:
            continue
        if claim:
            conv.field(name, (*base, where))
        else:
            conv.skip(
                got[0],
                "used only with a persistent volume, and twister2.resource.persistent.volume.per.worker is 0",
            )
