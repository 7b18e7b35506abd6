"""Checks of a pod's affinity: node selector requirements and pod (anti-)affinity terms."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from t2gen.checks.base import (
    JOB_LABEL,
    WORKER_POD_LABEL,
    Finding,
    as_dict,
    as_list,
    check,
)
from t2gen.checks.stream import MAX_NAMED, Stream, frozen, matches, namespace_of
from t2gen.twister2.names import TASK_LABEL

__all__ = ["node_affinity", "pod_affinity"]

_INTEGER = r"[0-9]{1,63}"
"""A ``Gt``/``Lt`` value: a non-negative integer in digits, which is also a valid label value."""
_NODE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_POD_SELECTOR_OPERATORS = {"In", "NotIn", "Exists", "DoesNotExist"}
_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def _node_requirement(path: str, expression: dict[str, Any]) -> Iterator[Finding]:
    """Findings for one NodeSelectorRequirement: operator arity and string values."""
    operator = expression.get("operator")
    values = as_list(expression.get("values"))
    count = len(values)
    if operator in ("In", "NotIn") and count == 0:
        yield path, f"operator {operator} needs at least one value"
    elif operator in ("Exists", "DoesNotExist") and count:
        yield path, f"operator {operator} takes no values"
    elif operator in ("Gt", "Lt"):
        if count != 1:
            yield path, f"operator {operator} needs exactly one value, got {count}"
        elif not (isinstance(values[0], str) and re.fullmatch(_INTEGER, values[0])):
            yield (
                path,
                f"operator {operator} needs a non-negative integer in digits only (a valid "
                f"label value), got {values[0]!r}",
            )
    elif operator not in _NODE_OPERATORS:
        yield path, f"unknown operator {operator!r}"
    for index, value in enumerate(values):
        if not isinstance(value, str):
            yield f"{path}.values[{index}]", f"{value!r} is not a string"


@check("node-affinity", "pod")
def node_affinity(
    path: str, pod: dict[str, Any], owner: dict[str, Any], stream: Stream
) -> Iterator[Finding]:
    """Node affinity expressions have the values their operator needs; preferences weigh 1-100.

    ``In``/``NotIn`` need at least one value, ``Exists``/``DoesNotExist`` none,
    ``Gt``/``Lt`` exactly one integer written as a string in digits only (the
    value must also be a valid label value, so no sign); values are strings.
    The API server rejects anything else. Source: kubernetes/kubernetes
    ``pkg/apis/core/validation`` (``ValidateNodeSelectorRequirement``,
    ``ValidatePreferredSchedulingTerms``);
    https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#node-affinity
    """
    path = f"{path}.affinity"
    node = as_dict(as_dict(pod.get("affinity")).get("nodeAffinity"))
    required = as_dict(node.get(_REQUIRED))
    for tindex, term in enumerate(as_list(required.get("nodeSelectorTerms"))):
        for eindex, expression in enumerate(
            as_list(as_dict(term).get("matchExpressions"))
        ):
            epath = f"{path}.nodeAffinity.required.nodeSelectorTerms[{tindex}].matchExpressions[{eindex}]"
            yield from _node_requirement(epath, as_dict(expression))
    for pindex, preferred in enumerate(as_list(node.get(_PREFERRED))):
        preferred = as_dict(preferred)
        weight = preferred.get("weight")
        if not isinstance(weight, int) or not 1 <= weight <= 100:
            yield (
                f"{path}.nodeAffinity.preferred[{pindex}].weight",
                f"{weight!r} is not 1-100",
            )
        for eindex, expression in enumerate(
            as_list(as_dict(preferred.get("preference")).get("matchExpressions"))
        ):
            epath = f"{path}.nodeAffinity.preferred[{pindex}].preference.matchExpressions[{eindex}]"
            yield from _node_requirement(epath, as_dict(expression))


@check("pod-affinity", "pod", reads="stream")
def pod_affinity(
    path: str, pod: dict[str, Any], owner: dict[str, Any], stream: Stream
) -> Iterator[Finding]:
    """Required pod (anti-)affinity terms have a ``topologyKey`` and selector operators; a job's select its workers.

    Each required term of ``podAffinity`` and ``podAntiAffinity`` needs a
    non-empty ``topologyKey`` (the node label to group by) and label-selector
    operators only (``In``, ``NotIn``, ``Exists``, ``DoesNotExist``: no ``Gt``).
    Source: kubernetes/kubernetes ``pkg/apis/core/validation``
    (``validatePodAffinityTerm``);
    https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#inter-pod-affinity-and-anti-affinity

    For a t2gen job (the workload carries the job label), each term's selector
    must select every worker pod of the job and no other pod of the stream:
    uniform worker mapping (Twister2 ``kubernetes.worker.mapping.uniform``)
    concerns the job's workers only, and an empty selector would select every
    pod of the namespace (docs/reference.md, "Binding and placement"). A term of the task
    topology (its selector names the ``t2-task`` label; docs/gang-scheduling.md)
    must instead select some pod of the stream, and only pods of the job.
    A term names at most ten workloads of each kind of finding and counts the rest.
    """
    affinity = as_dict(pod.get("affinity"))
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = as_list(as_dict(affinity.get(kind)).get(_REQUIRED))
        for tindex, term in enumerate(terms):
            term = as_dict(term)
            tpath = f"{path}.affinity.{kind}.required[{tindex}]"
            if not term.get("topologyKey"):
                yield (
                    f"{tpath}.topologyKey",
                    "empty; the scheduler needs a node label to group by",
                )
            selector = as_dict(term.get("labelSelector"))
            for eindex, expression in enumerate(
                as_list(selector.get("matchExpressions"))
            ):
                operator = as_dict(expression).get("operator")
                if operator not in _POD_SELECTOR_OPERATORS:
                    yield (
                        f"{tpath}.labelSelector.matchExpressions[{eindex}]",
                        (
                            f"operator {operator!r} is not allowed in a label selector (In, NotIn, Exists, DoesNotExist)"
                        ),
                    )
            yield from _job_selector(tpath, selector, owner, stream)


def _job_selector(
    path: str,
    selector: dict[str, Any],
    owner: dict[str, Any],
    stream: Stream,
) -> Iterator[Finding]:
    """For a t2gen job: the term selects every worker pod of the job and no other pod of the stream."""
    labels = as_dict(as_dict(owner.get("metadata")).get("labels"))
    job = labels.get(JOB_LABEL)
    if job is None:
        return
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        yield (
            f"{path}.labelSelector",
            "empty: it would select every pod in the namespace",
        )
        return
    namespace = namespace_of(owner)
    if isinstance(job, str):
        # Once per namespace, job and selector: every worker StatefulSet of a
        # job carries the same term, which would otherwise read every worker
        # workload of the job for each of them (a stream of 4,000 took 29 s).
        messages = stream.memo(
            ("pod-affinity-selector", namespace, job, frozen(selector)),
            lambda: list(_selector_messages(selector, job, namespace, stream)),
        )
    else:
        messages = list(_selector_messages(selector, job, namespace, stream))
    for message in messages:
        yield f"{path}.labelSelector", message


def _selector_messages(
    selector: dict[str, Any], job: Any, namespace: str, stream: Stream
) -> Iterator[str]:
    """What is wrong with the pods a non-empty term selector of ``job`` selects (:func:`_job_selector`)."""
    keys = set(as_dict(selector.get("matchLabels"))) | {
        as_dict(e).get("key") for e in as_list(selector.get("matchExpressions"))
    }
    if TASK_LABEL in keys:
        yield from _task_selector(selector, job, namespace, stream)
        return
    workers = {WORKER_POD_LABEL: job, JOB_LABEL: job}
    missed = [
        workload
        for workload, pod_labels in stream.labelled(namespace, workers)
        if not matches(selector, pod_labels)
    ]
    for workload in missed[:MAX_NAMED]:
        name = as_dict(workload.get("metadata")).get("name")
        yield f"does not select the worker pods of {name} (same job {job})"
    if len(missed) > MAX_NAMED:
        more = len(missed) - MAX_NAMED
        yield f"does not select the worker pods of {more:,} more workloads (same job {job})"
    others = [
        workload
        for workload, pod_labels in stream.selected(namespace, selector)
        if not (
            pod_labels.get(WORKER_POD_LABEL) == job and pod_labels.get(JOB_LABEL) == job
        )
    ]
    yield from _also_selects(others, f"which are not workers of job {job}")


def _also_selects(others: list[dict[str, Any]], which: str) -> Iterator[str]:
    """A message per workload a selector should not select: the first :data:`MAX_NAMED` by name, then a count."""
    for workload in others[:MAX_NAMED]:
        name = as_dict(workload.get("metadata")).get("name")
        yield f"also selects the pods of {workload.get('kind')} {name}, {which}"
    if len(others) > MAX_NAMED:
        yield f"also selects the pods of {len(others) - MAX_NAMED:,} more workloads, {which}"


def _task_selector(
    selector: dict[str, Any], job: Any, namespace: str, stream: Stream
) -> Iterator[str]:
    """A task-topology term selects some pod of the stream, and only pods of ``job``."""
    selected = list(stream.selected(namespace, selector))
    if not selected:
        yield f"selects no pod: no pod template of job {job} has the {TASK_LABEL} it names"
    others = [
        workload
        for workload, pod_labels in selected
        if pod_labels.get(JOB_LABEL) != job
    ]
    yield from _also_selects(others, f"which are not of job {job}")
