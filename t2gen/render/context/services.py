"""The job's Services: the workers' Service (headless, or NodePort), the job master's."""

from __future__ import annotations

from typing import Any

from t2gen.model import Job
from t2gen.twister2 import names
from t2gen.twister2.topology import WORKER_PORT_NAME

__all__ = [
    "JOB_MASTER_PORT_NAME",
    "job_master_service",
    "node_port_service",
    "worker_service",
]

JOB_MASTER_PORT_NAME = "job-master"
"""Name of the job master's port, on its container and its Service."""


def worker_service(job: Job) -> dict[str, Any]:
    """The workers' Service ``<job>``, governing every worker StatefulSet (Twister2 ``createJobServiceObject``).

    Headless, unless ``network.service.type`` is ``NodePort``: then it is the
    NodePort Service (:func:`node_port_service`), as the launcher creates it.

    Returns:
        ``{selector}``: every worker pod of the job (``t2-wp: <job>``).
    """
    return {"selector": names.worker_pods_selector(job.name)}


def node_port_service(job: Job) -> dict[str, Any] | None:
    """The NodePort Service exposing the base port of every worker pod: the workers' Service ``<job>``.

    As the Twister2 launcher, which creates it instead of the headless Service
    under the same name (``KubernetesLauncher.java:365-377``,
    ``RequestObjectBuilder.java:599-640``): the job master deletes ``<job>``
    when the job ends (``master/JobTerminator.java:45-47``), and the node port
    with it, while it deletes no other worker Service. The pods then have no
    per-pod DNS records (only a headless Service publishes them); the runtime
    finds workers by pod IP (``PodWatchUtils.java:592-604``, the job master's
    worker registry), not by those names.

    Returns:
        ``{selector, ports}`` with one port ``worker`` (``basePort``, and
        ``nodePort`` when given), or None unless ``network.serviceType`` is
        ``NodePort``.
    """
    network = job.spec.network
    if network.service_type != "NodePort":
        return None
    port: dict[str, Any] = {
        "name": WORKER_PORT_NAME,
        "port": network.base_port,
        "targetPort": network.base_port,
        "protocol": network.protocol,
    }
    if network.node_port is not None:
        port["nodePort"] = network.node_port
    return {"selector": names.worker_pods_selector(job.name), "ports": [port]}


def job_master_service(job: Job) -> dict[str, Any]:
    """The job master's headless Service ``<job>-jm`` (Twister2 ``createJobMasterServiceObject``).

    Returns:
        ``{selector, ports}``: the job master pod, its TCP port.
    """
    port = job.spec.job_master.port
    return {
        "selector": names.job_master_selector(job.name),
        "ports": [
            {
                "name": JOB_MASTER_PORT_NAME,
                "port": port,
                "targetPort": port,
                "protocol": "TCP",
            }
        ],
    }
