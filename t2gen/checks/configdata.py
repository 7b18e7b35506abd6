"""Checks of configuration objects: how much a ConfigMap or a Secret may hold.

The API server refuses a ConfigMap whose ``data`` and ``binaryData`` values
total more than 1 MiB, and a Secret whose ``data`` does: kubernetes/kubernetes
``pkg/apis/core/validation/validation.go``, ``ValidateConfigMap`` and
``ValidateSecret`` (``totalSize += len(value)`` for each value, then
``if totalSize > core.MaxSecretSize``: ``field.TooLong``), with
``MaxSecretSize = 1 * 1024 * 1024`` in ``pkg/apis/core/types.go``. The keys do
not count; a ``binaryData`` or Secret ``data`` value counts decoded (it is
``[]byte`` in the API, base64 only on the wire), and a Secret's ``stringData``
is merged into ``data`` before validation (``pkg/apis/core/v1/conversion.go``,
``Convert_v1_Secret_To_core_Secret``), a key of both taking ``stringData``'s
value. A YAML alias counts as many times as it is expanded: the API server
receives JSON, where every alias is written out.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from typing import Any

from t2gen.checks.base import Check, Finding, as_dict, check
from t2gen.checks.stream import Stream
from t2gen.kube.limits import CONFIG_MAP_LIMIT_BYTES

__all__ = ["CONFIG_MAP_CHECKS", "SECRET_CHECKS", "config_map_bytes", "secret_bytes"]


def _text_bytes(value: Any) -> int:
    """Bytes of a ``data`` value as the API server stores it (UTF-8); 0 for a non-string."""
    return len(value.encode("utf-8", "surrogatepass")) if isinstance(value, str) else 0


def _decoded_bytes(value: Any) -> int:
    """Bytes a base64 value decodes to; its length if it is no base64 (the schema says so)."""
    if not isinstance(value, str):
        return 0
    try:
        return len(base64.b64decode(value, validate=True))
    except (binascii.Error, ValueError):
        return _text_bytes(value)


def config_map_bytes(obj: dict[str, Any]) -> int:
    """The bytes of a ConfigMap that count against 1 MiB: every ``data`` value, every ``binaryData`` value decoded."""
    data = as_dict(obj.get("data"))
    binary = as_dict(obj.get("binaryData"))
    return sum(_text_bytes(value) for value in data.values()) + sum(
        _decoded_bytes(value) for value in binary.values()
    )


def secret_bytes(obj: dict[str, Any]) -> int:
    """The bytes of a Secret that count against 1 MiB: ``data`` decoded, with ``stringData`` merged over it."""
    sizes = {
        key: _decoded_bytes(value) for key, value in as_dict(obj.get("data")).items()
    }
    for key, value in as_dict(obj.get("stringData")).items():
        sizes[key] = _text_bytes(value)
    return sum(sizes.values())


def _too_large(kind: str, size: int, fields: str) -> str:
    return (
        f"holds {size:,} bytes of {fields}, but the API server refuses a {kind} of more than "
        f"{CONFIG_MAP_LIMIT_BYTES:,} bytes (1 MiB): split it into several {kind}s, or mount "
        "the data from a volume"
    )


@check("configmap-size")
def configmap_size(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """A ConfigMap's ``data`` and ``binaryData`` values hold at most 1 MiB together.

    The values only: keys do not count, a ``binaryData`` value counts decoded.
    Source: kubernetes/kubernetes ``pkg/apis/core/validation/validation.go``
    (``ValidateConfigMap``: ``totalSize > core.MaxSecretSize``);
    https://kubernetes.io/docs/concepts/configuration/configmap/#motivation
    ("The data stored in a ConfigMap cannot exceed 1 MiB").
    """
    size = config_map_bytes(obj)
    if size > CONFIG_MAP_LIMIT_BYTES:
        yield "data", _too_large("ConfigMap", size, "data and binaryData")


@check("secret-size")
def secret_size(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """A Secret's ``data`` (decoded, with ``stringData`` merged over it) holds at most 1 MiB.

    Source: kubernetes/kubernetes ``pkg/apis/core/validation/validation.go``
    (``ValidateSecret``: ``totalSize > core.MaxSecretSize``);
    https://kubernetes.io/docs/concepts/configuration/secret/#restriction-data-size
    ("Individual Secrets are limited to 1MiB in size").
    """
    size = secret_bytes(obj)
    if size > CONFIG_MAP_LIMIT_BYTES:
        yield "data", _too_large("Secret", size, "data and stringData")


CONFIG_MAP_CHECKS: tuple[Check, ...] = (configmap_size,)
"""Checks of ConfigMaps."""

SECRET_CHECKS: tuple[Check, ...] = (secret_size,)
"""Checks of Secrets."""
