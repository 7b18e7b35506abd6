"""Persistent storage: claim settings only where there is a claim."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.jobfile.loader import SourceDoc
from t2gen.jobfile.rules._base import as_dict, as_quantity, problem, rule
from t2gen.problems import Problem


@rule(
    "storage-class-unused",
    fields=(
        "spec.storage.persistent.perWorker",
        "spec.storage.persistent.storageClassName",
    ),
)
def check_storage(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``storageClassName`` is set only when ``perWorker`` is above 0.

    The PersistentVolumeClaim exists only when the workers have persistent
    storage; a storage class without it would be ignored, which is a mistake,
    not a silent no-op.

    Sources: Kubernetes, "Persistent Volumes"
    (https://kubernetes.io/docs/concepts/storage/persistent-volumes/).
    """
    persistent = as_dict(
        as_dict(as_dict(data.get("spec")).get("storage")).get("persistent")
    )
    per_worker = as_quantity(persistent.get("perWorker"))
    if (
        per_worker is not None
        and per_worker.is_zero()
        and "storageClassName" in persistent
    ):
        yield problem(
            doc,
            ("spec", "storage", "persistent", "storageClassName"),
            "storageClassName is set but perWorker is 0, so no PersistentVolumeClaim is made; "
            "set perWorker (e.g. 1Gi) or remove storageClassName",
            key=True,
        )
