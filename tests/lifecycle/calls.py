"""Every Kubernetes API call the supervisor's script makes, read from ``templates/lifecycle/supervise.sh``.

The table the fake-kubectl tests (``tests/lifecycle/test_supervisor.py``) check
the rendered Role against, and the real-API-server tier
(``tests/kubeapi/test_rbac.py``) asks the API server's authorizer about. Each
``kubectl`` command is the requests kubectl makes for it: ``get NAME`` is a
``get``; ``get NAME --watch`` a ``get`` and a ``watch`` of the collection with
the field selector ``metadata.name=NAME``, which RBAC authorizes by
``resourceNames`` (kubernetes/kubectl ``pkg/cmd/get/get.go``, cli-runtime
``Helper.WatchSingle``; https://kubernetes.io/docs/reference/access-authn-authz/rbac/#referring-to-resources);
``get pods -l`` a ``list``; ``logs POD`` a ``get`` of the pod then of its
``pods/log`` (kubernetes/kubectl ``pkg/polymorphichelpers/logsforobject.go``);
``delete TYPE/NAME`` a ``delete``.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Call(NamedTuple):
    """One API call: ``name`` None for a collection (list, watch by label)."""

    verb: str
    group: str
    resource: str
    name: str | None
    what: str


def _ref(ref: str) -> tuple[str, str, str]:
    """``(group, resource, name)`` of a ``kubectl delete`` ``TYPE/NAME``."""
    kind, name = ref.split("/")
    resource, _, group = kind.partition(".")
    return group, resource, name


def supervisor_calls(env: dict[str, str]) -> list[Call]:
    """The script's calls for a job, from its supervisor container's environment (``T2_*``).

    Args:
        env: the rendered container's ``env`` values (``T2_JOB``,
            ``T2_JOB_MASTER_POD``, ``T2_CLEANUP``, ``T2_JOB_OBJECTS``), plus
            ``pods``: the names of the job's pods, space-separated (the
            workers' previous logs, the job master's log).
    """
    job, job_master = env["T2_JOB"], env["T2_JOB_MASTER_POD"]
    calls = [
        Call(
            "get",
            "",
            "configmaps",
            job,
            "step 1: read the ConfigMap; after a watch ends: is it still there",
        ),
        Call(
            "patch",
            "",
            "configmaps",
            job,
            "mark it T2GEN_SUPERVISOR; KILL_JOB at the deadline or backoff limit",
        ),
        Call("watch", "", "configmaps", job, "step 2: follow it to its DELETED event"),
        Call(
            "list", "", "pods", None, "the worker pods' restart counts (-l t2-wp=<job>)"
        ),
    ]
    for pod in env["pods"].split():
        calls.append(
            Call(
                "get",
                "",
                "pods",
                pod,
                "the pod, read by kubectl logs (and the job master's phase)",
            )
        )
        calls.append(
            Call(
                "get",
                "",
                "pods/log",
                pod,
                "the job master's log, or a restarted worker's previous log"
                if pod != job_master
                else "follow the job master's log",
            )
        )
    for ref in env["T2_CLEANUP"].split():
        calls.append(
            Call("delete", *_ref(ref), "what the job master leaves, at the end")
        )
    for ref in env["T2_JOB_OBJECTS"].split():
        calls.append(
            Call(
                "delete",
                *_ref(ref),
                "what the job master deletes, if it never answers a kill",
            )
        )
    return calls


def supervisor_env(objects: list[dict[str, Any]]) -> dict[str, str]:
    """The supervisor container's ``T2_*`` values and the job's pod names (``pods``), from rendered objects."""
    job = next(o for o in objects if o["kind"] == "Job")
    container = job["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in container["env"] if "value" in e}
    pods = [
        f"{s['metadata']['name']}-{ordinal}"
        for s in objects
        if s["kind"] == "StatefulSet"
        for ordinal in range(int(s["spec"].get("replicas", 1)))
    ]
    return {**env, "pods": " ".join(pods)}
