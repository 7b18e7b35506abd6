"""A job's life in the cluster: ``spec.lifecycle`` (the supervisor Job, docs/lifecycle.md)."""

from __future__ import annotations

from t2gen.model.placement import Placement
from t2gen.record import Record

__all__ = ["DEFAULT_SUPERVISOR_IMAGE", "Lifecycle"]

DEFAULT_SUPERVISOR_IMAGE = (
    "docker.io/alpine/k8s:1.30.0"
    "@sha256:bd01dae02676ce4cab62fc744e43443eee5bf660054e94d3496d23bfc35d384e"
)
"""alpine/k8s (github.com/alpine-docker/k8s: Alpine with kubectl, a POSIX shell and
jq: ``apk add --update --no-cache jq yq`` in its Dockerfile since 1.17.5, which the
supervisor's script parses every object with) at the tag and digest pinned by SocialGouv/docker commit 1c09d8e
(``check-cluster-images/Dockerfile``); the schema's default of ``lifecycle.image``."""


class Lifecycle(Record):
    """``spec.lifecycle``: whether a supervisor Job watches the job, and its bounds.

    Attributes:
        supervise: render the supervisor (``<job>-supervisor``: ServiceAccount,
            Role, RoleBinding, ConfigMap with its script, ``batch/v1`` Job).
        active_deadline_seconds: seconds after which the supervisor kills the
            job (``KILL_JOB``); None: none.
        backoff_limit: restarts of one worker after which the supervisor
            kills the job; None: Twister2's own limit only.
        ttl_seconds_after_finished: the supervisor Job's TTL; None: kept.
        suspend: create every StatefulSet with 0 replicas and the Job suspended.
        image: the supervisor's image (a POSIX shell, kubectl and jq).
        log_tail_lines: lines of each log the supervisor copies into its own.
        max_worker_restarts: Twister2's ``twister2.fault.tolerance.max.worker.restarts``.
        argo_cd_hooks: mark the Twister2 objects as Argo CD ``Sync`` hooks.
        placement: where the supervisor pod may run; None: the job master's
            (``jobMaster.placement``).
    """

    supervise: bool = False
    active_deadline_seconds: int | None = None
    backoff_limit: int | None = None
    ttl_seconds_after_finished: int | None = None
    suspend: bool = False
    image: str = DEFAULT_SUPERVISOR_IMAGE
    log_tail_lines: int = 200
    max_worker_restarts: int = 5
    argo_cd_hooks: bool = False
    placement: Placement | None = None
