"""The records a pod list is decoded into, and those records into :class:`ExistingPod` records.

The pod side of :mod:`t2gen.plan.typedrecords`: msgspec ``Struct`` types
(https://jcristharif.com/msgspec/structs.html) that name only the fields
:func:`t2gen.plan.pods.parse_pods` reads, and :func:`typed_pods` and
:class:`PodReader`, which give the same records as that function or leave the
list (or the item) to it, whose messages are the contract.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, Struct, UnsetType

from t2gen.inputs.kubelist import MAX_LIST_ITEMS
from t2gen.plan.filters.interpod import parse_affinity_terms
from t2gen.plan.pods import ExistingPod
from t2gen.plan.podspec import pod_resources
from t2gen.plan.quantities import Resources
from t2gen.plan.typedrecords import Untyped, list_of

__all__ = ["POD_DECODER", "POD_ITEM_DECODER", "PodReader", "typed_pods"]


# The records name only what parse_pods reads (pods.py, podspec.py); UNSET keeps
# "absent" apart from null, as the plain reader's dicts do.
class _Meta(Struct, omit_defaults=True):
    name: Any = UNSET
    namespace: Any = UNSET
    labels: dict[str, str] | UnsetType | None = UNSET


class _Container(Struct, omit_defaults=True):
    resources: Any = UNSET
    restartPolicy: Any = UNSET


class _PodSpec(Struct, omit_defaults=True):
    nodeName: Any = UNSET
    containers: list[_Container] | UnsetType | None = UNSET
    initContainers: list[_Container] | UnsetType | None = UNSET
    resources: Any = UNSET
    overhead: Any = UNSET
    affinity: Any = UNSET


class _PodStatus(Struct, omit_defaults=True):
    phase: Any = UNSET


class _Pod(Struct, omit_defaults=True):
    kind: Any = UNSET
    metadata: _Meta | UnsetType | None = UNSET
    spec: _PodSpec | UnsetType | None = UNSET
    status: _PodStatus | UnsetType | None = UNSET


class _PodList(Struct, omit_defaults=True):
    kind: Any = UNSET
    items: list[_Pod] | UnsetType | None = UNSET
    metadata: _Meta | UnsetType | None = UNSET
    spec: _PodSpec | UnsetType | None = UNSET
    status: _PodStatus | UnsetType | None = UNSET


POD_DECODER = msgspec.json.Decoder(_PodList)
POD_ITEM_DECODER = msgspec.json.Decoder(_Pod)
_ENCODER = msgspec.json.Encoder()
_DONE = ("Succeeded", "Failed")


class _Requests(Struct, omit_defaults=True):
    """The parts of a pod spec :func:`pod_resources` reads (equal parts, equal requests)."""

    containers: Any = UNSET
    initContainers: Any = UNSET
    resources: Any = UNSET
    overhead: Any = UNSET


class PodReader:
    """Turns typed pod items into :class:`ExistingPod` records, one at a time.

    Pods of equal requests share one parse. :meth:`pod` raises :class:`Untyped`
    for anything :func:`~t2gen.plan.pods.parse_pods` would report as a problem.
    """

    def __init__(self) -> None:
        self.resources: dict[bytes, tuple[Resources, int, bool]] = {}

    def pod(self, item: Any) -> ExistingPod | None:
        """The pod of one typed item (``POD_ITEM_DECODER``'s record); None if it holds no node resources.

        Raises:
            Untyped: the item is not a well-formed Pod.
        """
        if item.kind is not UNSET and item.kind != "Pod":
            raise Untyped
        spec = item.spec
        if not spec:
            return None
        phase = item.status.phase if item.status else None
        node_name = spec.nodeName
        if type(node_name) is not str or not node_name or phase in _DONE:
            return None
        needs = _Requests(
            spec.containers, spec.initContainers, spec.resources, spec.overhead
        )
        try:
            key = _ENCODER.encode(needs)
        except (TypeError, ValueError, OverflowError):
            raise Untyped from None
        found = self.resources.get(key)
        if found is None:
            try:
                found = self.resources[key] = pod_resources(msgspec.to_builtins(needs))
            except ValueError:
                raise Untyped from None
        metadata = item.metadata or _Meta()
        return ExistingPod(
            namespace=str(metadata.namespace or "default"),
            name=str(metadata.name or ""),
            node_name=node_name,
            labels=metadata.labels or {},
            requests=found[0],
            exclusive_cores=found[1],
            anti_affinity=(
                parse_affinity_terms({"affinity": spec.affinity}, "podAntiAffinity")
                if spec.affinity
                else ()
            ),
        )


def typed_pods(document: Any) -> tuple[ExistingPod, ...] | None:
    """The bound pods of a well-formed typed list, or None where :func:`parse_pods` must judge."""
    items = list_of(document, "Pod")
    if items is None or len(items) > MAX_LIST_ITEMS:
        return None
    reader = PodReader()
    out = []
    try:
        for item in items:
            pod = reader.pod(item)
            if pod is not None:
                out.append(pod)
    except Untyped:
        return None
    return tuple(out)
