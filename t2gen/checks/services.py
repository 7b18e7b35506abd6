"""Checks of Services: headless or not, port numbers, NodePorts and port names."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.checks.base import Check, Finding, as_dict, as_list, check, hashable
from t2gen.checks.stream import Stream

__all__ = ["SERVICE_CHECKS"]

_PORT_MAX = 65535
_NODE_PORTS = (30000, 32767)
"""The API server's default ``--service-node-port-range``."""
_EXTERNAL = ("NodePort", "LoadBalancer")


def _spec(obj: dict[str, Any]) -> dict[str, Any]:
    return as_dict(obj.get("spec"))


@check("service-headless-type")
def service_headless_type(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """A NodePort or LoadBalancer Service is not headless (``clusterIP: None``).

    Source: kubernetes/kubernetes ``pkg/apis/core/validation`` (``ValidateService``:
    "may not be set to 'None' for LoadBalancer or NodePort services");
    https://kubernetes.io/docs/concepts/services-networking/service/#headless-services
    """
    spec = _spec(obj)
    kind = spec.get("type", "ClusterIP")
    if spec.get("clusterIP") == "None" and kind in _EXTERNAL:
        yield "spec.clusterIP", f"a {kind} Service cannot be headless (clusterIP: None)"


@check("service-ports")
def service_ports(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """Service ports are 1-65535 with unique names; NodePorts only on NodePort/LoadBalancer Services, in 30000-32767.

    30000-32767 is the API server's default ``--service-node-port-range``; a
    cluster may widen it, so outside it is reported as outside the default.
    Source: kubernetes/kubernetes ``pkg/apis/core/validation`` (``ValidateService``);
    https://kubernetes.io/docs/concepts/services-networking/service/#type-nodeport
    """
    spec = _spec(obj)
    kind = spec.get("type", "ClusterIP")
    names: set[str] = set()
    for index, port in enumerate(as_list(spec.get("ports"))):
        port = as_dict(port)
        path = f"spec.ports[{index}]"
        if not isinstance(port.get("port"), int) or not 1 <= port["port"] <= _PORT_MAX:
            yield f"{path}.port", f"{port.get('port')!r} is not a port (1-65535)"
        node_port = port.get("nodePort")
        if node_port is not None:
            low, high = _NODE_PORTS
            if kind not in _EXTERNAL:
                yield f"{path}.nodePort", f"set on a {kind} Service"
            elif not isinstance(node_port, int) or not low <= node_port <= high:
                yield (
                    f"{path}.nodePort",
                    f"{node_port!r} is outside the default NodePort range {low}-{high}",
                )
        name = port.get("name")
        if name is not None and hashable(name):
            if name in names:
                yield f"{path}.name", f"duplicate port name {name!r}"
            names.add(name)


@check("service-port-names-required")
def service_port_names_required(
    obj: dict[str, Any], stream: Stream
) -> Iterator[Finding]:
    """Every port of a Service with more than one port has a name.

    Source: kubernetes/kubernetes ``pkg/apis/core/validation`` (``ValidateService``);
    https://kubernetes.io/docs/concepts/services-networking/service/#multi-port-services
    """
    ports = as_list(_spec(obj).get("ports"))
    if len(ports) > 1 and any("name" not in as_dict(p) for p in ports):
        yield "spec.ports", "every port of a multi-port Service needs a name"


SERVICE_CHECKS: tuple[Check, ...] = (
    service_headless_type,
    service_ports,
    service_port_names_required,
)
"""Checks of Services, in order."""
