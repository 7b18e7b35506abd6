"""Kubernetes' rules for names, label keys and values, and port names: the one home of these patterns.

Every pattern and length here is Kubernetes' own, from
``k8s.io/apimachinery/pkg/util/validation/validation.go`` (kubernetes/kubernetes,
``staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go``):
``IsDNS1123Label``, ``IsDNS1123Subdomain``, ``IsDNS1035Label``,
``IsQualifiedName``, ``IsValidLabelValue`` and ``IsValidPortName``. The job
schema (``schemas/twister2job.schema.json``) states the same patterns for
editors; a test keeps the two in step.
"""

from __future__ import annotations

import re
from typing import TypeGuard

__all__ = [
    "DEPRECATED_NODE_LABELS",
    "DNS1123_LABEL_MAX",
    "DNS1123_SUBDOMAIN_MAX",
    "JOB_NAME_MAX",
    "LABEL_VALUE_MAX",
    "PORT_NAME_MAX",
    "STATEFULSET_NAME_MAX",
    "is_api_version",
    "is_dns1035_label",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_kind",
    "is_label_value",
    "is_port_name",
    "is_qualified_name",
]

DNS1123_LABEL_MAX = 63
"""Most characters of a DNS-1123 label (namespaces, Service names, hostnames)."""

DNS1123_SUBDOMAIN_MAX = 253
"""Most characters of a DNS-1123 subdomain (most object names; label-key prefixes)."""

LABEL_VALUE_MAX = 63
"""Most characters of a label value, and of the name part of a label key."""

PORT_NAME_MAX = 15
"""Most characters of a container or Service port name (IANA_SVC_NAME)."""

STATEFULSET_NAME_MAX = 52
"""Most characters of a StatefulSet name.

The controller labels each pod with ``controller-revision-hash: <name>-<hash>``,
a 10-character hash after a dash, and that label value must fit
:data:`LABEL_VALUE_MAX` (kubernetes/kubernetes#64023).
"""

JOB_NAME_MAX = 49
"""Most characters of a Twister2 job name (``metadata.name``).

The longest object name t2gen derives from it is a worker StatefulSet,
``<job>-<index>`` with up to two index digits, which must fit
:data:`STATEFULSET_NAME_MAX`.
"""

DEPRECATED_NODE_LABELS: dict[str, str] = {
    "beta.kubernetes.io/arch": 'deprecated since v1.14; use "kubernetes.io/arch" instead',
    "beta.kubernetes.io/os": 'deprecated since v1.14; use "kubernetes.io/os" instead',
    "failure-domain.beta.kubernetes.io/region": 'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
    "failure-domain.beta.kubernetes.io/zone": 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
    "beta.kubernetes.io/instance-type": 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
    "app.kubernetes.io/created-by": "deprecated since v1.9",
    "scheduler.alpha.kubernetes.io/preferAvoidPods": "deprecated since v1.22; use Taints and Tolerations instead",
    "node-role.kubernetes.io/master": 'use "node-role.kubernetes.io/control-plane" instead',
}
"""Node label keys the API server warns about, with its words: key -> message.

The API server's ``deprecatedNodeLabels`` (kubernetes/kubernetes
``pkg/api/node/util.go``), which ``pkg/api/pod/warnings.go`` uses to warn, on
every create or update of a pod template, about ``nodeSelector`` keys and node
affinity expressions (``<path>.key: <key> is <message>``).
"""

_DNS1123_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL = r"[a-z]([-a-z0-9]*[a-z0-9])?"
_QUALIFIED_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"
_PORT_NAME = r"[a-z0-9]([a-z0-9]|-(?=[a-z0-9]))*"


_DNS1123_SUBDOMAIN = rf"{_DNS1123_LABEL}(\.{_DNS1123_LABEL})*"
# Used as re.fullmatch(PATTERN, value): re compiles each on first use and keeps it.


def is_dns1123_label(value: object) -> bool:
    """Whether ``value`` is a DNS-1123 label: lower-case alphanumerics and '-', at most 63."""
    return (
        isinstance(value, str)
        and len(value) <= DNS1123_LABEL_MAX
        and re.fullmatch(_DNS1123_LABEL, value) is not None
    )


def is_dns1035_label(value: object) -> bool:
    """Whether ``value`` is a DNS-1035 label (a DNS-1123 label starting with a letter): Service names."""
    return (
        isinstance(value, str)
        and len(value) <= DNS1123_LABEL_MAX
        and re.fullmatch(_DNS1035_LABEL, value) is not None
    )


def is_dns1123_subdomain(value: object) -> bool:
    """Whether ``value`` is a DNS-1123 subdomain: dot-separated labels, at most 253 in all."""
    return (
        isinstance(value, str)
        and len(value) <= DNS1123_SUBDOMAIN_MAX
        and re.fullmatch(_DNS1123_SUBDOMAIN, value) is not None
    )


def is_kind(value: object) -> TypeGuard[str]:
    """Whether ``value`` can be an object's ``kind``: a DNS-1035 label once lower-cased.

    The API server takes kinds only from the types it serves, and a custom
    resource's ``names.kind`` must lower-case to a DNS-1035 label
    (kubernetes/kubernetes ``staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go``,
    ``ValidateCustomResourceDefinitionNames``): letters, digits and ``-``, at
    most 63, starting with a letter. So a kind is a name, never a path
    (``../x``): t2gen finds schemas by it.
    """
    return isinstance(value, str) and is_dns1035_label(value.lower())


def is_api_version(value: object) -> TypeGuard[str]:
    """Whether ``value`` can be an object's ``apiVersion``: ``[group/]version``.

    The group is a DNS-1123 subdomain, the version a DNS-1035 label (``v1``,
    ``v1beta1``), as a custom resource's group and ``versions[].name`` must be
    (the same ``validation.go``).
    """
    if not isinstance(value, str):
        return False
    group, slash, version = value.rpartition("/")
    return (not slash or is_dns1123_subdomain(group)) and is_dns1035_label(version)


def is_qualified_name(value: object) -> bool:
    """Whether ``value`` is a label or annotation key: ``[prefix/]name``.

    The optional prefix is a DNS-1123 subdomain; the name is at most 63 letters,
    digits, '-', '_' and '.', starting and ending with a letter or digit.
    """
    if not isinstance(value, str):
        return False
    prefix, slash, name = value.rpartition("/")
    if slash and not is_dns1123_subdomain(prefix):
        return False
    return (
        len(name) <= LABEL_VALUE_MAX and re.fullmatch(_QUALIFIED_NAME, name) is not None
    )


def is_label_value(value: object) -> bool:
    """Whether ``value`` is a label value: empty, or a qualified name's name part (at most 63)."""
    return isinstance(value, str) and (
        value == ""
        or (
            len(value) <= LABEL_VALUE_MAX
            and re.fullmatch(_QUALIFIED_NAME, value) is not None
        )
    )


def is_port_name(value: object) -> bool:
    """Whether ``value`` is a port name (IANA_SVC_NAME).

    At most 15 lower-case letters, digits and '-', with at least one letter,
    no '--', and neither starting nor ending with '-'.
    """
    return (
        isinstance(value, str)
        and len(value) <= PORT_NAME_MAX
        and re.fullmatch(_PORT_NAME, value) is not None
        and any("a" <= char <= "z" for char in value)
    )
