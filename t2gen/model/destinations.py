"""Where a job's pods connect that ``spec.network.policy`` must let them: the Twister2 dashboard and HDFS.

A NetworkPolicy allows only what its rules name (docs/network-policy.md). Two
destinations come from the job's configuration rather than from the manifests:

* the **Twister2 dashboard**, ``twister2.dashboard.host``: set, the job master
  registers the job there first, before it listens for the workers
  (DSC-SPIDAL/twister2 ``twister2/master/src/java/edu/iu/dsc/tws/master/server/JobMaster.java:238-245,276-284``).
  Its HTTP client sets no timeout (``master/dashclient/DashboardClient.java:54-66,106-107``),
  so a connection the policy drops waits for the kernel's connect timeout,
  about 2 minutes (Linux's ``tcp_syn_retries`` of 6: 127 s), past the 100 s a
  worker tries to reach the job master (``master/worker/JMWorkerAgent.java:122,205-209``):
  every worker fails and restarts.
* **HDFS checkpoint storage** (``checkpointing.storageType: hdfs``): the
  checkpoint store's file system is ``hdfs://<twister2.data.hdfs.namenode>:
  <twister2.data.hdfs.namenode.port>`` (``twister2/checkpointing/src/java/edu/iu/dsc/
  tws/checkpointing/stores/HDFSFileStateStore.java:39-50``; ``twister2/data/src/main/
  java/edu/iu/dsc/tws/data/utils/FileSystemUtils.java:276,294-298``; code defaults
  ``hostname.domain.name`` and 9000, ``HdfsDataContext.java:33-38``), and the
  HDFS client then reads and writes blocks on the data nodes, whose addresses
  and ports only the HDFS cluster knows.

The pods read these keys from the job package's configuration, overridden by
the job's ``JobConfig`` (``spec.jobConfig``: ``JobUtils.overrideConfigs``, called
by ``K8S/master/JobMasterStarter.java:84`` and ``K8S/worker/K8sWorkerStarter.java:99``).
:func:`destinations` finds them from both; :func:`dashboard_peer` is the one
destination the policy can name by labels (Twister2's own dashboard Service,
which the render allows); :func:`allowed` says whether ``network.policy.egress``
lets the pods reach the others.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from urllib.parse import urlsplit

from t2gen.model.isolation import NetworkPolicy, uri_port
from t2gen.model.runtime import Checkpointing
from t2gen.record import Record
from t2gen.twister2 import confkeys as k

__all__ = [
    "DASHBOARD_LABELS",
    "DASHBOARD_PORT",
    "DASHBOARD_SERVICE",
    "Destination",
    "Setting",
    "allowed",
    "dashboard_peer",
    "destinations",
    "job_config_settings",
    "warning_text",
    "warnings_of",
]

DASHBOARD_SERVICE = "twister2-dashboard"
"""Twister2's dashboard Service and StatefulSet (``conf/kubernetes/deployment/twister2-dashboard-wo-ps.yaml:17-29``),
the host ``conf/kubernetes/core.yaml:44-45`` suggests: ``http://twister2-dashboard.default.svc.cluster.local``."""
DASHBOARD_LABELS = {"app": "twister2-dashboard"}
"""Its pods' labels (``twister2-dashboard-wo-ps.yaml:28-29,51-54``)."""
DASHBOARD_PORT = 8080
"""Its container port behind the Service's port 80 (``twister2-dashboard-wo-ps.yaml:25-27,66-69``):
a policy sees the connection at the pod, after the Service's translation."""


class Setting(Record):
    """A configuration value the pods read, and where it is set.

    Attributes:
        value: the value.
        job_path: its place in the job file (``spec.jobConfig.<key>``), or None.
        at: its place in the job package (``pkg.tar.gz:twister2-job/common/core.yaml:78``), or None.
    """

    value: object
    job_path: tuple[str | int, ...] | None = None
    at: str | None = None


class Destination(Record):
    """Somewhere the job's pods connect to by configuration.

    Attributes:
        what: ``the Twister2 dashboard`` or ``HDFS's name node``.
        key: the configuration key naming its host.
        host: the host, or None when only the job package knows it (no ``--package``).
        port: its port (None with an unknown host).
        setting: where the host is set, or None (a code default, or unknown).
        url: the dashboard's URL as configured ("" for HDFS).
    """

    what: str
    key: str
    host: str | None
    port: int | None
    setting: Setting | None = None
    url: str = ""


def job_config_settings(job_config: Mapping[str, object]) -> dict[str, Setting]:
    """``spec.jobConfig`` as settings, each at its place in the job file."""
    return {
        key: Setting(value, job_path=("spec", "jobConfig", key))
        for key, value in job_config.items()
    }


def _port(value: object, default: int) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 < value < 65536 else None
    if isinstance(value, str) and value.strip().isdigit():
        return _port(int(value.strip()), default)
    return default if value is None else None


def destinations(
    settings: Mapping[str, Setting],
    checkpointing: Checkpointing,
    *,
    package_known: bool,
) -> list[Destination]:
    """The dashboard (when configured) and HDFS's name node (when checkpoints go to HDFS).

    Args:
        settings: the configuration the pods read: the package's (with
            ``--package``), with ``spec.jobConfig`` over it.
        checkpointing: ``spec.checkpointing``.
        package_known: the package's configuration is in ``settings``; without
            it an unset name node is the package's to say (``host`` None), with
            it Twister2's code default.
    """
    found = []
    dashboard = settings.get(k.DASHBOARD_HOST)
    if dashboard is not None and isinstance(dashboard.value, str) and dashboard.value:
        url = dashboard.value
        parts = urlsplit(url)
        found.append(
            Destination(
                "the Twister2 dashboard",
                k.DASHBOARD_HOST,
                parts.hostname or url,
                uri_port(url),
                dashboard,
                url,
            )
        )
    if checkpointing.enabled and checkpointing.storage_type == "hdfs":
        node = settings.get(k.HDFS_NAMENODE)
        port = settings.get(k.HDFS_NAMENODE_PORT)
        host: str | None = None
        if node is not None and isinstance(node.value, str):
            host = node.value
        elif package_known:
            host = str(k.DEFAULTS[k.HDFS_NAMENODE])
        found.append(
            Destination(
                "HDFS's name node",
                k.HDFS_NAMENODE,
                host,
                None
                if host is None
                else _port(
                    port.value if port else None,
                    int(str(k.DEFAULTS[k.HDFS_NAMENODE_PORT])),
                ),
                node,
            )
        )
    return found


def dashboard_peer(destination: Destination) -> str | None:
    """The namespace of Twister2's own dashboard Service the URL names, "" for the job's own, or None.

    ``http://twister2-dashboard[.<namespace>[.svc[.cluster.local]]]`` on the
    Service's port 80: a policy can name its pods (:data:`DASHBOARD_LABELS` in
    that namespace, on :data:`DASHBOARD_PORT`), so the render allows exactly
    them; any other URL is an address the policy's ``egress`` must allow.
    """
    if destination.key != k.DASHBOARD_HOST or destination.host is None:
        return None
    parts = urlsplit(destination.url)
    labels = destination.host.rstrip(".").split(".")
    if parts.scheme.lower() != "http" or destination.port != 80:
        return None
    if labels[0] != DASHBOARD_SERVICE or len(labels) > 5:
        return None
    if labels[2:] not in ([], ["svc"], ["svc", "cluster", "local"]):
        return None
    return labels[1] if len(labels) > 1 else ""


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def allowed(policy: NetworkPolicy, destination: Destination) -> bool:
    """Whether an entry of ``network.policy.egress`` lets the pods reach ``destination``.

    An entry allows its ports (every port without any) on its ``cidrs`` (every
    address without any), over TCP, which HTTP and HDFS use. A host written as
    an address must lie in a block; a host name cannot be judged (a policy
    names no host), so an entry allowing the port is taken to mean it. A host
    only the package knows (``host`` None) is taken as allowed when any entry
    exists, since t2gen cannot tell which.
    """
    if destination.host is None:
        return bool(policy.egress)
    address = _address(destination.host)
    for entry in policy.egress:
        if entry.protocol != "TCP":
            continue
        if entry.ports and destination.port not in entry.ports:
            continue
        if not entry.cidrs or address is None:
            return True
        for cidr in entry.cidrs:
            try:
                if address in ipaddress.ip_network(cidr, strict=False):
                    return True
            except (ValueError, TypeError):
                continue
    return False


_DASHBOARD_HANG = (
    "the job master registers the job there before it listens for the workers, and a "
    "connection the policy drops waits about 2 minutes, past the 100 s a worker tries to "
    "reach the job master, so every worker fails and restarts (JobMaster.java:276-284, "
    "DashboardClient.java:54-66, JMWorkerAgent.java:122,205-209)"
)
_DATA_NODES = (
    "and the data nodes, where the HDFS client reads and writes blocks (their transfer port: "
    "dfs.datanode.address, 9866 by Hadoop 3's default, 50010 by Hadoop 2's)"
)


def warning_text(destination: Destination) -> str:
    """Why ``destination`` is a problem under the job's NetworkPolicy, and what to add."""
    setting = destination.setting
    where = f", in the job package at {setting.at}" if setting and setting.at else ""
    if destination.key == k.DASHBOARD_HOST:
        address = _address(destination.host or "")
        block = (
            f"{address}/{address.max_prefixlen}"
            if address is not None
            else f"<{destination.host}'s address>/32"
        )
        return (
            f"network.policy lets no pod reach the Twister2 dashboard at {destination.url} "
            f"({destination.key}{where}) on port {destination.port}: {_DASHBOARD_HANG}; add "
            f"network.policy.egress: [{{cidrs: [{block}], ports: "
            f"[{destination.port}]}}], or run the dashboard as Twister2 ships it "
            f"(http://{DASHBOARD_SERVICE}.<namespace>.svc.cluster.local, which t2gen allows), "
            f"or leave {destination.key} unset"
        )
    if destination.host is None:
        return (
            "checkpoints go to HDFS, but network.policy allows no egress entry: the pods "
            "could not reach HDFS's name node (twister2.data.hdfs.namenode and .port of the "
            f"job package's configuration) {_DATA_NODES}; add network.policy.egress entries "
            "for them, and render with --package to have t2gen check the package's name node"
        )
    named = (
        f"{destination.key}{where}"
        if setting is not None
        else f"{destination.key} is not set, so Twister2's default (HdfsDataContext.java:33-38), "
        "which names no host: set it in the package's configuration"
    )
    return (
        f"checkpoints go to HDFS, whose name node is {destination.host}:{destination.port} "
        f"({named}), but network.policy lets no pod reach it on port {destination.port}: the "
        "checkpoint store could not connect (HDFSFileStateStore.java:39-50); add "
        f"network.policy.egress entries for the name node (cidrs of {destination.host}, "
        f"ports: [{destination.port}]) {_DATA_NODES}"
    )


def warnings_of(
    policy: NetworkPolicy,
    settings: Mapping[str, Setting],
    checkpointing: Checkpointing,
    *,
    package_known: bool,
) -> list[tuple[tuple[str | int, ...], str]]:
    """``(job-file path, message)`` for each configured destination the enabled policy does not allow.

    Located where the job file configures the destination (a ``spec.jobConfig``
    key, ``spec.checkpointing.storageType``), else at ``spec.network.policy``
    (a destination only the package names). Twister2's own dashboard Service
    is allowed by the policy itself (:func:`dashboard_peer`).
    """
    if not policy.enabled:
        return []
    found = []
    for destination in destinations(
        settings, checkpointing, package_known=package_known
    ):
        if dashboard_peer(destination) is not None or allowed(policy, destination):
            continue
        setting = destination.setting
        path: tuple[str | int, ...] = ("spec", "network", "policy")
        if setting is not None and setting.job_path is not None:
            path = setting.job_path
        elif destination.key == k.HDFS_NAMENODE:
            path = ("spec", "checkpointing", "storageType")
        found.append((path, warning_text(destination)))
    return found
