"""A gang's ``minResources``: what the pods the group needs at once request, summed.

Volcano and scheduler-plugins' coscheduling both let a PodGroup say how much it
needs before any of its pods is placed (``spec.minResources``, a
``ResourceList``):

* Volcano's ``enqueue`` action admits a PodGroup to its queue (phase
  ``Inqueue``, after which its pods are created and scheduled) only when the
  queue's capacity holds ``minResources``; without it the group is enqueued at
  once and the queue's capacity is never checked before the pods exist
  (volcano-sh/volcano ``pkg/scheduler/actions/enqueue/enqueue.go``:
  ``MinResources == nil || ssn.JobEnqueueable(job)``; the ``proportion`` and
  ``overcommit`` plugins compare it with the queue). The scheduler reads
  ``cpu``, ``memory``, ``ephemeral-storage`` and extended resources from it
  (``pkg/scheduler/api/resource_info.go``, ``NewResource``).
* coscheduling's PreFilter rejects the group's pods while the free resources
  of all nodes together are below ``minResources``
  (kubernetes-sigs/scheduler-plugins ``pkg/coscheduling/core/core.go``,
  ``CheckClusterResource``).

Which pods count: the first ``minMember`` pods in the order of the group's
tasks (the job master, then each worker group), which is what Volcano's own job
controller does for a vcjob whose ``minAvailable`` is below the sum of its
tasks' minimums, with tasks of one priority in their order
(``pkg/controllers/job/job_controller_util.go``, ``CalcFirstCountResources``);
with the default ``minMember``, every pod of the job. A pod's requests are its
containers' requests summed (t2gen's pods have no init containers); a
RuntimeClass's ``overhead`` is added by admission and is not known here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from t2gen.gangs.base import group_size, task_order
from t2gen.kube.quantity import Quantity

if TYPE_CHECKING:
    from t2gen.model import Job

__all__ = ["PodRequests", "min_resources"]

PodRequests = Mapping[str, Mapping[str, Quantity]]
"""One pod's requests by task (``jm`` or a worker group's name): resource name -> amount."""


def min_resources(job: Job, pod_requests: PodRequests) -> dict[str, str]:
    """The requests of the group's first ``minMember`` pods, summed exactly, as canonical quantities.

    Args:
        job: the job; its tasks and group minimum (:func:`~t2gen.gangs.base.task_order`,
            :func:`~t2gen.gangs.base.group_size`).
        pod_requests: one pod's requests for every task of the job.

    Returns:
        ``{resource: quantity}`` in the order the resources first appear
        (``cpu``, ``memory``, then the rest), each in Kubernetes' canonical form
        (``4500m``, ``9Gi``); empty when no pod requests anything.

    Raises:
        KeyError: a task of the job has no entry in ``pod_requests``.
    """
    left = group_size(job)
    total: dict[str, Quantity] = {}
    for task, pods in task_order(job):
        if left <= 0:
            break
        count = min(pods, left)
        left -= count
        for name, amount in pod_requests[task].items():
            added = amount * count
            total[name] = total[name] + added if name in total else added
    return {name: str(amount) for name, amount in total.items()}
