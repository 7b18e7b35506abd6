"""The NodeResourcesFit filter and the static CPU manager's whole cores: room on a node.

* ``NodeResourcesFit``: pod count, cpu (millicores), memory (bytes) and every
  requested extended resource against ``allocatable`` minus the requests of the
  pods already bound there (``pkg/scheduler/framework/plugins/noderesources/fit.go``,
  kubernetes/kubernetes).
* ``CPUManager``: a Guaranteed pod with integer cpu (t2gen's bound workers)
  needs that many whole cores that the kubelet's static CPU manager can pin:
  ``floor(allocatable cpu)`` minus cores already pinned
  (``pkg/kubelet/cm/cpumanager/policy_static.go``;
  https://kubernetes.io/docs/tasks/administer-cluster/cpu-management-policies/).
  The kubelet, not the scheduler, refuses such a pod, after it was bound.

Pods of one StatefulSet are identical, so :func:`room_for` counts how many fit on a
node at once instead of trying them one by one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from t2gen.plan.nodes import Node
from t2gen.plan.pods import ExistingPod
from t2gen.plan.quantities import MEMORY, format_cpu, format_resource
from t2gen.record import Record

if TYPE_CHECKING:
    from t2gen.plan.templates import WorkloadTemplate

__all__ = ["Combined", "FreeResources", "free_resources", "lacking", "room_for", "take"]


class FreeResources(Record):
    """Free resources per node (mutable working arrays of the search).

    Attributes:
        cpu: free cpu per node, in millicores (negative when overcommitted).
        memory: free memory per node, in bytes.
        pods: free pod slots per node.
        cores: whole cores the static CPU manager can still pin, per node.
        extended: free extended resources per node, name to whole units.
        hosted: per node, the indices of the job's templates with a pod there (None: none).
    """

    cpu: list[int]
    memory: list[int]
    pods: list[int]
    cores: list[int]
    extended: list[dict[str, int]]
    hosted: list[set[int] | None]  # template indices with a pod on each node


def free_resources(nodes: Sequence[Node], pods: Sequence[ExistingPod]) -> FreeResources:
    """Allocatable minus what the running pods request, per node (in ``nodes``' order).

    Whole cores are ``floor(allocatable cpu)`` minus the cores already pinned.
    The sums are those of :func:`t2gen.plan.pods.usage_by_node`, taken in place.
    """
    state = FreeResources(
        cpu=[node.allocatable.cpu_millis for node in nodes],
        memory=[node.allocatable.memory_bytes for node in nodes],
        pods=[node.allocatable.pods for node in nodes],
        cores=[node.allocatable.cpu_millis // 1000 for node in nodes],
        extended=[dict(node.allocatable.extended) for node in nodes],
        hosted=[None] * len(nodes),
    )
    index = {node.name: i for i, node in enumerate(nodes)}
    for pod in pods:
        i = index.get(pod.node_name)
        if i is None:
            continue
        r = pod.requests
        state.cpu[i] -= r.cpu_millis
        state.memory[i] -= r.memory_bytes
        state.pods[i] -= 1
        state.cores[i] -= pod.exclusive_cores
        for name, amount in r.extended:
            here = state.extended[i]
            here[name] = here.get(name, 0) - amount
    return state


def room_for(t: WorkloadTemplate, state: FreeResources, i: int, limit: int) -> int:
    """How many pods of ``t`` fit on node ``i`` (at most ``limit``)."""
    # Called for every node that passes the node-level filters: plain comparisons, no min().
    r = t.requests
    k = state.pods[i]
    if limit < k:
        k = limit
    if r.cpu_millis:
        q = state.cpu[i] // r.cpu_millis
        if q < k:
            k = q
    if r.memory_bytes:
        q = state.memory[i] // r.memory_bytes
        if q < k:
            k = q
    for name, amount in r.extended:
        if amount:
            q = state.extended[i].get(name, 0) // amount
            if q < k:
                k = q
    if t.exclusive_cores:
        q = state.cores[i] // t.exclusive_cores
        if q < k:
            k = q
    return k if k > 0 else 0


def lacking(
    t: WorkloadTemplate, state: FreeResources, i: int, count: int = 1
) -> tuple[str, str]:
    """(filter, message) for the first resource that ``count`` pods of ``t`` lack on node ``i``."""
    r = t.requests
    noun = "pod needs" if count == 1 else f"{count} pods need"
    if state.pods[i] < count:
        return (
            "NodeResourcesFit",
            f"{max(state.pods[i], 0)} pod slots free (allocatable pods), {noun} {count}",
        )
    if t.exclusive_cores and state.cores[i] < count * t.exclusive_cores:
        return (
            "CPUManager",
            f"{max(state.cores[i], 0)} whole cores free ({format_cpu(max(state.cpu[i], 0))} cpu), "
            f"bound {noun} {count * t.exclusive_cores} exclusive cores",
        )
    if r.cpu_millis and state.cpu[i] < count * r.cpu_millis:
        return (
            "NodeResourcesFit",
            f"{format_cpu(max(state.cpu[i], 0))} cpu free, {noun} {format_cpu(count * r.cpu_millis)}",
        )
    if r.memory_bytes and state.memory[i] < count * r.memory_bytes:
        return (
            "NodeResourcesFit",
            f"{format_resource(MEMORY, max(state.memory[i], 0))} memory free, "
            f"{noun} {format_resource(MEMORY, count * r.memory_bytes)}",
        )
    for name, amount in r.extended:
        free = state.extended[i].get(name, 0)
        if amount and free < count * amount:
            return (
                "NodeResourcesFit",
                f"{format_resource(name, max(free, 0))} {name} free, {noun} {format_resource(name, count * amount)}",
            )
    return "NodeResourcesFit", "no room"


class Combined:
    """The summed requests of several templates' pods (for one-node placement).

    Args:
        members: indices into ``templates`` whose every pod goes on one node.
        templates: the job's templates.
    """

    def __init__(
        self, members: list[int], templates: Sequence[WorkloadTemplate]
    ) -> None:
        self.pods = 0
        self.cpu = 0
        self.memory = 0
        self.cores = 0
        self.extended: dict[str, int] = {}
        for a in members:
            t = templates[a]
            k = t.replicas
            self.pods += k
            self.cpu += k * t.requests.cpu_millis
            self.memory += k * t.requests.memory_bytes
            self.cores += k * t.exclusive_cores
            for name, amount in t.requests.extended:
                self.extended[name] = self.extended.get(name, 0) + k * amount

    def fits(self, state: FreeResources, i: int) -> bool:
        """Return True if node ``i`` has room for all the pods at once."""
        return (
            state.pods[i] >= self.pods
            and state.cpu[i] >= self.cpu
            and state.memory[i] >= self.memory
            and state.cores[i] >= self.cores
            and all(state.extended[i].get(k, 0) >= v for k, v in self.extended.items())
        )

    def lacking(self, state: FreeResources, i: int) -> str:
        """Return what node ``i`` lacks first, with the free amount."""
        if self.cores and state.cores[i] < self.cores:
            return f"{max(state.cores[i], 0)} whole cores free ({format_cpu(max(state.cpu[i], 0))} cpu)"
        if state.cpu[i] < self.cpu:
            return f"{format_cpu(max(state.cpu[i], 0))} cpu free"
        if state.memory[i] < self.memory:
            return f"{format_resource(MEMORY, max(state.memory[i], 0))} memory free"
        if state.pods[i] < self.pods:
            return f"{max(state.pods[i], 0)} pod slots free"
        for k, v in self.extended.items():
            if state.extended[i].get(k, 0) < v:
                return f"{max(state.extended[i].get(k, 0), 0)} {k} free"
        return "room"

    def __str__(self) -> str:
        """Return the summed requests (``8 whole cores, 8 cpu, 32Gi memory``)."""
        parts = [
            f"{format_cpu(self.cpu)} cpu",
            f"{format_resource(MEMORY, self.memory)} memory",
        ]
        if self.cores:
            parts.insert(0, f"{self.cores} whole cores")
        parts += [
            f"{format_resource(k, v)} {k}" for k, v in sorted(self.extended.items())
        ]
        return ", ".join(parts)


def take(state: FreeResources, t: WorkloadTemplate, a: int, i: int, k: int) -> None:
    """Reserve ``k`` pods of template ``t`` (index ``a``) on node ``i``."""
    r = t.requests
    state.pods[i] -= k
    state.cpu[i] -= k * r.cpu_millis
    state.memory[i] -= k * r.memory_bytes
    state.cores[i] -= k * t.exclusive_cores
    for name, amount in r.extended:
        state.extended[i][name] = state.extended[i].get(name, 0) - k * amount
    hosted = state.hosted[i]
    if hosted is None:
        hosted = state.hosted[i] = set()
    hosted.add(a)
