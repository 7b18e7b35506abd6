"""The opt-in NetworkPolicies of ``spec.network.policy``: the job's pods, and the supervisor's.

A NetworkPolicy selects pods by label; once a pod is selected for a direction
(``policyTypes``), only what some policy's rules allow may go that way, and
policies add up (https://kubernetes.io/docs/concepts/services-networking/network-policies/#the-two-sorts-of-pod-isolation).
A peer written as ``namespaceSelector`` and ``podSelector`` in one element
selects those pods in those namespaces; a ``podSelector`` alone selects pods of
the policy's own namespace; a rule without ``to``/``from`` allows every address,
and one without ``ports`` every port (same page, "Behavior of to and from
selectors"). Every namespace carries ``kubernetes.io/metadata.name``
(https://kubernetes.io/docs/reference/labels-annotations-taints/#kubernetes-io-metadata-name).

The job's policy ``<job>`` selects every pod of the job (``t2-job: <job>``):

* in: the job's own pods, on every port (the ports the runtime opens come from
  the job package's configuration, not from the manifests, and OpenMPI's are
  chosen at run time); with a NodePort Service, any address on the workers'
  base port, since traffic through a node port may reach the pod from the node's
  address or the client's, depending on the network plugin and
  ``externalTrafficPolicy`` (the page above, "ipBlock");
* out: the job's own pods; the cluster DNS (pods ``k8s-app: kube-dns`` in
  ``kube-system``, UDP and TCP 53); the API server, which every worker and the
  job master call (their Roles, :mod:`.rbac`), by address and port only, since
  no label selects it; the package source (the Twister2 uploader's pods,
  ``app: twister2-uploader`` on port 80, or the addresses and port of
  ``jobPackage.uri`` or ``jobPackage.source.url``; none for ``source.oci``,
  which the kubelet pulls); ZooKeeper's ports; Twister2's own dashboard Service
  when ``twister2.dashboard.host`` names it (its pods ``app: twister2-dashboard``
  on 8080); and ``network.policy.egress``.

The supervisor (``spec.lifecycle.supervise``) has no ``t2-job`` label; its own
policy ``<job>-supervisor`` lets nothing in and only DNS and the API server out.
"""

from __future__ import annotations

from typing import Any

from t2gen.model import EgressDestination, Job
from t2gen.model.destinations import (
    DASHBOARD_LABELS,
    DASHBOARD_PORT,
    Setting,
    dashboard_peer,
    destinations,
    job_config_settings,
)
from t2gen.model.isolation import uri_port, zoo_keeper_ports
from t2gen.render.context.meta import object_metadata
from t2gen.render.context.supervisor import SUPERVISOR_LABEL
from t2gen.twister2 import names
from t2gen.twister2.confkeys import DASHBOARD_HOST

__all__ = [
    "DNS_SELECTOR",
    "UPLOADER_LABELS",
    "UPLOADER_PORT",
    "network_policies",
]

_NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
DNS_SELECTOR: dict[str, Any] = {
    "namespaceSelector": {"matchLabels": {_NAMESPACE_NAME_LABEL: "kube-system"}},
    "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
}
"""The cluster DNS: CoreDNS and kube-dns pods keep the label ``k8s-app: kube-dns`` in ``kube-system``."""
UPLOADER_LABELS = {"app": "twister2-uploader"}
"""The Twister2 uploader pods' label (``twister2.kubernetes.uploader.web.server.label``'s default,
``K8S/KubernetesContext.java:88-91``; ``conf/kubernetes/deployment/twister2-uploader-wo-ps.yaml``)."""
UPLOADER_PORT = 80
"""The uploader's nginx port (``twister2-uploader-wo-ps.yaml``: ``containerPort: 80``)."""


def _ports(ports: list[int] | tuple[int, ...], protocol: str) -> list[dict[str, Any]]:
    return [{"port": port, "protocol": protocol} for port in ports]


def _rule(
    destination: EgressDestination, ports: tuple[int, ...] | list[int]
) -> dict[str, Any]:
    """An egress rule to ``destination``'s addresses (any, when none) on ``ports`` (every port, when none)."""
    rule: dict[str, Any] = {}
    if destination.cidrs:
        rule["to"] = [{"ipBlock": {"cidr": cidr}} for cidr in destination.cidrs]
    if ports:
        rule["ports"] = _ports(ports, destination.protocol)
    return rule


def _dns_and_api_server(job: Job) -> list[dict[str, Any]]:
    api = job.spec.network.policy.api_server
    return [
        {"to": [DNS_SELECTOR], "ports": _ports([53], "UDP") + _ports([53], "TCP")},
        _rule(api, api.ports),
    ]


def _package_source(job: Job) -> list[dict[str, Any]]:
    """Egress to where the pods get the job package, and nowhere else for it.

    ``jobPackage.source.url``: the URL's port (on ``packageSource``'s
    addresses); ``source.oci``: nothing, since the kubelet pulls an ``image``
    volume on the node's network, which no NetworkPolicy governs
    (https://kubernetes.io/docs/concepts/services-networking/network-policies/:
    a policy selects pods); ``client-to-pods``: nothing, the copy comes
    through the API server (``kubectl cp``).
    """
    package = job.spec.job_package
    url = package.source.url if package.source else package.uri
    if url is None and package.upload_method != "webserver":
        return []
    if url:
        source = job.spec.network.policy.package_source
        port = uri_port(url)
        return [_rule(source, source.ports or ([port] if port else []))]
    peer: dict[str, Any] = {"podSelector": {"matchLabels": dict(UPLOADER_LABELS)}}
    if package.uploader == "default-namespace":
        peer = {
            "namespaceSelector": {"matchLabels": {_NAMESPACE_NAME_LABEL: "default"}},
            **peer,
        }
    return [{"to": [peer], "ports": _ports([UPLOADER_PORT], "TCP")}]


def _zoo_keeper(job: Job) -> list[dict[str, Any]]:
    addresses = job.spec.zoo_keeper.server_addresses
    if not addresses:
        return []
    zk = job.spec.network.policy.zoo_keeper
    return [_rule(zk, zk.ports or zoo_keeper_ports(addresses))]


def _dashboard(job: Job) -> list[dict[str, Any]]:
    """Twister2's own dashboard Service, when ``twister2.dashboard.host`` names it: its pods on 8080.

    The job master registers the job with the dashboard before it listens for
    the workers (:mod:`t2gen.model.destinations`). The host comes from
    ``spec.jobConfig`` or, with ``--package``, the package's configuration;
    another host is the ``egress`` entries' to allow (rule
    ``network-policy-destinations`` warns when none does).
    """
    settings = {
        key: Setting(value)
        for key, value in job.package_config
        if key == DASHBOARD_HOST
    }
    settings.update(job_config_settings(dict(job.spec.job_config)))
    for destination in destinations(
        settings, job.spec.checkpointing, package_known=True
    ):
        namespace = dashboard_peer(destination)
        if namespace is None:
            continue
        peer: dict[str, Any] = {"podSelector": {"matchLabels": dict(DASHBOARD_LABELS)}}
        if namespace:
            peer = {
                "namespaceSelector": {
                    "matchLabels": {_NAMESPACE_NAME_LABEL: namespace}
                },
                **peer,
            }
        return [{"to": [peer], "ports": _ports([DASHBOARD_PORT], "TCP")}]
    return []


def _job_policy(job: Job) -> dict[str, Any]:
    own = {"podSelector": {"matchLabels": {names.JOB_LABEL: job.name}}}
    ingress: list[dict[str, Any]] = [{"from": [own]}]
    network = job.spec.network
    if network.service_type == "NodePort":
        ingress.append({"ports": _ports([network.base_port], network.protocol)})
    egress = [
        {"to": [own]},
        *_dns_and_api_server(job),
        *_package_source(job),
        *_zoo_keeper(job),
        *_dashboard(job),
        *(_rule(extra, extra.ports) for extra in network.policy.egress),
    ]
    return {
        "metadata": object_metadata(job, job.name, "network"),
        "spec": {
            "podSelector": own["podSelector"],
            "policyTypes": ["Ingress", "Egress"],
            "ingress": ingress,
            "egress": egress,
        },
    }


def network_policies(
    job: Job, supervisor: dict[str, Any] | None
) -> list[dict[str, Any]]:
    """The NetworkPolicies of ``spec.network.policy``: none unless ``enabled``.

    Args:
        job: the job.
        supervisor: the supervisor's context (:func:`.supervisor.supervisor`),
            or None when there is none; its policy takes the supervisor's
            metadata and pod labels.

    Returns:
        ``[{metadata, spec}]``: the job's policy ``<job>``, then the
        supervisor's ``<job>-supervisor`` when there is a supervisor.
    """
    if not job.spec.network.policy.enabled:
        return []
    policies = [_job_policy(job)]
    if supervisor is not None:
        labels = supervisor["podTemplate"]["metadata"]["labels"]
        selector = {SUPERVISOR_LABEL: labels[SUPERVISOR_LABEL]}
        policies.append(
            {
                "metadata": supervisor["metadata"],
                "spec": {
                    "podSelector": {"matchLabels": selector},
                    "policyTypes": ["Ingress", "Egress"],
                    "egress": _dns_and_api_server(job),
                },
            }
        )
    return policies
