"""The worker map of ``t2gen plan JOB``: every worker's ID, pod, container, ports and DNS name.

:mod:`.layout` lays the workers out from :mod:`t2gen.twister2.topology` and
the rendered objects; :mod:`.launcher` puts each pod's requests beside the
Twister2 launcher's for the same job; :mod:`.output` writes the table and the JSON.
"""

from __future__ import annotations

from t2gen.plan.workermap.layout import (
    JobMasterAddress,
    WorkerMap,
    build_worker_map,
    pod_dns_name,
    service_dns_name,
)
from t2gen.plan.workermap.output import worker_map_to_dict, write_json, write_table

__all__ = [
    "JobMasterAddress",
    "WorkerMap",
    "build_worker_map",
    "pod_dns_name",
    "service_dns_name",
    "worker_map_to_dict",
    "write_json",
    "write_table",
]
