"""Isolation: the opt-in NetworkPolicy (``spec.network.policy``) and the package's uploader."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules._base import (
    Rule,
    RuleOptions,
    as_dict,
    as_list,
    problem,
    rule,
    warning,
)
from t2gen.model.destinations import job_config_settings, warnings_of
from t2gen.model.isolation import (
    EgressDestination,
    NetworkPolicy,
    uri_port,
    zoo_keeper_ports,
)
from t2gen.model.runtime import Checkpointing

_PORT_MAX = 65535


def _policy(data: dict[str, Any]) -> dict[str, Any] | None:
    """``spec.network.policy`` when ``enabled``, else None."""
    policy = as_dict(as_dict(as_dict(data.get("spec")).get("network")).get("policy"))
    return policy if policy.get("enabled") is True else None


@rule("network-policy-egress-open", fields=("spec.network.policy.egress",))
def check_egress_open(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Every ``network.policy.egress`` entry names addresses (``cidrs``) or ``ports``.

    An egress rule with neither ``to`` nor ``ports`` allows every connection to
    every address (https://kubernetes.io/docs/concepts/services-networking/network-policies/#behavior-of-to-and-from-selectors),
    which would undo the policy's egress isolation without saying so; write no
    policy (``enabled: false``) if that is what is meant.
    """
    policy = _policy(data)
    for index, entry in enumerate(as_list((policy or {}).get("egress"))):
        entry = as_dict(entry)
        if not as_list(entry.get("cidrs")) and not as_list(entry.get("ports")):
            yield problem(
                doc,
                ("spec", "network", "policy", "egress", index),
                "this egress entry names no cidrs and no ports, so it would let the pods "
                "connect anywhere; give the cidrs or ports the job's code connects to",
            )


@rule(
    "network-policy-package-port",
    fields=(
        "spec.network.policy.enabled",
        "spec.network.policy.packageSource.ports",
        "spec.jobPackage.uri",
        "spec.jobPackage.uploadMethod",
    ),
)
def check_package_port(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """With a NetworkPolicy, the port of ``jobPackage.uri`` is known: the URI's own, http or https, or ``packageSource.ports``.

    A NetworkPolicy cannot name a host, so the pods' download of the package is
    allowed by port (and, with ``packageSource.cidrs``, address); a URI with
    another scheme and no port gives none, and the download would be refused.
    """
    policy = _policy(data)
    package = as_dict(as_dict(data.get("spec")).get("jobPackage"))
    uri = package.get("uri")
    if policy is None or package.get("uploadMethod") != "webserver":
        return
    if not isinstance(uri, str) or as_list(
        as_dict(policy.get("packageSource")).get("ports")
    ):
        return
    if uri_port(uri) is None:
        yield problem(
            doc,
            ("spec", "jobPackage", "uri"),
            "the NetworkPolicy must let the pods reach this URI, but it gives no port (and "
            "is not http or https); give network.policy.packageSource.ports",
        )


@rule(
    "network-policy-zookeeper-ports",
    fields=(
        "spec.network.policy.enabled",
        "spec.network.policy.zooKeeper.ports",
        "spec.zooKeeper.serverAddresses",
    ),
)
def check_zookeeper_ports(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """With a NetworkPolicy, every port of ``zooKeeper.serverAddresses`` is a port (1-65535), or ``zooKeeper.ports`` says which.

    The policy lets the pods reach ZooKeeper on the addresses' ports (2181 for an
    address without one); a NetworkPolicy port must lie in 1-65535.
    """
    policy = _policy(data)
    addresses = as_dict(as_dict(data.get("spec")).get("zooKeeper")).get(
        "serverAddresses"
    )
    if policy is None or not isinstance(addresses, str):
        return
    if as_list(as_dict(policy.get("zooKeeper")).get("ports")):
        return
    bad = [port for port in zoo_keeper_ports(addresses) if not 1 <= port <= _PORT_MAX]
    if bad:
        yield problem(
            doc,
            ("spec", "zooKeeper", "serverAddresses"),
            f"port {bad[0]} is not a port (1-{_PORT_MAX}); correct the address, or give "
            "network.policy.zooKeeper.ports",
        )


@rule(
    "package-uploader-unused",
    fields=(
        "spec.jobPackage.uploader",
        "spec.jobPackage.uri",
        "spec.jobPackage.uploadMethod",
    ),
)
def check_uploader_unused(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``jobPackage.uploader: job-namespace`` goes with ``uploadMethod: webserver`` and no ``uri``.

    The uploader is where the pods download the package from when no ``uri``
    says otherwise; with a ``uri``, or with ``client-to-pods`` (the client
    copies the package into the pods), it would be silently ignored.
    """
    package = as_dict(as_dict(data.get("spec")).get("jobPackage"))
    if package.get("uploader") != "job-namespace":
        return
    if package.get("uploadMethod") != "webserver":
        why = "uploadMethod client-to-pods copies the package into the pods"
    elif "uri" in package:
        why = "the pods download the package from jobPackage.uri"
    else:
        return
    yield problem(
        doc,
        ("spec", "jobPackage", "uploader"),
        f"jobPackage.uploader is not used: {why}; remove one of them",
        key=True,
    )


@rule(
    "network-policy-cidr",
    fields=(
        "spec.network.policy.apiServer.cidrs",
        "spec.network.policy.packageSource.cidrs",
        "spec.network.policy.zooKeeper.cidrs",
        "spec.network.policy.egress[].cidrs",
    ),
)
def check_cidrs(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Every ``cidrs`` entry is an address block as the API server writes one.

    The schema's pattern admits the shape; an octet over 255, a block with
    host bits set (``10.1.2.3/8``), an IPv4-mapped IPv6 block
    (``::ffff:10.0.0.0/104``) or an IPv6 block not in RFC 5952's canonical
    form (``2001:DB8::/32``, ``2001:0db8::/32``) passes it. The API server
    refuses the first, and since KEP-4858 (IP/CIDR validation improvements,
    Kubernetes 1.33) refuses the next two under strict validation and warns of
    all three on a legacy field: kubernetes/apimachinery
    ``pkg/util/validation/ip.go``, ``parseCIDR`` (lines 134-158: "must not
    have an IPv4-mapped IPv6 address", "must not have bits set beyond the
    prefix length") and ``GetWarningsForCIDR`` (lines 210-253: "is
    ambiguous", "should be in RFC 5952 canonical format"). So each is located
    here with the block to write (Python's ``ipaddress``, whose IPv6 text is
    RFC 5952's: lower case, the longest run of zeros as ``::``).
    """
    policy = as_dict(as_dict(as_dict(data.get("spec")).get("network")).get("policy"))
    places: list[tuple[tuple[str | int, ...], Any]] = [
        ((name,), as_dict(policy.get(name)))
        for name in ("apiServer", "packageSource", "zooKeeper")
    ]
    places += [
        (("egress", index), as_dict(entry))
        for index, entry in enumerate(as_list(policy.get("egress")))
    ]
    for where, holder in places:
        for index, cidr in enumerate(as_list(holder.get("cidrs"))):
            if not isinstance(cidr, str):
                continue  # the schema reports it
            message = cidr_problem(cidr)
            if message is not None:
                path = ("spec", "network", "policy", *where, "cidrs", index)
                yield problem(doc, path, message)


def cidr_problem(cidr: str) -> str | None:
    """What is wrong with ``cidr`` as a NetworkPolicy ``ipBlock.cidr``, and what to write; None when right.

    Args:
        cidr: the block as written (``10.0.0.0/16``, ``fd00::/64``).

    Returns:
        One message (see :func:`check_cidrs` for the API server's rules it
        follows), or None for a block the API server keeps as written.
    """
    import ipaddress

    try:
        block = ipaddress.ip_network(cidr, strict=False)
    except ValueError:
        return (
            f"{cidr!r} is no address block: write one such as 10.0.0.0/16 "
            "or fd00::/64 (each IPv4 number at most 255)"
        )
    if isinstance(block, ipaddress.IPv6Network):
        mapped = block.network_address.ipv4_mapped
        if mapped is not None:
            ipv4 = (
                f"write the IPv4 block {mapped}/{block.prefixlen - 96}"
                if block.prefixlen >= 96
                else "write it as an IPv4 block"
            )
            return (
                f"{cidr!r} is an IPv4-mapped IPv6 block, which the API server refuses "
                f"(it is ambiguous): {ipv4}"
            )
    address = cidr.split("/", 1)[0]
    if ipaddress.ip_address(address) != block.network_address:
        return (
            f"{cidr!r} has host bits set, which the API server warns of "
            f"and may refuse: write {str(block)!r}"
        )
    if str(block) == cidr:
        return None
    if isinstance(block, ipaddress.IPv6Network):
        return (
            f"{cidr!r} is not in RFC 5952 canonical form, which the API server warns "
            f"of and writes back changed: write {str(block)!r}"
        )
    return (  # Python reads a prefix length of "08"; Go's netip.ParsePrefix does not
        f"{cidr!r} has a leading 0, which the API server refuses: write {str(block)!r}"
    )


def _egress(policy: dict[str, Any]) -> tuple[EgressDestination, ...]:
    """``network.policy.egress`` as read (the schema reports wrong types; they are skipped)."""
    entries = []
    for raw in as_list(policy.get("egress")):
        entry = as_dict(raw)
        cidrs = [c for c in as_list(entry.get("cidrs")) if isinstance(c, str)]
        ports = [p for p in as_list(entry.get("ports")) if isinstance(p, int)]
        protocol = entry.get("protocol", "TCP")
        entries.append(
            EgressDestination(
                cidrs=tuple(cidrs),
                ports=tuple(ports),
                protocol=protocol if isinstance(protocol, str) else "TCP",
            )
        )
    return tuple(entries)


@rule(
    "network-policy-destinations",
    fields=(
        "spec.network.policy.egress",
        "spec.jobConfig",
        "spec.checkpointing.enabled",
        "spec.checkpointing.storageType",
    ),
    options=("package",),
)
def check_destinations(
    data: dict[str, Any], doc: SourceDoc, options: RuleOptions | None = None
) -> Iterator[Problem]:
    """With a NetworkPolicy, the Twister2 dashboard and HDFS checkpoint storage the job connects to are allowed (a warning).

    Two destinations come from the job's configuration, not from the
    manifests: the dashboard (``twister2.dashboard.host``), which the job
    master registers with before it listens for the workers, with no timeout
    (DSC-SPIDAL/twister2 ``JobMaster.java:276-284``, ``DashboardClient.java:54-66``),
    so a dropped connection outlasts the workers' 100 s
    (``JMWorkerAgent.java:122,205-209``) and every worker restarts; and HDFS,
    where checkpoints go with ``checkpointing.storageType: hdfs``
    (``twister2.data.hdfs.namenode`` and ``.port``; ``HDFSFileStateStore.java:39-50``,
    ``FileSystemUtils.java:294-298``). The pods read them from the job package,
    overridden by ``spec.jobConfig`` (``JobUtils.overrideConfigs``,
    ``K8S/master/JobMasterStarter.java:84``). Twister2's own dashboard Service
    (``http://twister2-dashboard.<namespace>.svc.cluster.local``) the policy allows
    by its pods' labels; any other destination needs a ``network.policy.egress``
    entry for its port (and address, when written as one), else this warning,
    located where the destination is configured. Without ``--package`` an HDFS
    name node only the package names is judged only by whether ``egress``
    has any entry; ``--package`` checks the package's configuration instead
    (docs/network-policy.md).
    """
    if options is not None and options.package:
        return  # the package's configuration is checked with it (t2gen.package.agree)
    raw = _policy(data)
    if raw is None:
        return
    spec = as_dict(data.get("spec"))
    checkpointing = as_dict(spec.get("checkpointing"))
    storage = checkpointing.get("storageType")
    found = warnings_of(
        NetworkPolicy(enabled=True, egress=_egress(raw)),
        job_config_settings(as_dict(spec.get("jobConfig"))),
        Checkpointing(
            enabled=checkpointing.get("enabled") is True,
            storage_type=storage if isinstance(storage, str) else "mounted",
        ),
        package_known=False,
    )
    for path, message in found:
        yield warning(doc, path, message)


RULES: tuple[Rule, ...] = (
    check_egress_open,
    check_package_port,
    check_zookeeper_ports,
    check_uploader_unused,
    check_cidrs,
    check_destinations,
)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
