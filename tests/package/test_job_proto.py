"""The generated protobuf module matches its message definition, and the definition matches Twister2's job.proto."""

from __future__ import annotations

import subprocess
import sys

from t2gen._generated import twister2_job_pb2 as pb
from tests.conftest import ROOT


def test_generated_module_is_current() -> None:
    done = subprocess.run(
        [sys.executable, "scripts/gen_proto.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_field_numbers_are_twister2s() -> None:
    """twister2/proto/job.proto (DSC-SPIDAL/twister2 at c6844d2): names and numbers."""
    fields = {
        "Job": {
            "job_name": 1,
            "job_id": 2,
            "worker_class_name": 3,
            "driver_class_name": 4,
            "number_of_workers": 5,
            "compute_resource": 6,
            "config": 7,
            "job_format": 8,
        },
        "ComputeResource": {
            "cpu": 1,
            "ram_mega_bytes": 2,
            "disk_giga_bytes": 3,
            "instances": 4,
            "workers_per_pod": 5,
            "scalable": 6,
            "index": 7,
        },
        "Config": {"kvs": 1, "config_byte_map": 2},
        "JobFormat": {"type": 1, "job_file": 2},
    }
    for message, numbers in fields.items():
        descriptor = pb.DESCRIPTOR.message_types_by_name[message]
        assert {f.name: f.number for f in descriptor.fields} == numbers
    assert pb.Job.DESCRIPTOR.full_name == "tws.proto.job.Job"
