from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from t2gen.jobfile.loader import SourceDoc, parse_config
from t2gen.jobfile.rules import (
    REGISTRY,
    Rule,
    _base,
    rule_problems,
    rule_warnings,
    run_rules,
)
from t2gen.jobfile.rules._base import rule
from t2gen.jobfile.schema import apply_defaults
from t2gen.problems import Problem, Warning_
from tests.helpers import job_text, problems, valid_job

# Each case: a job file and every problem it must produce, as (line, col, json path, message).
CASES = {
    "port-named-worker": (
        job_text(
            "workers: [{count: 1}]\nnetwork: {additionalPorts: [metrics, worker]}\n"
        ),
        [
            (
                8,
                40,
                "spec.network.additionalPorts[1]",
                "'worker' is the name of each worker's own port; give the additional port another name",
            ),
        ],
    ),
    "ssh-secret-without-mpi": (
        job_text("workers: [{count: 1}]\nmpi: {enabled: false, sshSecretName: keys}\n"),
        [
            (
                8,
                25,
                "spec.mpi.sshSecretName",
                "sshSecretName is only used by OpenMPI jobs (enabled: true); remove it or enable OpenMPI",
            ),
        ],
    ),
    "env-the-job-may-set": (
        job_text(
            "workers: [{count: 1}]\nenv: [{name: ENCODED_NODE_INFO_LIST, value: x}]\n"
        ),
        [],
    ),
    "node-port-misspelt-type": (
        job_text(
            "workers: [{count: 1}]\nnetwork: {service: {type: nodeport, nodePort: 30001}}\n"
        ),
        [
            (
                8,
                29,
                "spec.network.service.type",
                "'nodeport' is not one of Headless, NodePort; did you mean 'NodePort'? (values are case-sensitive)",
            ),
        ],
    ),
    "divisible": (
        job_text("workers:\n  - count: 10\n    perPod: 3\n"),
        [
            (
                8,
                14,
                "spec.workers[0].count",
                "10 is not divisible by perPod 3: every pod runs 3 workers, so use a multiple of 3 such as 9 or 12",
            ),
        ],
    ),
    "cpu-zero": (
        job_text("workers:\n  - count: 1\n    cpu: '0'\n"),
        [
            (9, 12, "spec.workers[0].cpu", "cpu must be greater than 0"),
        ],
    ),
    "cpu-fine": (
        job_text("workers:\n  - count: 1\n    cpu: 0.0005\n"),
        [
            (
                9,
                12,
                "spec.workers[0].cpu",
                "0.0005 is finer than 1m (0.001 core); Kubernetes keeps quantities to 1m precision, so round it (e.g. 1m)",
            ),
        ],
    ),
    "mem-small": (
        job_text("workers:\n  - count: 1\n    memory: 1Mi\n"),
        [
            (
                9,
                15,
                "spec.workers[0].memory",
                "1Mi leaves a JVM heap of 0 MiB (the heap is 80% of the memory); use at least 2Mi",
            ),
        ],
    ),
    "mem-zero": (
        job_text("workers:\n  - count: 1\n    memory: 0\n"),
        [
            (9, 15, "spec.workers[0].memory", "memory must be greater than 0"),
        ],
    ),
    "huge": (
        job_text("workers:\n  - count: 1\n    memory: 9Ei\n"),
        [
            (
                9,
                15,
                "spec.workers[0].memory",
                "9Ei is too large; quantities must stay below 8Ei (2^63)",
            ),
        ],
    ),
    "total": (
        job_text("workers:\n  - count: 60000\n  - count: 60000\n"),
        [
            (
                8,
                5,
                "spec.workers",
                "the job has 120000 workers; t2gen supports at most 100000 in one job",
            ),
        ],
    ),
    "ports": (
        job_text(
            "workers:\n  - count: 4\n    perPod: 4\nnetwork:\n  basePort: 65534\n"
        ),
        [
            (
                11,
                15,
                "spec.network.basePort",
                "worker ports for containers 0-3 of a pod run from 65534 to 65537, past 65535; use a basePort of at most 65532",
            ),
        ],
    ),
    "bind-frac": (
        job_text("workers:\n  - count: 2\n    cpu: 0.5\nbindWorkersToCpu: true\n"),
        [
            (
                9,
                12,
                "spec.workers[0].cpu",
                "0.5 is not a whole number of cores; with bindWorkersToCpu each worker owns whole cores (a core cannot be shared), so use 1",
            ),
        ],
    ),
    "bind-frac-1.5": (
        job_text("workers:\n  - count: 2\n    cpu: 1.5\nbindWorkersToCpu: true\n"),
        [
            (
                9,
                12,
                "spec.workers[0].cpu",
                "1.5 is not a whole number of cores; with bindWorkersToCpu each worker owns whole cores (a core cannot be shared), so use 1 or 2",
            ),
        ],
    ),
    "bind-mpi": (
        job_text(
            "workers:\n  - count: 3\n    perPod: 3\n    cpu: 0.5\nbindWorkersToCpu: true\nmpi: {enabled: true}\n"
        ),
        [
            (
                10,
                12,
                "spec.workers[0].cpu",
                "0.5 cores x perPod 3 = 1.5 cores per OpenMPI pod is not a whole number; with bindWorkersToCpu the pod's one container must own whole cores (a core cannot be shared)",
            ),
        ],
    ),
    "gt-two": (
        job_text(
            "workers: [{count: 1}]\nplacement:\n  nodeAffinity:\n    required:\n      - {key: cores, operator: Gt, values: ['3', '4']}\n"
        ),
        [
            (
                11,
                46,
                "spec.placement.nodeAffinity.required[0].values",
                "operator Gt compares the label with exactly one integer; got 2 values ('3', '4'), e.g. values: [\"4\"]",
            ),
        ],
    ),
    "gt-nonint": (
        job_text(
            "workers: [{count: 1}]\nplacement:\n  nodeAffinity:\n    required:\n      - {key: cores, operator: Gt, values: [abc]}\n"
        ),
        [
            (
                11,
                47,
                "spec.placement.nodeAffinity.required[0].values[0]",
                "operator Gt needs an integer value; 'abc' is not one (e.g. \"4\")",
            ),
        ],
    ),
    "gt-none": (
        job_text(
            "workers: [{count: 1}]\nplacement:\n  nodeAffinity:\n    required:\n      - {key: cores, operator: Lt}\n"
        ),
        [
            (
                11,
                34,
                "spec.placement.nodeAffinity.required[0].operator",
                'operator Lt compares the label with exactly one integer; got 0 values, e.g. values: ["4"]',
            ),
        ],
    ),
    "exists-values": (
        job_text(
            "workers: [{count: 1}]\nplacement:\n  nodeAffinity:\n    required:\n      - key: gpu\n        operator: Exists\n        values: [yes]\n"
        ),
        [
            (
                13,
                19,
                "spec.placement.nodeAffinity.required[0].values",
                "operator Exists tests only whether the label 'gpu' is set and takes no values; remove values (1 given)",
            ),
        ],
    ),
    "exists-case": (
        job_text(
            "workers: [{count: 1}]\nplacement:\n  nodeAffinity:\n    required:\n      - {key: gpu, operator: exists}\n"
        ),
        [
            (
                11,
                32,
                "spec.placement.nodeAffinity.required[0].operator",
                "'exists' is not one of In, NotIn, Exists, DoesNotExist, Gt, Lt; did you mean 'Exists'? (values are case-sensitive)",
            ),
        ],
    ),
    "in-empty": (
        job_text(
            "workers: [{count: 1}]\nplacement:\n  nodeAffinity:\n    required:\n      - {key: gpu, operator: In, values: []}\n"
        ),
        [
            (
                11,
                44,
                "spec.placement.nodeAffinity.required[0].values",
                "operator In needs at least one value, e.g. values: [gpu]",
            ),
        ],
    ),
    "in-badvalue": (
        job_text(
            "workers: [{count: 1}]\nplacement:\n  nodeAffinity:\n    preferred:\n      - {weight: 5, key: gpu, operator: In, values: ['a b']}\n"
        ),
        [
            (
                11,
                56,
                "spec.placement.nodeAffinity.preferred[0].values[0]",
                "'a b' is not a valid label value, so no node label can equal it: use at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit",
            ),
        ],
    ),
    "contradiction": (
        job_text(
            "workers: [{count: 1}]\nplacement:\n  nodeAffinity:\n    required:\n      - {key: gpu, operator: In, values: [a]}\n      - {key: gpu, operator: NotIn, values: [a]}\n"
        ),
        [
            (
                12,
                11,
                "spec.placement.nodeAffinity.required[1]",
                "required expressions on 'gpu' leave no value a node could have (In and NotIn exclude every value); no node can run the workers",
            ),
        ],
    ),
    "contradiction2": (
        job_text(
            "workers: [{count: 1}]\nplacement:\n  nodeAffinity:\n    required:\n      - {key: gpu, operator: Exists}\n      - {key: gpu, operator: DoesNotExist}\n"
        ),
        [
            (
                12,
                11,
                "spec.placement.nodeAffinity.required[1]",
                "required expressions on 'gpu' contradict each other: DoesNotExist with Exists; no node can run the workers",
            ),
        ],
    ),
    "feasible": (
        job_text(
            "workers: [{count: 5}]\nplacement:\n  nodeAffinity:\n    required:\n      - {key: kubernetes.io/hostname, operator: In, values: [n1, n2, n3, n4]}\n  uniform: all-separate-nodes\n"
        ),
        [
            (
                12,
                14,
                "spec.placement.uniform",
                "all-separate-nodes puts each of the job's 5 worker pods on its own node, but the required kubernetes.io/hostname In list at line 11 allows only 4 nodes (n1, n2, n3, n4); the pods would stay Pending: list at least 5 nodes or use at most 4 pods",
            ),
        ],
    ),
    "nodeport-perpod": (
        job_text(
            "workers: [{count: 2, perPod: 2}]\nnetwork:\n  service: {type: NodePort, nodePort: 30003}\n"
        ),
        [
            (
                7,
                32,
                "spec.workers[0].perPod",
                "perPod 2 with a NodePort Service: a NodePort exposes one port per pod, so only one worker per pod is reachable (Twister2's one-port-per-pod limitation); use perPod: 1",
            ),
        ],
    ),
    "nodeport-range": (
        job_text(
            "workers: [{count: 2}]\nnetwork:\n  service: {type: NodePort, nodePort: 29999}\n"
        ),
        [
            (
                9,
                41,
                "spec.network.service.nodePort",
                "29999 is out of range; use 30000 to 32767",
            ),
        ],
    ),
    "nodeport-no-type": (
        job_text("workers: [{count: 2}]\nnetwork:\n  service: {nodePort: 30001}\n"),
        [
            (
                9,
                15,
                "spec.network.service.nodePort",
                "nodePort is only used with type: NodePort; remove it or set type: NodePort",
            ),
        ],
    ),
    "mpi-perpod": (
        job_text(
            "workers:\n  - {count: 4, perPod: 2}\n  - {count: 3, perPod: 3}\nmpi: {enabled: true}\n"
        ),
        [
            (
                9,
                26,
                "spec.workers[1].perPod",
                "perPod 3 differs from worker group 0's 2: an OpenMPI job runs mpirun with one -npernode for every pod, so all groups must use perPod: 2",
            ),
        ],
    ),
    "env-clash": (
        job_text(
            "workers: [{count: 1}]\nenv:\n  - {name: JOB_ID, value: x}\n  - {name: A, value: '1'}\n  - {name: A, value: '2'}\n"
        ),
        [
            (
                9,
                14,
                "spec.env[0].name",
                "JOB_ID is set by t2gen for the Twister2 runtime and cannot be overridden; set metadata.name instead",
            ),
            (
                11,
                14,
                "spec.env[2].name",
                "A is already set at spec.env[1]; list each variable once",
            ),
        ],
    ),
    "label-clash": (
        job_text(metadata="labels: {app: mine}\n"),
        [
            (
                5,
                12,
                "metadata.labels.app",
                "label 'app' is set by t2gen (selectors and the Twister2 runtime rely on it); choose another key",
            ),
        ],
    ),
    "jm-address": (
        job_text("workers: [{count: 1}]\njobMaster: {enabled: false}\n"),
        [
            (
                8,
                24,
                "spec.jobMaster.enabled",
                "with enabled: false the job master runs in the submitting client; set jobMaster.address to the client's IP address so the workers can reach it (JOB_MASTER_IP)",
            ),
        ],
    ),
    "jm-address2": (
        job_text("workers: [{count: 1}]\njobMaster: {address: 10.0.0.1}\n"),
        [
            (
                8,
                15,
                "spec.jobMaster.address",
                "address is only used when the job master runs in the client (enabled: false); remove it",
            ),
        ],
    ),
    "jm-pd": (
        job_text("workers: [{count: 1}]\njobMaster: {persistentDisk: 1Gi}\n"),
        [
            (
                8,
                31,
                "spec.jobMaster.persistentDisk",
                "the job master's persistentDisk is a share of the job's PersistentVolumeClaim, which exists only when storage.persistent.perWorker is above 0; set perWorker or remove persistentDisk",
            ),
        ],
    ),
    "pkg": (
        job_text(
            "workers: [{count: 1}]\njobPackage: {uploadMethod: client-to-pods, uri: 'http://x/y'}\n"
        ),
        [
            (
                8,
                30,
                "spec.jobPackage.uploadMethod",
                "client-to-pods needs jobPackage.fileSize: the pods wait until that many bytes have arrived",
            ),
            (
                8,
                46,
                "spec.jobPackage.uri",
                "uri is only used with uploadMethod: webserver; remove it",
            ),
        ],
    ),
    "rbac": (
        job_text("workers: [{count: 1}]\nrbac: {serviceAccountName: x}\n"),
        [
            (
                8,
                10,
                "spec.rbac.serviceAccountName",
                "serviceAccountName is only used with create: false; t2gen names the account it creates after the job",
            ),
        ],
    ),
    "storage": (
        job_text(
            "workers: [{count: 1}]\nstorage: {persistent: {storageClassName: nfs}}\n"
        ),
        [
            (
                8,
                26,
                "spec.storage.persistent.storageClassName",
                "storageClassName is set but perWorker is 0, so no PersistentVolumeClaim is made; set perWorker (e.g. 1Gi) or remove storageClassName",
            ),
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule(name: str) -> None:
    text, expected = CASES[name]
    if expected:
        assert problems(text) == expected
    else:
        valid_job(text)


def test_every_rule_has_a_unique_kebab_case_id_and_a_docstring() -> None:
    rules = list(REGISTRY.values())
    assert len({r.id for r in rules}) == len({r.check for r in rules}) == len(rules)
    for registered in rules:
        assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", registered.id)
        assert registered.title.endswith("."), registered.id
        assert len(registered.doc.splitlines()) > 2, f"{registered.id}: say why"
        assert registered.fields, registered.id


def test_registering_refuses_a_taken_id_or_no_docstring(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_base, "REGISTRY", dict(REGISTRY))

    def documented(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
        """A rule."""
        yield from ()

    def undocumented(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
        yield from ()

    with pytest.raises(ValueError, match="registered twice"):
        rule("workers-divisible", fields=("spec",))(documented)
    with pytest.raises(ValueError, match="no docstring"):
        rule("a-new-rule", fields=("spec",))(undocumented)
    with pytest.raises(ValueError, match="kebab-case"):
        rule("Not_Kebab", fields=("spec",))(documented)


def test_warnings_leave_apart_from_problems(monkeypatch: pytest.MonkeyPatch) -> None:
    def warn(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
        """Always warns."""
        yield Warning_(doc.path, 1, 1, "just so you know", "spec")

    monkeypatch.setitem(REGISTRY, "always-warns", Rule("always-warns", warn, ("spec",)))
    text = job_text("workers:\n  - count: 10\n    perPod: 3\n")
    doc = parse_config(text, path="job.yaml")
    data = apply_defaults(doc.data)
    found = run_rules(data, doc)
    assert [p.json_path for p in found.problems] == ["spec.workers[0].count"]
    assert found.warnings == [Warning_("job.yaml", 1, 1, "just so you know", "spec")]
    assert rule_problems(data, doc) == found.problems
    assert rule_warnings(data, doc) == found.warnings
