"""Storage: the workers' persistent volume claim, checkpointing and ZooKeeper.

Workers mount ``/persistent`` only when the job package's
``twister2.resource.persistent.volume.per.worker`` is above 0; the claim's
storage class and access mode mean nothing without it. Checkpoints go to that
claim (``twister2.persistent.storage.type: mounted``) or to HDFS, and a
restore (``twister2.checkpointing.restore.job``) reads them back; ZooKeeper's
servers and root node say whether the job master's znodes outlive a run.
"""

from __future__ import annotations

from t2gen.importer.state import Conversion
from t2gen.inputs.yaml import JsonPath

__all__ = ["convert_checkpointing", "convert_storage"]


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


_STORE_TYPES = ("mounted", "hdfs")
"""The checkpoint stores the job file names (``CheckpointingContext.getCheckpointingStoreClass``)."""


def convert_checkpointing(conv: Conversion) -> None:
    """spec.checkpointing and spec.zooKeeper: checkpoints, a restore, and the ZooKeeper servers."""
    base: JsonPath = ("spec", "checkpointing")
    conv.field("twister2.checkpointing.enable", (*base, "enabled"))
    conv.field("twister2.checkpointing.restore.job", (*base, "restore"))
    store = conv.get("twister2.persistent.storage.type")
    if store is not None:
        if str(store[1]).lower() in _STORE_TYPES:
            conv.field(
                "twister2.persistent.storage.type",
                (*base, "storageType"),
                str(store[1]).lower(),
            )
        else:
            conv.error(
                store[0].at(),
                store[0].name,
                f"{store[1]!r} is not a checkpoint store t2gen knows: Twister2 reads mounted "
                "(the claim at /persistent) or hdfs (CheckpointingContext.java:42-58)",
            )
    zk: JsonPath = ("spec", "zooKeeper")
    root = conv.get("twister2.resource.zookeeper.root.node.path")
    if conv.field(
        "twister2.resource.zookeeper.server.addresses", (*zk, "serverAddresses")
    ):
        conv.field("twister2.resource.zookeeper.root.node.path", (*zk, "rootNode"))
    elif root is not None:
        conv.skip(
            root[0],
            "used only with ZooKeeper, and twister2.resource.zookeeper.server.addresses is not set",
        )
