"""Checks of storage objects: PersistentVolumeClaims."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.checks.base import Check, Finding, as_dict, check, quantity_findings
from t2gen.checks.stream import Stream

__all__ = ["PVC_CHECKS"]


@check("pvc-storage-quantity")
def pvc_storage_quantity(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """A claim's ``spec.resources.requests.storage`` is a valid, canonical quantity.

    Twister2's persistent volume is one claim shared by the job's pods.
    Source: https://kubernetes.io/docs/concepts/storage/persistent-volumes/#resources
    """
    resources = as_dict(as_dict(obj.get("spec")).get("resources"))
    storage = as_dict(resources.get("requests")).get("storage")
    if storage is not None:
        yield from quantity_findings("spec.resources.requests.storage", storage)


PVC_CHECKS: tuple[Check, ...] = (pvc_storage_quantity,)
"""Checks of PersistentVolumeClaims."""
