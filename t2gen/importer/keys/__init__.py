"""The Twister2 configuration keys that matter on Kubernetes, as data.

Every key here is one the Twister2 0.8 Kubernetes launcher or runtime reads
(cylondata/twister2, ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/
schedulers/k8s/KubernetesContext.java``, ``twister2/api/src/java/edu/iu/dsc/tws/api/
config/SchedulerContext.java``, ``twister2/master/src/java/edu/iu/dsc/tws/master/
JobMasterContext.java``), with its code default, the legacy names older
configuration directories and the Twister2 design documents still use, and the
t2gen job-file field it becomes (or why it has none). The shipped files are
``twister2/config/src/yaml/conf/{common,kubernetes}/*.yaml``; the table is split
the same way, one module per file a user finds the key in: :mod:`.resource`,
:mod:`.network`, :mod:`.core` (with data and checkpoint), and :mod:`.legacy`
for the pre-0.8 worker keys. The types are in :mod:`.model`.
"""

from __future__ import annotations

import difflib

from t2gen.importer.keys.core import CORE_KEYS
from t2gen.importer.keys.legacy import LEGACY_WORKER_KEYS
from t2gen.importer.keys.model import (
    COMPUTE_RESOURCE_FIELDS,
    JVM_MEMORY_FRACTION,
    KUBERNETES_PREFIXES,
    MPI_CHANNEL,
    ComputeField,
    Key,
    Kind,
    Use,
)
from t2gen.importer.keys.network import NETWORK_KEYS
from t2gen.importer.keys.resource import RESOURCE_KEYS

__all__ = [
    "COMPUTE_RESOURCE_FIELDS",
    "JVM_MEMORY_FRACTION",
    "KEYS",
    "KUBERNETES_PREFIXES",
    "LEGACY_WORKER_KEYS",
    "MPI_CHANNEL",
    "ComputeField",
    "Key",
    "Kind",
    "Use",
    "is_kubernetes_key",
    "lookup",
    "suggest",
]

KEYS: tuple[Key, ...] = RESOURCE_KEYS + NETWORK_KEYS + CORE_KEYS
"""Every Kubernetes-relevant Twister2 0.8 key, file by file (resource, network, core)."""

_BY_NAME: dict[str, Key] = {}
for _key in KEYS:
    _BY_NAME[_key.name] = _key
    for _alias in _key.aliases:
        _BY_NAME[_alias] = _key
_BY_NAME.update(LEGACY_WORKER_KEYS)


def lookup(name: str) -> Key | None:
    """Return the key a configuration name stands for, by its 0.8 name or a legacy alias.

    Args:
        name: a top-level key of a Twister2 configuration file.

    Returns:
        The key, or None when it is not Kubernetes-relevant (or unknown).
    """
    return _BY_NAME.get(name)


def is_kubernetes_key(name: str) -> bool:
    """Whether a name looks like a Kubernetes launcher key (one of :data:`KUBERNETES_PREFIXES`)."""
    return name.startswith(KUBERNETES_PREFIXES)


def suggest(name: str) -> str | None:
    """The known key closest to ``name`` (a likely typo), or None."""
    matches = difflib.get_close_matches(name, list(_BY_NAME), n=1, cutoff=0.8)
    return matches[0] if matches else None
