"""Time ``t2gen plan --nodes --pods`` on realistic clusters of 100 to 8,000 nodes (issues 24, 41).

Writes, to a temporary directory, node and pod lists as ``kubectl get nodes -o json``
and ``kubectl get pods -A -o json`` print them on a managed cloud cluster (indented,
about 11 KB per node and per pod): ``managedFields``, image lists, conditions,
annotations, thirty labels per node; a quarter of the nodes are GPU nodes
(``nvidia.com/gpu``), every 50th cordoned, every 40th tainted; one running pod for
every second node (4,000 at 8,000 nodes).

For each size it runs, as separate processes, a bare ``json.load`` of each file
(what any reader that builds every object pays) and ``t2gen plan JOB --nodes FILE
--pods FILE`` as a user runs it (start-up, validation, rendering, reading, planning,
the scheduler simulation), and reports each one's CPU time (user + system, from
``os.wait4``) and peak resident memory (``ru_maxrss``, the child's own: see :data:`_SPAWN`). Issue 24 set
1 s CPU and 300 MB on 20,000 nodes and 10,000 pods; issue 41's budget (10x a plain
render, 200 MB) lowered the node list's bound to 96 MiB, which 20,000 such nodes
(223 MB) pass, so the largest size is now 8,000 nodes (89 MB), the most of these
that fit the bound, and both budgets are judged there.

Then, in this process, the plan engine alone on 8,000 nodes for a job of 25,000
pods (100,000 workers), and the worker map commands. Timings are reported, never
asserted.

Run: ``make bench`` (or ``.venv/bin/python bench/plan_bench.py``)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from t2gen.plan import plan
from t2gen.plan.typedread import read_nodes, read_pods

SIZES = (100, 1000, 5000, 8000)
RUNS = 3
BUDGET_CPU = 1.0
BUDGET_MB = 300
CPU_BUDGET_X = 10.0
"""Every row: at most this many times a plain render's CPU (docs/untrusted-input.md)."""
MEMORY_BUDGET_MB = 200.0
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "wordcount.yaml"

_IMAGES = [
    "registry.k8s.io/kube-proxy:v1.31.4",
    "602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni:v1.19.0",
    "docker.io/calico/node:v3.28.2",
    "docker.io/calico/cni:v3.28.2",
    "registry.k8s.io/pause:3.10",
    "nvcr.io/nvidia/k8s-device-plugin:v0.16.2",
    "nvcr.io/nvidia/gpu-operator:v24.9.0",
    "quay.io/prometheus/node-exporter:v1.8.2",
    "docker.io/fluent/fluent-bit:3.1.9",
    "registry.k8s.io/csi-secrets-store/driver:v1.4.5",
    "public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.35.0",
    "registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.12.0",
    "registry.k8s.io/sig-storage/livenessprobe:v2.14.0",
    "docker.io/twister2/twister2-k8s:0.8.0",
    "docker.io/library/python:3.12-slim",
    "docker.io/library/openjdk:17-jdk",
    "gcr.io/datadoghq/agent:7.57.2",
    "docker.io/istio/proxyv2:1.23.2",
    "registry.k8s.io/coredns/coredns:v1.11.3",
    "docker.io/bitnami/kubectl:1.31.2",
    "ghcr.io/spiffe/spire-agent:1.10.4",
    "docker.io/grafana/promtail:3.2.1",
    "quay.io/jetstack/cert-manager-controller:v1.16.1",
    "docker.io/library/busybox:1.37",
    "docker.io/apache/spark:3.5.3",
    "nvcr.io/nvidia/cuda:12.6.2-base-ubuntu22.04",
    "docker.io/rayproject/ray:2.38.0-gpu",
    "docker.io/pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime",
]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _fields(keys: list[str]) -> dict[str, Any]:
    return {f"f:{k}": {} for k in keys}


def node(i: int) -> dict[str, Any]:
    """A Node as ``kubectl get nodes -o json`` prints it on a managed cloud cluster (~10 KB indented)."""
    name = f"ip-10-{i // 65536 % 256}-{i // 256 % 256}-{i % 256}.ec2.internal"
    gpu = i % 4 == 0
    zone = f"us-east-1{'abcd'[i % 4]}"
    itype = "g5.8xlarge" if gpu else "m5.8xlarge"
    ip = f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}"
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/instance-type": itype,
        "beta.kubernetes.io/os": "linux",
        "eks.amazonaws.com/capacityType": "ON_DEMAND",
        "eks.amazonaws.com/nodegroup": "gpu-pool" if gpu else "general-pool",
        "eks.amazonaws.com/nodegroup-image": "ami-0c2b8ca1dad447f8a",
        "eks.amazonaws.com/sourceLaunchTemplateId": "lt-0a1b2c3d4e5f67890",
        "eks.amazonaws.com/sourceLaunchTemplateVersion": "7",
        "failure-domain.beta.kubernetes.io/region": "us-east-1",
        "failure-domain.beta.kubernetes.io/zone": zone,
        "k8s.io/cloud-provider-aws": "5f3b1c2d9e8a7b6c5d4e3f2a1b0c9d8e",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": itype,
        "topology.ebs.csi.aws.com/zone": zone,
        "topology.k8s.aws/zone-id": f"use1-az{i % 4 + 1}",
        "topology.kubernetes.io/region": "us-east-1",
        "topology.kubernetes.io/zone": zone,
        "cores": "32",
        "team.example.com/cost-center": f"cc-{i % 17:03d}",
    }
    if gpu:
        labels.update(
            {
                "extra-hardware": "gpu",
                "nvidia.com/gpu.present": "true",
                "nvidia.com/gpu.count": "1",
                "nvidia.com/gpu.product": "NVIDIA-A10G",
                "nvidia.com/gpu.memory": "23028",
                "nvidia.com/cuda.driver.major": "550",
                "nvidia.com/cuda.driver.minor": "127",
                "nvidia.com/mig.capable": "false",
                "feature.node.kubernetes.io/pci-10de.present": "true",
            }
        )
    allocatable = {
        "cpu": "31850m",
        "ephemeral-storage": "95551679920",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": f"{127_000_000 + i % 977}Ki",
        "pods": "110",
    }
    capacity = {
        **allocatable,
        "cpu": "32",
        "ephemeral-storage": "104845292Ki",
        "memory": f"{131_900_000 + i % 977}Ki",
    }
    if gpu:
        allocatable["nvidia.com/gpu"] = "1"
        capacity["nvidia.com/gpu"] = "1"
    spec: dict[str, Any] = {
        "podCIDR": f"100.{64 + i // 65536 % 64}.{i // 256 % 256}.0/24",
        "podCIDRs": [f"100.{64 + i // 65536 % 64}.{i // 256 % 256}.0/24"],
        "providerID": f"aws:///{zone}/i-0{_sha(name)[:16]}",
    }
    if i % 50 == 7:
        spec["unschedulable"] = True
        spec["taints"] = [
            {
                "key": "node.kubernetes.io/unschedulable",
                "effect": "NoSchedule",
                "timeAdded": "2026-11-20T08:00:00Z",
            }
        ]
    elif i % 40 == 3:
        spec["taints"] = [
            {"key": "dedicated", "value": "batch", "effect": "NoSchedule"}
        ]
    conditions = [
        {
            "type": t,
            "status": "False",
            "reason": r,
            "message": m,
            "lastHeartbeatTime": "2026-11-26T09:58:12Z",
            "lastTransitionTime": "2026-10-02T11:04:51Z",
        }
        for t, r, m in (
            (
                "MemoryPressure",
                "KubeletHasSufficientMemory",
                "kubelet has sufficient memory available",
            ),
            (
                "DiskPressure",
                "KubeletHasNoDiskPressure",
                "kubelet has no disk pressure",
            ),
            (
                "PIDPressure",
                "KubeletHasSufficientPID",
                "kubelet has sufficient PID available",
            ),
        )
    ] + [
        {
            "type": "Ready",
            "status": "True",
            "reason": "KubeletReady",
            "message": "kubelet is posting ready status",
            "lastHeartbeatTime": "2026-11-26T09:58:12Z",
            "lastTransitionTime": "2026-10-02T11:05:22Z",
        }
    ]
    images = [
        {
            "names": [f"{img.rsplit(':', 1)[0]}@sha256:{_sha(img)}", img],
            "sizeBytes": 10_000_000 + k * 7_654_321,
        }
        for k, img in enumerate(_IMAGES[:6])
    ]
    managed = [
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "manager": "kubelet",
            "operation": "Update",
            "time": "2026-10-02T11:04:51Z",
            "fieldsV1": {
                "f:metadata": {
                    "f:annotations": _fields(
                        [
                            "volumes.kubernetes.io/controller-managed-attach-detach",
                            "alpha.kubernetes.io/provided-node-ip",
                        ]
                    ),
                    "f:labels": _fields(sorted(labels)[:8]),
                },
                "f:spec": _fields(["providerID"]),
            },
        },
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "manager": "kube-controller-manager",
            "operation": "Update",
            "time": "2026-10-02T11:05:30Z",
            "fieldsV1": {
                "f:metadata": {
                    "f:annotations": _fields(["node.alpha.kubernetes.io/ttl"])
                },
                "f:spec": _fields(["podCIDR", "podCIDRs"]),
            },
        },
    ]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": {
                "alpha.kubernetes.io/provided-node-ip": ip,
                "csi.volume.kubernetes.io/nodeid": f'{{"ebs.csi.aws.com":"i-0{_sha(name)[:16]}","secrets-store.csi.k8s.io":"{name}"}}',
                "node.alpha.kubernetes.io/ttl": "0",
                "nfd.node.kubernetes.io/feature-labels": "cpu-cpuid.ADX,cpu-cpuid.AESNI,cpu-cpuid.AVX,cpu-cpuid.AVX2,cpu-cpuid.AVX512BW,cpu-cpuid.AVX512CD,cpu-cpuid.AVX512DQ,cpu-cpuid.AVX512F,cpu-cpuid.AVX512VL,cpu-cpuid.FMA3,kernel-version.full,pci-10de.present",
                "nfd.node.kubernetes.io/extended-resources": "",
                "projectcalico.org/IPv4Address": f"{ip}/19",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
            "creationTimestamp": "2026-10-02T11:04:51Z",
            "labels": labels,
            "managedFields": managed,
            "name": name,
            "resourceVersion": str(88_000_000 + i),
            "uid": f"{_sha(name)[:8]}-{_sha(name)[8:12]}-4{_sha(name)[13:16]}-8{_sha(name)[17:20]}-{_sha(name)[20:32]}",
        },
        "spec": spec,
        "status": {
            "addresses": [
                {"address": ip, "type": "InternalIP"},
                {"address": name, "type": "InternalDNS"},
                {"address": name, "type": "Hostname"},
            ],
            "allocatable": allocatable,
            "capacity": capacity,
            "conditions": conditions,
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "images": images,
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": _sha(name + "boot")[:32],
                "containerRuntimeVersion": "containerd://1.7.22",
                "kernelVersion": "6.1.112-124.190.amzn2023.x86_64",
                "kubeProxyVersion": "v1.31.4-eks-59bf375",
                "kubeletVersion": "v1.31.4-eks-59bf375",
                "machineID": _sha(name + "m")[:32],
                "operatingSystem": "linux",
                "osImage": "Amazon Linux 2023.6.20241111",
                "systemUUID": _sha(name + "u")[:32],
            },
        },
    }


def pod(i: int, node_name: str) -> dict[str, Any]:
    """A running application pod as ``kubectl get pods -A -o json`` prints it (~5 KB indented)."""
    app = ("api", "worker", "cache", "ingest", "web")[i % 5]
    name = f"{app}-{_sha(str(i))[:10]}-{_sha(str(i))[10:15]}"
    ns = f"team-{i % 23}"
    labels = {
        "app.kubernetes.io/name": app,
        "app.kubernetes.io/instance": f"{app}-{i % 7}",
        "app.kubernetes.io/part-of": "shop",
        "pod-template-hash": _sha(str(i))[:10],
        "team": ns,
    }
    container = {
        "name": app,
        "image": f"registry.example.com/{ns}/{app}:1.{i % 40}.{i % 9}",
        "imagePullPolicy": "IfNotPresent",
        "args": [
            "--port=8080",
            "--metrics-port=9090",
            f"--log-level={'info' if i % 3 else 'debug'}",
        ],
        "env": [{"name": f"VAR_{k}", "value": f"value-{k}-{i % 11}"} for k in range(4)]
        + [
            {
                "name": "POD_IP",
                "valueFrom": {
                    "fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}
                },
            }
        ],
        "ports": [
            {"containerPort": 8080, "name": "http", "protocol": "TCP"},
            {"containerPort": 9090, "name": "metrics", "protocol": "TCP"},
        ],
        "livenessProbe": {
            "httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTP"},
            "failureThreshold": 3,
            "periodSeconds": 10,
            "successThreshold": 1,
            "timeoutSeconds": 1,
        },
        "readinessProbe": {
            "httpGet": {"path": "/ready", "port": "http", "scheme": "HTTP"},
            "failureThreshold": 3,
            "periodSeconds": 5,
            "successThreshold": 1,
            "timeoutSeconds": 1,
        },
        "resources": {
            "limits": {"memory": f"{256 * (1 + i % 4)}Mi"},
            "requests": {
                "cpu": f"{100 * (1 + i % 5)}m",
                "memory": f"{256 * (1 + i % 4)}Mi",
            },
        },
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
            "readOnlyRootFilesystem": True,
            "runAsNonRoot": True,
        },
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "volumeMounts": [
            {
                "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                "name": f"kube-api-access-{_sha(name)[:5]}",
                "readOnly": True,
            },
            {"mountPath": "/etc/config", "name": "config"},
        ],
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "annotations": {
                "kubectl.kubernetes.io/restartedAt": "2026-11-20T08:00:00Z",
                "prometheus.io/scrape": "true",
                "prometheus.io/port": "9090",
            },
            "creationTimestamp": "2026-11-20T08:01:02Z",
            "generateName": name.rsplit("-", 1)[0] + "-",
            "labels": labels,
            "managedFields": [
                {
                    "apiVersion": "v1",
                    "fieldsType": "FieldsV1",
                    "manager": "kube-controller-manager",
                    "operation": "Update",
                    "time": "2026-11-20T08:01:02Z",
                    "fieldsV1": {
                        "f:metadata": {
                            "f:labels": _fields(sorted(labels)),
                            "f:ownerReferences": {},
                        },
                        "f:spec": {
                            "f:containers": {
                                f'k:{{"name":"{app}"}}': _fields(
                                    ["args", "env", "image", "ports", "resources"]
                                )
                            }
                        },
                    },
                },
                {
                    "apiVersion": "v1",
                    "fieldsType": "FieldsV1",
                    "manager": "kubelet",
                    "operation": "Update",
                    "subresource": "status",
                    "time": "2026-11-20T08:01:09Z",
                    "fieldsV1": {
                        "f:status": _fields(
                            [
                                "conditions",
                                "containerStatuses",
                                "hostIP",
                                "phase",
                                "podIP",
                                "podIPs",
                                "startTime",
                            ]
                        )
                    },
                },
            ],
            "name": name,
            "namespace": ns,
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "blockOwnerDeletion": True,
                    "controller": True,
                    "kind": "ReplicaSet",
                    "name": name.rsplit("-", 1)[0],
                    "uid": _sha(name + "rs")[:36],
                }
            ],
            "resourceVersion": str(90_000_000 + i),
            "uid": _sha(name)[:36],
        },
        "spec": {
            "containers": [container],
            "dnsPolicy": "ClusterFirst",
            "enableServiceLinks": True,
            "nodeName": node_name,
            "preemptionPolicy": "PreemptLowerPriority",
            "priority": 0,
            "restartPolicy": "Always",
            "schedulerName": "default-scheduler",
            "securityContext": {"fsGroup": 2000, "runAsUser": 1000},
            "serviceAccount": app,
            "serviceAccountName": app,
            "terminationGracePeriodSeconds": 30,
            "tolerations": [
                {
                    "effect": "NoExecute",
                    "key": "node.kubernetes.io/not-ready",
                    "operator": "Exists",
                    "tolerationSeconds": 300,
                },
                {
                    "effect": "NoExecute",
                    "key": "node.kubernetes.io/unreachable",
                    "operator": "Exists",
                    "tolerationSeconds": 300,
                },
            ],
            "volumes": [
                {
                    "name": "config",
                    "configMap": {"name": f"{app}-config", "defaultMode": 420},
                },
                {
                    "name": f"kube-api-access-{_sha(name)[:5]}",
                    "projected": {
                        "defaultMode": 420,
                        "sources": [
                            {
                                "serviceAccountToken": {
                                    "expirationSeconds": 3607,
                                    "path": "token",
                                }
                            },
                            {
                                "configMap": {
                                    "items": [{"key": "ca.crt", "path": "ca.crt"}],
                                    "name": "kube-root-ca.crt",
                                }
                            },
                            {
                                "downwardAPI": {
                                    "items": [
                                        {
                                            "fieldRef": {
                                                "apiVersion": "v1",
                                                "fieldPath": "metadata.namespace",
                                            },
                                            "path": "namespace",
                                        }
                                    ]
                                }
                            },
                        ],
                    },
                },
            ],
        },
        "status": {
            "conditions": [
                {
                    "lastProbeTime": None,
                    "lastTransitionTime": "2026-11-20T08:01:09Z",
                    "status": "True",
                    "type": t,
                }
                for t in (
                    "PodReadyToStartContainers",
                    "Initialized",
                    "Ready",
                    "ContainersReady",
                    "PodScheduled",
                )
            ],
            "containerStatuses": [
                {
                    "containerID": f"containerd://{_sha(name + 'c')}",
                    "image": container["image"],
                    "imageID": f"registry.example.com/{ns}/{app}@sha256:{_sha(name + 'i')}",
                    "lastState": {},
                    "name": app,
                    "ready": True,
                    "restartCount": 0,
                    "started": True,
                    "state": {"running": {"startedAt": "2026-11-20T08:01:08Z"}},
                }
            ],
            "hostIP": "10.0.0.1",
            "hostIPs": [{"ip": "10.0.0.1"}],
            "phase": "Running",
            "podIP": f"100.64.{i // 256 % 256}.{i % 256}",
            "podIPs": [{"ip": f"100.64.{i // 256 % 256}.{i % 256}"}],
            "qosClass": "Burstable",
            "startTime": "2026-11-20T08:01:02Z",
        },
    }


def _indented(obj: Any, indent: int) -> str:
    """JSON as kubectl prints it (4 spaces), nested ``indent`` spaces deep."""
    text = json.dumps(obj, indent=4)
    return (" " * indent + text).replace("\n", "\n" + " " * indent)


def write_list(path: Path, items: Callable[[int], Any], count: int) -> int:
    """Write a ``List`` of ``count`` items as ``kubectl get ... -o json`` does; return its size in bytes."""
    with path.open("w", encoding="utf-8") as out:
        out.write('{\n    "apiVersion": "v1",\n    "items": [\n')
        for i in range(count):
            out.write(_indented(items(i), 8))
            out.write(",\n" if i < count - 1 else "\n")
        out.write(
            '    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n'
        )
    return path.stat().st_size


def node_name(i: int) -> str:
    """The name :func:`node` gives node ``i``."""
    return f"ip-10-{i // 65536 % 256}-{i // 256 % 256}-{i % 256}.ec2.internal"


# The job of the table: a GPU group (one GPU per worker, one pod per GPU node) and a
# CPU group of 2 workers per pod, with the job master: 49 pods, which fit at every size.
TABLE_JOB = """\
apiVersion: t2gen/v1
kind: Twister2Job
metadata: {name: mixed}
spec:
  image: twister2/twister2-k8s:0.8.0
  workers:
    - count: 64
      perPod: 2
      cpu: 2
      memory: 8Gi
    - count: 16
      perPod: 1
      cpu: 8
      memory: 32Gi
      extendedResources: {nvidia.com/gpu: 1}
  placement:
    nodeAffinity:
      required:
        - {key: kubernetes.io/os, operator: In, values: [linux]}
"""


ENGINE_JOB = """\
apiVersion: t2gen/v1
kind: Twister2Job
metadata: {name: big}
spec:
  image: twister2/twister2-k8s:0.8.0
  workers:
    - {count: 40000, perPod: 4, cpu: 1, memory: 2Gi}
    - {count: 60000, perPod: 4, cpu: 500m, memory: 1Gi}
"""


_SPAWN = """\
import json, os, subprocess, sys
with open(sys.argv[1], "wb") as out:
    child = subprocess.Popen(sys.argv[2:], stdout=out, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
print(json.dumps([usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
                  os.waitstatus_to_exitcode(status)]))
"""
"""Runs a command and prints its CPU seconds, peak MB and exit code. It runs in a
fresh, small interpreter because Linux carries a parent's peak resident memory into
a child it starts (``ru_maxrss`` survives fork and exec): started from this
process, which holds 20,000 nodes by then, every child would read about 400 MB."""


def measure(
    command: list[str], cwd: str, pythonpath: str | None = None
) -> tuple[float, float, int, str]:
    """Run ``command`` RUNS times; return the CPU seconds (user + system), peak MB and
    exit code of the run with the least CPU, and its standard output.

    With ``pythonpath`` (a checkout of another version), ``python -m t2gen`` runs that
    version's code.

    Each run is started by :data:`_SPAWN`, so its peak is its own (at least that
    small interpreter's, about 10 MB), not this process's."""
    best: tuple[float, float, int, str] | None = None
    for _ in range(RUNS):
        with tempfile.TemporaryDirectory() as scratch:
            output = Path(scratch, "stdout")
            report = subprocess.run(
                [sys.executable, "-c", _SPAWN, str(output), *command],
                cwd=cwd,
                capture_output=True,
                text=True,
                check=True,
                env=None
                if pythonpath is None
                else {**os.environ, "PYTHONPATH": pythonpath},
            )
            cpu, peak, code = json.loads(report.stdout)
            text = output.read_bytes().decode("utf-8", "replace")
        if best is None or cpu < best[0]:
            best = (cpu, peak, code, text)
    assert best is not None
    return best


def simulated(stdout: str) -> str:
    """What ``plan`` said of the default scheduler's loop: the queue orders it ran, or that it skipped it."""
    for line in stdout.splitlines():
        every = re.search(r"all ([\d,]+) (?:queue orders )?simulated", line)
        if every:
            return f"all {every.group(1)} queue orders"
        some = re.search(
            r"(?:each of the ([\d,]+)|the (one)) queue orders? simulated, of the "
            r"(more than 10\^12|[\d,]+)|in the ([\d,]+) of (more than 10\^12|[\d,]+) "
            r"queue orders simulated",
            line,
        )
        if some:
            done = some.group(1) or some.group(4) or "1"
            return f"{done} of {some.group(3) or some.group(5)} queue orders"
        if "was not simulated" in line:
            return "not simulated (bound)"
    return "-"


def render(job: str) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "job.yaml"
        path.write_text(job, encoding="utf-8")
        out = subprocess.run(
            [sys.executable, "-m", "t2gen", "render", str(path), "--format", "json"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    items = json.loads(out)["items"]
    assert isinstance(items, list)
    return items


def median_time(fn: Callable[[], object]) -> tuple[float, object]:
    times = []
    result: object = None
    for _ in range(RUNS):
        start = time.process_time()
        result = fn()
        times.append(time.process_time() - start)
    return statistics.median(times), result


def scale_table(tmp: Path, previous: str | None = None) -> None:
    """The plan table: CPU and peak memory at every size, next to a bare json.load.

    Each row is judged against docs/untrusted-input.md's budget (10x a plain render's
    CPU in this run, 200 MB); with ``previous`` (a checkout of the previous version)
    the largest size also runs that version, in the same run (issue 41).
    """
    (tmp / "job.yaml").write_text(TABLE_JOB, encoding="utf-8")
    load = "import json, sys\nwith open(sys.argv[1], 'rb') as f: json.load(f)\n"
    header = (
        f"{'nodes':>6} {'MB':>6} {'pods':>6} {'MB':>6}  "
        f"{'json.load nodes':>16} {'json.load pods':>15}  {'t2gen plan --nodes --pods':>26}  exit  x render      scheduler loop"
    )
    render = measure([sys.executable, "-m", "t2gen", "render", str(EXAMPLE)], str(tmp))[
        0
    ]
    print(
        f"a plain t2gen render examples/wordcount.yaml: {render:.3f} s CPU; each row's "
        f"budget: {CPU_BUDGET_X:.0f}x that, {MEMORY_BUDGET_MB:.0f} MB"
    )
    print(header)
    print(
        f"{'':>29}{'CPU s':>9} {'peak MB':>7}{'CPU s':>8} {'peak MB':>7}  {'CPU s':>17} {'peak MB':>8}"
    )
    last: tuple[float, float] = (0.0, 0.0)
    for count in SIZES:
        nodes, pods = tmp / f"nodes-{count}.json", tmp / f"pods-{count}.json"
        node_bytes = write_list(nodes, node, count)
        pod_bytes = write_list(pods, lambda i: pod(i, node_name(2 * i)), count // 2)
        json_nodes = measure([sys.executable, "-c", load, str(nodes)], str(tmp))
        json_pods = measure([sys.executable, "-c", load, str(pods)], str(tmp))
        cpu, peak, code, stdout = measure(
            [
                sys.executable,
                "-m",
                "t2gen",
                "plan",
                "job.yaml",
                "--nodes",
                nodes.name,
                "--pods",
                pods.name,
            ],
            str(tmp),
        )
        within = cpu <= CPU_BUDGET_X * render and peak <= MEMORY_BUDGET_MB
        print(
            f"{count:>6,} {node_bytes / 1e6:>6.1f} {count // 2:>6,} {pod_bytes / 1e6:>6.1f}  "
            f"{json_nodes[0]:>9.2f} {json_nodes[1]:>7.0f}{json_pods[0]:>8.2f} {json_pods[1]:>7.0f}  "
            f"{cpu:>17.2f} {peak:>8.0f}  {code}     {cpu / render:5.1f}x {'PASS' if within else 'MISS'}  "
            f"{simulated(stdout)}"
        )
        last = (cpu, peak)
        if count != SIZES[-1]:
            nodes.unlink()
            pods.unlink()
    cpu, peak = last
    if previous is not None:
        before = measure(
            [sys.executable, "-m", "t2gen", "plan", "job.yaml", "--nodes",
             f"nodes-{SIZES[-1]}.json", "--pods", f"pods-{SIZES[-1]}.json"],
            str(tmp),
            previous,
        )  # fmt: skip
        print(
            f"previous version ({previous}) at {SIZES[-1]:,} nodes: {before[0]:.2f} s CPU, "
            f"{before[1]:.0f} MB; this one {cpu / before[0]:.2f}x its CPU, "
            f"{peak - before[1]:+.0f} MB"
        )
    verdict = "PASS" if cpu <= BUDGET_CPU and peak <= BUDGET_MB else "MISS"
    print(
        f"budget at {SIZES[-1]:,} nodes and {SIZES[-1] // 2:,} pods: <= {BUDGET_CPU:.0f} s CPU and "
        f"<= {BUDGET_MB} MB: {cpu:.2f} s, {peak:.0f} MB [{verdict}]"
    )


def engine(tmp: Path) -> None:
    """The plan engine alone, in this process, on the largest node list."""
    count = SIZES[-1]
    nodes_path, pods_path = tmp / f"nodes-{count}.json", tmp / f"pods-{count}.json"
    t_nodes, nodes = median_time(lambda: read_nodes(str(nodes_path)))
    t_pods, pods = median_time(lambda: read_pods(str(pods_path)))
    assert isinstance(nodes, tuple) and isinstance(pods, tuple)
    print(f"read {len(nodes):,} nodes (every label kept): {t_nodes * 1000:7.1f} ms CPU")
    print(f"read {len(pods):,} running pods: {t_pods * 1000:7.1f} ms CPU")
    objects = render(ENGINE_JOB)
    t_plan, result = median_time(lambda: plan(objects, nodes, pods))
    feasible = getattr(result, "feasible", None)
    print(
        f"plan 25,000 pods (100,000 workers, 4 per pod, 2 groups) on {count:,} nodes: "
        f"{t_plan * 1000:7.1f} ms CPU (feasible: {feasible})"
    )
    (tmp / "big.yaml").write_text(ENGINE_JOB, encoding="utf-8")
    for args in ([], ["--summary"], ["-o", "json"]):
        cpu, peak, code, _ = measure(
            [sys.executable, "-m", "t2gen", "plan", "big.yaml", *args], str(tmp)
        )
        shown = " ".join(["t2gen", "plan", "job.yaml", *args])
        print(
            f"{shown} (worker map, 100,000 workers): {cpu:5.2f} s CPU, {peak:4.0f} MB (exit {code})"
        )


def main(previous: str | None = None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        scale_table(Path(tmp), previous)
        print()
        engine(Path(tmp))


if __name__ == "__main__":
    import argparse

    from report import appended_to

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--append", metavar="FILE", help="also append the figures to this report"
    )
    parser.add_argument(
        "--previous",
        metavar="DIR",
        help="a checkout of the previous version, run beside this one at the largest size",
    )
    args = parser.parse_args()
    with appended_to(
        args.append, "t2gen plan: 100 to 8,000 realistic nodes (bench/plan_bench.py)"
    ):
        main(args.previous)
