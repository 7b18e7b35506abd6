"""``plan --quota FILE``: ResourceQuotas, LimitRanges, Kueue and Volcano queues, read and checked.

The file is what ``kubectl get resourcequota,limitrange -o json`` prints (a
``List`` of both), optionally with Kueue ``ClusterQueue``/``LocalQueue``
objects (``kubectl get clusterqueue,localqueue -o json``) and Volcano
``Queue`` objects (``kubectl get queue.scheduling.volcano.sh -o json``) among
the items; several YAML documents or a list of lists also do. It is read by
the bounded reader of node and pod lists (:func:`t2gen.inputs.kubelist.load_document`,
at most :data:`MAX_QUOTA_BYTES`); every problem is reported at once with its
JSON path, as ``--quota: items[2].spec.hard.cpu: ...``. Quantities go through
:mod:`t2gen.plan.quantities` (cpu in millicores, everything else in whole units).

The API shapes read:

* ResourceQuota (core/v1): ``spec.hard``, ``spec.scopes``,
  ``spec.scopeSelector.matchExpressions``, ``status.hard``, ``status.used``.
* LimitRange (core/v1): ``spec.limits[]`` of ``type``, ``default``,
  ``defaultRequest``, ``min``, ``max``, ``maxLimitRequestRatio``.
* Kueue (kueue.x-k8s.io, ``apis/kueue/v1beta1/clusterqueue_types.go`` of
  kubernetes-sigs/kueue): ClusterQueue ``spec.resourceGroups[].coveredResources``
  and ``flavors[].resources[]`` (``nominalQuota``, ``borrowingLimit``,
  ``lendingLimit``), ``spec.cohort`` (``cohortName`` in v1beta2),
  ``status.flavorsReservation``/``flavorsUsage``; LocalQueue ``spec.clusterQueue``.
* Volcano (scheduling.volcano.sh, ``staging/src/volcano.sh/apis/pkg/apis/scheduling/v1beta1/types.go``
  of volcano-sh/volcano): Queue ``spec.capability``, ``spec.guarantee.resource``,
  ``spec.deserved``, ``status.state``, ``status.allocated``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from t2gen.errors import InputError, Problem
from t2gen.inputs.kubelist import json_path, plain_document, read_list, with_positions
from t2gen.plan.quantities import CPU, QUANTITY_HINT, quantity_amount
from t2gen.plan.quotarecords import (
    ClusterQueue,
    FlavorQuota,
    LimitRange,
    LimitRangeItem,
    LocalQueue,
    QuotaObjects,
    ResourceQuota,
    VolcanoQueue,
    base_resource,
)

__all__ = ["MAX_LIMITS", "MAX_QUOTA_BYTES", "parse_quota_objects", "read_quota"]

MAX_QUOTA_BYTES = 16 * 1024 * 1024
"""The largest ``--quota`` file read: a namespace's quotas and a cluster's queues are kilobytes."""

MAX_LIMITS = 10_000
"""The most ``spec.limits`` read in all the file's LimitRanges: a namespace's LimitRange has a handful (one
per type: Container, Pod, PersistentVolumeClaim). Each limit is applied to every container of
every StatefulSet, so 100,000 limits (a 16 MiB file holds them) cost 30 plain renders, over the
budget of ten (issue 41); 10,000 cost about three. More is refused before any is read."""

_COMMAND = "kubectl get resourcequota,limitrange -o json"


class _Reader:
    """Collects the problems of one file while its objects are read."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[Problem] = []
        self.limits = 0  # spec.limits read so far, in every LimitRange

    def fail(self, path: str, message: str) -> None:
        self.problems.append(Problem(self.source, 0, 0, message, path))

    def map(self, raw: object, path: str) -> Mapping[str, Any]:
        if raw is None:
            return {}
        if not isinstance(raw, Mapping):
            self.fail(path, f"must be a map, not {type(raw).__name__}")
            return {}
        return raw

    def amounts(self, raw: object, path: str, *, ratio: bool = False) -> dict[str, int]:
        out: dict[str, int] = {}
        for name, value in self.map(raw, path).items():
            key = str(name)
            unit = CPU if ratio or base_resource(key) == CPU else key
            try:
                amount = quantity_amount(unit, value)
            except ValueError as err:
                self.fail(
                    json_path(path, key),
                    f"{err}: {QUANTITY_HINT}",
                )
                continue
            if amount < 0:
                self.fail(
                    json_path(path, key),
                    f"{value} is negative; the API server refuses it",
                )
                continue
            out[key] = amount
        return out

    def optional(
        self, raw: Mapping[str, Any], key: str, unit: str, path: str
    ) -> int | None:
        if raw.get(key) is None:
            return None
        return self.amounts({unit: raw[key]}, path).get(unit)


def _name(item: Mapping[str, Any]) -> tuple[str, str]:
    metadata = item.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    return str(metadata.get("name") or ""), str(metadata.get("namespace") or "")


def _limit_range(r: _Reader, item: Mapping[str, Any], path: str) -> LimitRange:
    name, namespace = _name(item)
    entries = r.map(item.get("spec"), json_path(path, "spec")).get("limits") or []
    if not isinstance(entries, list):
        r.fail(json_path(path, "spec.limits"), "must be a list of limits")
        entries = []
    r.limits += len(entries)
    if r.limits > MAX_LIMITS:
        r.fail(
            json_path(path, "spec.limits"),
            f"{r.limits:,} limits in the LimitRanges so far; t2gen reads at most {MAX_LIMITS:,} "
            "(a namespace's LimitRange has one per type: Container, Pod, PersistentVolumeClaim)",
        )
        entries = []
    items = []
    for k, raw in enumerate(entries):
        at = json_path(path, f"spec.limits[{k}]")
        entry = r.map(raw, at)
        default = r.amounts(entry.get("default"), json_path(at, "default"))
        request = r.amounts(
            entry.get("defaultRequest"), json_path(at, "defaultRequest")
        )
        low = r.amounts(entry.get("min"), json_path(at, "min"))
        high = r.amounts(entry.get("max"), json_path(at, "max"))
        kind = str(entry.get("type") or "")
        if (
            kind == "Container"
        ):  # SetDefaults_LimitRangeItem, pkg/apis/core/v1/defaults.go
            default = {**high, **default}
            request = {**low, **default, **request}
        items.append(
            LimitRangeItem(
                kind,
                default,
                request,
                low,
                high,
                r.amounts(
                    entry.get("maxLimitRequestRatio"),
                    json_path(at, "maxLimitRequestRatio"),
                    ratio=True,
                ),
            )
        )
    return LimitRange(name, namespace, tuple(items))


def _resource_quota(r: _Reader, item: Mapping[str, Any], path: str) -> ResourceQuota:
    name, namespace = _name(item)
    spec = r.map(item.get("spec"), json_path(path, "spec"))
    status = r.map(item.get("status"), json_path(path, "status"))
    hard = r.amounts(status.get("hard"), json_path(path, "status.hard"))
    from_spec = not hard
    if from_spec:
        hard = r.amounts(spec.get("hard"), json_path(path, "spec.hard"))
    scopes: list[tuple[str, str, tuple[str, ...]]] = [
        (str(s), "Exists", ()) for s in spec.get("scopes") or () if isinstance(s, str)
    ]
    selector = r.map(spec.get("scopeSelector"), json_path(path, "spec.scopeSelector"))
    for k, raw in enumerate(selector.get("matchExpressions") or ()):
        expression = r.map(
            raw, json_path(path, f"spec.scopeSelector.matchExpressions[{k}]")
        )
        values = expression.get("values") or ()
        scopes.append(
            (
                str(expression.get("scopeName") or ""),
                str(expression.get("operator") or ""),
                tuple(str(v) for v in values) if isinstance(values, list) else (),
            )
        )
    used = r.amounts(status.get("used"), json_path(path, "status.used"))
    return ResourceQuota(name, namespace, hard, used, tuple(scopes), from_spec)


def _flavor(
    r: _Reader, raw: object, path: str, usage: Mapping[str, Mapping[str, int]]
) -> FlavorQuota:
    flavor = r.map(raw, path)
    name = str(flavor.get("name") or "")
    nominal: dict[str, int] = {}
    borrowing: dict[str, int | None] = {}
    lending: dict[str, int | None] = {}
    for k, quota in enumerate(flavor.get("resources") or ()):
        at = json_path(path, f"resources[{k}]")
        quota = r.map(quota, at)
        resource = str(quota.get("name") or "")
        nominal[resource] = (
            r.optional(quota, "nominalQuota", resource, json_path(at, "nominalQuota"))
            or 0
        )
        borrowing[resource] = r.optional(
            quota, "borrowingLimit", resource, json_path(at, "borrowingLimit")
        )
        lending[resource] = r.optional(
            quota, "lendingLimit", resource, json_path(at, "lendingLimit")
        )
    return FlavorQuota(name, nominal, borrowing, lending, usage.get(name, {}))


def _cluster_queue(r: _Reader, item: Mapping[str, Any], path: str) -> ClusterQueue:
    name, _ = _name(item)
    spec = r.map(item.get("spec"), json_path(path, "spec"))
    status = r.map(item.get("status"), json_path(path, "status"))
    key = "flavorsReservation" if status.get("flavorsReservation") else "flavorsUsage"
    usage: dict[str, Mapping[str, int]] = {}
    for k, raw in enumerate(status.get(key) or ()):
        at = json_path(path, f"status.{key}[{k}]")
        flavor = r.map(raw, at)
        totals = {
            str(x.get("name")): x.get("total", 0)
            for x in flavor.get("resources") or ()
            if isinstance(x, Mapping)
        }
        usage[str(flavor.get("name") or "")] = r.amounts(
            totals, json_path(at, "resources")
        )
    groups = []
    for k, raw in enumerate(spec.get("resourceGroups") or ()):
        at = json_path(path, f"spec.resourceGroups[{k}]")
        group = r.map(raw, at)
        covered = tuple(str(x) for x in group.get("coveredResources") or ())
        flavors = tuple(
            _flavor(r, f, json_path(at, f"flavors[{j}]"), usage)
            for j, f in enumerate(group.get("flavors") or ())
        )
        groups.append((covered, flavors))
    cohort = spec.get("cohort") or spec.get("cohortName")
    return ClusterQueue(name, str(cohort) if cohort else None, tuple(groups))


def _volcano_queue(r: _Reader, item: Mapping[str, Any], path: str) -> VolcanoQueue:
    name, _ = _name(item)
    spec = r.map(item.get("spec"), json_path(path, "spec"))
    status = r.map(item.get("status"), json_path(path, "status"))
    guarantee = r.map(spec.get("guarantee"), json_path(path, "spec.guarantee"))
    return VolcanoQueue(
        name,
        r.amounts(spec.get("capability"), json_path(path, "spec.capability")),
        r.amounts(
            guarantee.get("resource"), json_path(path, "spec.guarantee.resource")
        ),
        r.amounts(spec.get("deserved"), json_path(path, "spec.deserved")),
        r.amounts(status.get("allocated"), json_path(path, "status.allocated")),
        str(status.get("state") or "Open"),
    )


def _flatten(document: object, path: str, out: list[tuple[str, Any]]) -> None:
    """The objects of a List (lists nest when several kubectl outputs are joined)."""
    if isinstance(document, Mapping) and (
        str(document.get("kind") or "").endswith("List")
        or ("items" in document and "kind" not in document)
    ):
        items = document.get("items")
        if isinstance(items, list):
            for k, item in enumerate(items):
                _flatten(item, json_path(path, f"items[{k}]"), out)
            return
    out.append((path, document))


def parse_quota_objects(document: object, source: str = "--quota") -> QuotaObjects:
    """Read the quota objects of ``kubectl get resourcequota,limitrange -o json`` (and queues).

    Args:
        document: the parsed JSON or YAML.
        source: how the user named the file, for messages.

    Returns:
        The objects by kind.

    Raises:
        InputError: not a list of those objects, an object of another kind,
            or a malformed field (a quantity that is not one, a name missing);
            every problem at once.
    """
    r = _Reader(source)
    found: list[tuple[str, Any]] = []
    _flatten(document, "", found)
    quotas, ranges, cqs, lqs, vqs = [], [], [], [], []
    for path, item in found:
        where = path or "(the object)"
        if not isinstance(item, Mapping):
            r.fail(where, f"must be an object (a map), from `{_COMMAND}`")
            continue
        kind, group = str(item.get("kind") or ""), str(item.get("apiVersion") or "")
        name, namespace = _name(item)
        if not name:
            r.fail(
                json_path(path, "metadata.name"), f"a {kind or 'object'} needs a name"
            )
            continue
        namespaced = kind in ("ResourceQuota", "LimitRange", "LocalQueue")
        if namespaced and not namespace:
            r.fail(
                json_path(path, "metadata.namespace"),
                f"{kind} {name} needs its namespace, as kubectl prints it",
            )
            continue
        if kind == "ResourceQuota":
            quotas.append(_resource_quota(r, item, path))
        elif kind == "LimitRange":
            ranges.append(_limit_range(r, item, path))
        elif kind == "ClusterQueue" and group.startswith("kueue.x-k8s.io/"):
            cqs.append(_cluster_queue(r, item, path))
        elif kind == "LocalQueue" and group.startswith("kueue.x-k8s.io/"):
            spec = r.map(item.get("spec"), json_path(path, "spec"))
            lqs.append(LocalQueue(name, namespace, str(spec.get("clusterQueue") or "")))
        elif kind == "Queue" and group.startswith("scheduling.volcano.sh/"):
            vqs.append(_volcano_queue(r, item, path))
        else:
            r.fail(
                where,
                f"is a {kind or 'map without kind'} ({group or 'no apiVersion'}): pass ResourceQuotas "
                f"and LimitRanges (`{_COMMAND}`), Kueue ClusterQueues and LocalQueues, or Volcano Queues",
            )
    if not found:
        r.fail("items", f"has no objects: pass the output of `{_COMMAND}`")
    if r.problems:
        raise InputError(problems=r.problems)
    return QuotaObjects(
        tuple(quotas), tuple(ranges), tuple(cqs), tuple(lqs), tuple(vqs)
    )


def read_quota(path: str) -> QuotaObjects:
    """Read ``--quota FILE`` (``-``: standard input), bounded by :data:`MAX_QUOTA_BYTES`.

    Raises:
        ConfigError: missing, unreadable, too large or not UTF-8.
        InputError: see :func:`parse_quota_objects`.
    """
    raw = read_list(
        path,
        limit=MAX_QUOTA_BYTES,
        advice=f"a namespace's quotas and limit ranges are kilobytes: pass `{_COMMAND}`",
    )
    try:
        return parse_quota_objects(plain_document(raw, path), path)
    except InputError as err:
        raise with_positions(err, path) from None
