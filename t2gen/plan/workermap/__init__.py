"""The worker map of ``t2gen plan JOB`` (see :mod:`.layout`)."""

from __future__ import annotations

from t2gen.plan.workermap.layout import (
    JobMasterAddress,
    WorkerMap,
    build_worker_map,
    pod_dns_name,
    service_dns_name,
    worker_map_to_dict,
    write_json,
    write_table,
)

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
