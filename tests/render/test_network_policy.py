"""spec.network.policy: the rendered NetworkPolicies, judged by what they let through.

No NetworkPolicy evaluator is a Python library this project can depend on
(network-config-analyzer pins an older PyYAML), so :func:`allowed` below
applies the semantics of the Kubernetes documentation to the rendered
policies, written from that page and not from t2gen's code
(https://kubernetes.io/docs/concepts/services-networking/network-policies/):

* a pod is isolated for a direction when some policy selects it (in its own
  namespace) and lists that direction in ``policyTypes``; an isolated pod lets
  a connection through only when some selecting policy has a rule that allows
  it; policies add up, and a connection needs the sender's egress and the
  receiver's ingress both to allow it;
* a rule allows a connection when one of its peers matches (no ``to``/``from``:
  every peer) and one of its ports matches (no ``ports``: every port);
* a peer: ``podSelector`` alone selects pods of the policy's namespace;
  ``namespaceSelector`` with ``podSelector`` those pods in those namespaces;
  ``ipBlock`` addresses (``except`` is not used by t2gen).

Every job is rendered by the real command and the objects read back as
kubectl reads them. The tests then ask, for every port the job's containers
declare, whether each job pod reaches it, and that nothing else does.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Any

import pytest

from t2gen.pipeline.job import generate
from tests.helpers import job_text, problems

Pod = dict[str, Any]
"""``{namespace, labels, ip}``: a pod (``labels`` None: an address outside the cluster's pods)."""


def _selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    """A label selector (``matchLabels``; ``{}`` selects everything)."""
    assert set(selector) <= {"matchLabels"}, selector  # t2gen writes no expressions
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items())


def _peer_matches(peer: dict[str, Any], namespace: str, other: Pod) -> bool:
    if "ipBlock" in peer:
        assert set(peer["ipBlock"]) == {"cidr"}
        network = ipaddress.ip_network(peer["ipBlock"]["cidr"])
        return ipaddress.ip_address(other["ip"]) in network
    if other["labels"] is None:
        return False  # a selector never matches an address outside the pods
    namespaces = peer.get("namespaceSelector")
    if namespaces is None:
        in_namespace = other["namespace"] == namespace
    else:
        in_namespace = _selects(
            namespaces, {"kubernetes.io/metadata.name": other["namespace"]}
        )
    return in_namespace and _selects(peer.get("podSelector", {}), other["labels"])


def _rule_allows(
    rule: dict[str, Any],
    peers_key: str,
    namespace: str,
    other: Pod,
    port: int,
    protocol: str,
) -> bool:
    peers = rule.get(peers_key)
    if peers is not None and not any(_peer_matches(p, namespace, other) for p in peers):
        return False
    ports = rule.get("ports")
    return ports is None or any(
        p.get("protocol", "TCP") == protocol and p["port"] == port for p in ports
    )


def _side_allows(
    policies: list[dict[str, Any]],
    pod: Pod,
    other: Pod,
    port: int,
    protocol: str,
    *,
    egress: bool,
) -> bool:
    kind, key, peers = (
        ("Egress", "egress", "to") if egress else ("Ingress", "ingress", "from")
    )
    selecting = [
        p
        for p in policies
        if p["metadata"].get("namespace", "default") == pod["namespace"]
        and _selects(p["spec"]["podSelector"], pod["labels"])
        and kind in p["spec"]["policyTypes"]
    ]
    if not selecting:
        return True  # not isolated for this direction
    return any(
        _rule_allows(
            rule,
            peers,
            p["metadata"].get("namespace", "default"),
            other,
            port,
            protocol,
        )
        for p in selecting
        for rule in p["spec"].get(key, [])
    )


def allowed(
    policies: list[dict[str, Any]],
    source: Pod,
    target: Pod,
    port: int,
    protocol: str = "TCP",
) -> bool:
    """Whether ``source`` may open a connection to ``target``'s ``port`` under ``policies``."""
    out = source["labels"] is None or _side_allows(
        policies, source, target, port, protocol, egress=True
    )
    into = target["labels"] is None or _side_allows(
        policies, target, source, port, protocol, egress=False
    )
    return out and into


def _render(tmp_path: Path, spec: str, namespace: str = "ns") -> list[dict[str, Any]]:
    path = tmp_path / "job.yaml"
    path.write_text(
        job_text(spec, metadata=f"namespace: {namespace}\n"), encoding="utf-8"
    )
    return [d.obj for d in generate([str(path)])]


def _pods(objects: list[dict[str, Any]]) -> list[tuple[Pod, list[tuple[int, str]]]]:
    """Every pod of the job's StatefulSets and the supervisor Job, with the ports its containers declare."""
    found = []
    for index, o in enumerate(objects):
        if o["kind"] not in ("StatefulSet", "Job"):
            continue
        template = o["spec"]["template"]
        ports = [
            (port["containerPort"], port.get("protocol", "TCP"))
            for container in template["spec"]["containers"]
            for port in container.get("ports", [])
        ]
        pod = {
            "namespace": o["metadata"]["namespace"],
            "labels": template["metadata"]["labels"],
            "ip": f"10.1.0.{index + 1}",
        }
        found.append((pod, ports))
    return found


def _policies(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [o for o in objects if o["kind"] == "NetworkPolicy"]


JOB = """\
workers:
  - {count: 4, perPod: 2}
  - {name: b, count: 2}
network:
  additionalPorts: [metrics]
  policy:
    enabled: true
"""

OUTSIDE = {"namespace": "", "labels": None, "ip": "203.0.113.7"}
OTHER_JOB = {
    "namespace": "ns",
    "labels": {"app": "twister2", "t2-job": "other"},
    "ip": "10.1.9.1",
}
OTHER_NAMESPACE = {"namespace": "ns2", "labels": {"t2-job": "job"}, "ip": "10.1.9.2"}
DNS = {"namespace": "kube-system", "labels": {"k8s-app": "kube-dns"}, "ip": "10.1.8.1"}
FAKE_DNS = {"namespace": "ns", "labels": {"k8s-app": "kube-dns"}, "ip": "10.1.8.2"}


def test_no_policy_unless_enabled(tmp_path: Path) -> None:
    objects = _render(tmp_path, "workers:\n  - {count: 2}\n")
    assert not _policies(objects)


def test_every_port_between_the_jobs_pods_and_nothing_else_in(tmp_path: Path) -> None:
    objects = _render(tmp_path, JOB)
    policies = _policies(objects)
    assert [p["metadata"]["name"] for p in policies] == ["job"]
    pods = _pods(objects)
    assert len(pods) == 3  # two worker groups and the job master
    every_port = {port for _, ports in pods for port in ports}
    assert len(every_port) >= 5  # worker, metrics, each per container, the job master's
    for target, ports in pods:
        assert ports
        for port, protocol in ports:
            for source, _ in pods:
                assert allowed(policies, source, target, port, protocol), (
                    source,
                    target,
                    port,
                )
            for stranger in (OUTSIDE, OTHER_JOB, OTHER_NAMESPACE, FAKE_DNS, DNS):
                assert not allowed(policies, stranger, target, port, protocol), stranger
                assert allowed(
                    [], stranger, target, port, protocol
                )  # the policy, not the judge
    # OpenMPI and the runtime may open ports the manifests do not declare: any port inside the job.
    (worker, _), (other, _) = pods[0], pods[1]
    assert allowed(policies, worker, other, 40000)
    assert not allowed(policies, OTHER_JOB, worker, 40000)


def test_out_only_to_the_job_dns_api_server_and_uploader(tmp_path: Path) -> None:
    objects = _render(tmp_path, JOB)
    policies = _policies(objects)
    uploader = {
        "namespace": "default",
        "labels": {"app": "twister2-uploader"},
        "ip": "10.1.7.1",
    }
    for source, _ in _pods(objects):
        assert allowed(policies, source, DNS, 53, "UDP")
        assert allowed(policies, source, DNS, 53, "TCP")
        assert not allowed(policies, source, FAKE_DNS, 53, "UDP")
        assert not allowed(policies, source, DNS, 80)
        # No cidrs for the API server: any address, on its two ports only.
        api = {"namespace": "", "labels": None, "ip": "192.168.0.1"}
        assert allowed(policies, source, api, 443)
        assert allowed(policies, source, api, 6443)
        assert not allowed(policies, source, OUTSIDE, 80)
        assert not allowed(policies, source, OUTSIDE, 22)
        # Twister2's default uploader, in namespace default, on port 80.
        assert allowed(policies, source, uploader, 80)
        assert not allowed(policies, source, uploader, 8080)
        assert not allowed(policies, source, {**uploader, "namespace": "ns3"}, 80)
        assert not allowed(policies, source, OTHER_JOB, 9000)


def test_api_server_cidrs_job_namespace_uploader_zookeeper_and_egress(
    tmp_path: Path,
) -> None:
    objects = _render(
        tmp_path,
        JOB
        + "    apiServer: {cidrs: [10.96.0.1/32]}\n"
        + "    egress: [{cidrs: [10.20.0.0/16], ports: [8020]}]\n"
        + "jobPackage: {uploader: job-namespace}\n"
        + "zooKeeper: {serverAddresses: 'zk-0.zk:2181,zk-1.zk:2182'}\n",
    )
    policies = _policies(objects)
    (source, _), *_ = _pods(objects)
    assert allowed(
        policies, source, {"namespace": "", "labels": None, "ip": "10.96.0.1"}, 443
    )
    assert not allowed(
        policies, source, {"namespace": "", "labels": None, "ip": "10.96.0.2"}, 443
    )
    uploader = {
        "namespace": "ns",
        "labels": {"app": "twister2-uploader"},
        "ip": "10.1.7.1",
    }
    assert allowed(policies, source, uploader, 80)
    assert not allowed(policies, source, {**uploader, "namespace": "default"}, 80)
    zk = {"namespace": "zk", "labels": {"app": "zk"}, "ip": "10.1.6.1"}
    assert allowed(policies, source, zk, 2181)
    assert allowed(policies, source, zk, 2182)
    assert not allowed(policies, source, zk, 2183)
    hdfs = {"namespace": "", "labels": None, "ip": "10.20.3.4"}
    assert allowed(policies, source, hdfs, 8020)
    assert not allowed(policies, source, hdfs, 9000)
    env = {
        e["name"]: e.get("value")
        for o in objects
        if o["kind"] == "StatefulSet"
        for e in o["spec"]["template"]["spec"]["containers"][0]["env"]
    }
    assert env["JOB_PACKAGE_URI"] == "http://twister2-uploader/job.tar.gz"


def test_package_uri_port_and_client_to_pods(tmp_path: Path) -> None:
    objects = _render(
        tmp_path, JOB + "jobPackage: {uri: 'https://files.example.com/job.tar.gz'}\n"
    )
    policies = _policies(objects)
    (source, _), *_ = _pods(objects)
    files = {"namespace": "", "labels": None, "ip": "198.51.100.1"}
    assert allowed(policies, source, files, 443)
    assert not allowed(policies, source, files, 80)
    objects = _render(
        tmp_path, JOB + "jobPackage: {uploadMethod: client-to-pods, fileSize: 100}\n"
    )
    uploader = {
        "namespace": "default",
        "labels": {"app": "twister2-uploader"},
        "ip": "10.1.7.1",
    }
    (source, _), *_ = _pods(objects)
    assert not allowed(_policies(objects), source, uploader, 80)


def test_node_port_lets_anyone_reach_the_base_port_only(tmp_path: Path) -> None:
    objects = _render(
        tmp_path,
        "workers:\n  - {count: 2}\nnetwork:\n  service: {type: NodePort}\n  policy: {enabled: true}\n",
    )
    policies = _policies(objects)
    pods = _pods(objects)
    worker = next(pod for pod, _ in pods if "t2-wp" in pod["labels"])
    master = next(pod for pod, _ in pods if "t2-mp" in pod["labels"])
    assert allowed(policies, OUTSIDE, worker, 9000)
    assert not allowed(policies, OUTSIDE, worker, 9001)
    assert not allowed(policies, OUTSIDE, master, 11011)


def test_the_supervisor_gets_its_own_policy(tmp_path: Path) -> None:
    objects = _render(tmp_path, JOB + "lifecycle: {supervise: true}\n")
    policies = _policies(objects)
    assert [p["metadata"]["name"] for p in policies] == ["job", "job-supervisor"]
    pods = _pods(objects)
    supervisor = next(pod for pod, _ in pods if "t2-supervisor" in pod["labels"])
    workers = [pod for pod, _ in pods if "t2-job" in pod["labels"]]
    api = {"namespace": "", "labels": None, "ip": "192.168.0.1"}
    assert allowed(policies, supervisor, api, 443)
    assert allowed(policies, supervisor, DNS, 53, "UDP")
    assert not allowed(policies, supervisor, OUTSIDE, 80)
    for worker in workers:
        assert not allowed(policies, supervisor, worker, 9000)
        assert not allowed(policies, worker, supervisor, 9000)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (JOB + "    egress: [{protocol: UDP}]\n", "names no cidrs and no ports"),
        (JOB + "jobPackage: {uri: 'ftp://files/job.tar.gz'}\n", "packageSource.ports"),
        (JOB + "zooKeeper: {serverAddresses: 'zk:0'}\n", "port 0 is not a port"),
        (
            "workers:\n  - {count: 2}\njobPackage: {uploader: job-namespace, uri: 'http://x/job.tar.gz'}\n",
            "jobPackage.uploader is not used",
        ),
    ],
)
def test_rules(spec: str, message: str) -> None:
    found = problems(job_text(spec))
    assert any(message in p[3] for p in found), found
