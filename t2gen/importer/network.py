"""The network: worker ports, the protocol, the NodePort Service, and the channel (OpenMPI).

A requested NodePort Service replaces the headless one under the same name
``<job>``, in Twister2 and in t2gen alike (so the job master deletes it). A missing ``twister2.network.channel.class`` means TWSMPIChannel, the
code default (``SchedulerContext.java:43-44``), so such a job is an OpenMPI job.
"""

from __future__ import annotations

from t2gen.importer.ports import convert_additional_ports
from t2gen.importer.state import Conversion, named

__all__ = ["convert_mpi", "convert_network"]


def convert_network(conv: Conversion) -> None:
    """spec.network: base port, protocol, additional ports and the NodePort Service."""
    conv.field("kubernetes.worker.base.port", ("spec", "network", "basePort"))
    got = conv.get("kubernetes.worker.transport.protocol")
    if got is not None:
        conv.field(
            "kubernetes.worker.transport.protocol",
            ("spec", "network", "protocol"),
            got[1].upper(),
        )
    convert_additional_ports(conv)
    requested = conv.get("kubernetes.node.port.service.requested")
    node_port = conv.get("kubernetes.service.node.port")
    if requested is not None and requested[1]:
        conv.put(
            ("spec", "network", "service", "type"),
            "NodePort",
            named(requested[0]),
            requested[0].at(),
        )
        if node_port is not None and node_port[1] != 0:
            conv.field(
                "kubernetes.service.node.port",
                ("spec", "network", "service", "nodePort"),
            )
    elif node_port is not None:
        conv.skip(
            node_port[0], "ignored: kubernetes.node.port.service.requested is not true"
        )


def convert_mpi(conv: Conversion) -> None:
    """spec.mpi from the channel class (unset means TWSMPIChannel), and the JVM heap fraction."""
    channel = conv.get("twister2.network.channel.class")
    secret = conv.get("kubernetes.secret.name")
    if channel is None:
        conv.put(
            ("spec", "mpi", "enabled"),
            True,
            "twister2.network.channel.class",
            None,
            "not set; Twister2's default is TWSMPIChannel",
        )
        conv.warn(
            conv.commented_at("twister2.network.channel.class"),
            "twister2.network.channel.class",
            "not set, and Twister2's default channel is TWSMPIChannel: imported as an OpenMPI job "
            "(mpi.enabled: true); set it to edu.iu.dsc.tws.comms.tcp.TWSTCPChannel for a regular job",
        )
        enabled = True
    else:
        enabled = conv.is_mpi
        if enabled:
            conv.field(
                "twister2.network.channel.class",
                ("spec", "mpi", "enabled"),
                True,
                "TWSMPIChannel",
            )
    if secret is not None:
        if enabled:
            conv.field("kubernetes.secret.name", ("spec", "mpi", "sshSecretName"))
        else:
            conv.skip(
                secret[0],
                "used only by OpenMPI jobs; this one uses "
                + str(channel[1] if channel else ""),
            )
    # The workers' heap share (K8S/RequestObjectBuilder.java:368-369); t2gen's job master keeps 80%.
    conv.field("twister2.kubernetes.jvm.memory.fraction", ("spec", "jvmMemoryFraction"))
