"""The package configuration keys of a job's fault tolerance: checkpointing and ZooKeeper.

The runtime reads them from the package (DSC-SPIDAL/twister2 at c6844d2:
``twister2/checkpointing/src/java/edu/iu/dsc/tws/checkpointing/util/CheckpointingContext.java:23,37-40``,
``twister2/api/src/java/edu/iu/dsc/tws/api/config/FileSystemContext.java:24-25,36-46``,
``twister2/common/src/java/edu/iu/dsc/tws/common/zk/ZKContext.java:32-61``), while
t2gen's rules on restore and on the job master read ``spec.checkpointing`` and
``spec.zooKeeper``: :func:`t2gen.package.confagree.agreeing_keys` writes them into the
package, and ``--package`` checks a package's against the job file.
"""

from __future__ import annotations

from typing import Any

from t2gen.model import Job
from t2gen.twister2 import confkeys as k

__all__ = ["fault_tolerance_keys"]


def fault_tolerance_keys(job: Job) -> list[tuple[str, str, Any]]:
    """``(file, key, value)`` of the job's checkpointing and ZooKeeper settings that differ from Twister2's defaults.

    Checkpointing's two keys when it is on or stores elsewhere than
    ``mounted``; ZooKeeper's servers and root node when the job names servers.
    """
    checkpointing, zoo_keeper = job.spec.checkpointing, job.spec.zoo_keeper
    keys: list[tuple[str, str, Any]] = []
    if checkpointing.enabled or checkpointing.storage_type != "mounted":
        keys.append(("core.yaml", k.CHECKPOINTING_ENABLED, checkpointing.enabled))
        keys.append(
            ("core.yaml", k.PERSISTENT_STORAGE_TYPE, checkpointing.storage_type)
        )
    if zoo_keeper.server_addresses is not None:
        keys.append(("resource.yaml", k.ZOOKEEPER_SERVERS, zoo_keeper.server_addresses))
        keys.append(("resource.yaml", k.ZOOKEEPER_ROOT_NODE, zoo_keeper.root_node))
    return keys
