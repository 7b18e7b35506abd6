"""``spec.network.policy``: the job's opt-in NetworkPolicy, and where its pods may connect to."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from t2gen.record import Record

__all__ = [
    "API_SERVER_PORTS",
    "ZOO_KEEPER_PORT",
    "EgressDestination",
    "NetworkPolicy",
    "network_policy",
    "uri_port",
    "zoo_keeper_ports",
]


API_SERVER_PORTS = (443, 6443)
"""The API server's ports when ``apiServer.ports`` names none: the ``kubernetes`` Service's
port (443) and the port kubeadm's API server listens on behind it (6443); most network
plugins apply a policy after the Service address is translated, some before."""


class EgressDestination(Record):
    """Somewhere the pods may connect to, by address: a NetworkPolicy egress rule.

    Attributes:
        cidrs: address blocks (``ipBlock.cidr``); empty for any address.
        ports: destination ports; empty for every port (or, for a destination
            whose ports derive from the job, those).
        protocol: ``TCP``, ``UDP`` or ``SCTP``.
    """

    cidrs: tuple[str, ...] = ()
    ports: tuple[int, ...] = ()
    protocol: str = "TCP"


class NetworkPolicy(Record):
    """``spec.network.policy``.

    Attributes:
        enabled: render the NetworkPolicy ``<job>``.
        api_server: the API server's addresses and ports.
        package_source: the addresses (and ports) of ``jobPackage.uri``.
        zoo_keeper: the addresses (and ports) of the ZooKeeper servers.
        egress: any other destination.
    """

    enabled: bool = False
    api_server: EgressDestination = EgressDestination(ports=API_SERVER_PORTS)
    package_source: EgressDestination = EgressDestination()
    zoo_keeper: EgressDestination = EgressDestination()
    egress: tuple[EgressDestination, ...] = ()


def _destination(raw: dict[str, Any], ports: tuple[int, ...] = ()) -> EgressDestination:
    return EgressDestination(
        cidrs=tuple(raw["cidrs"]),
        ports=tuple(raw["ports"]) or ports,
        protocol=raw["protocol"],
    )


def network_policy(raw: dict[str, Any]) -> NetworkPolicy:
    """The typed ``spec.network.policy`` of a validated document with its defaults applied.

    Raises:
        KeyError: the document was not validated first (a t2gen bug).
    """
    return NetworkPolicy(
        enabled=raw["enabled"],
        api_server=_destination(raw["apiServer"], API_SERVER_PORTS),
        package_source=_destination(raw["packageSource"]),
        zoo_keeper=_destination(raw["zooKeeper"]),
        egress=tuple(_destination(entry) for entry in raw["egress"]),
    )


ZOO_KEEPER_PORT = 2181
"""ZooKeeper's client port when an address gives none (ZooKeeper's ``ConnectStringParser``)."""
_SCHEME_PORTS = {"http": 80, "https": 443}


def uri_port(uri: str) -> int | None:
    """The port a download of ``uri`` connects to: the URI's own, else 80 for http, 443 for https; None if unknown."""
    parts = urlsplit(uri)
    try:
        port = parts.port
    except ValueError:
        return None
    return port if port is not None else _SCHEME_PORTS.get(parts.scheme.lower())


def zoo_keeper_ports(addresses: str) -> list[int]:
    """The ports of ``host:port,host:port`` (2181 for an address without one), sorted, each once."""
    ports = set()
    for address in addresses.split(","):
        host, colon, port = address.strip().rpartition(":")
        ports.add(
            int(port)
            if colon and port.isdigit() and not host.endswith(":")
            else ZOO_KEEPER_PORT
        )
    return sorted(ports)
