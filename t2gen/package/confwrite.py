"""Writing a job package's configuration: values as SnakeYAML reads them back, keys set in place.

What ``t2gen package`` writes into ``twister2-job/common/`` and
``twister2-job/kubernetes/``: every value in a form SnakeYAML 1.x (YAML 1.1,
which every pod reads it with: :mod:`t2gen.inputs.twister2conf`) reads back with
the type Twister2 expects, a key set in a user's file without touching its
other lines, and ``common/logger.properties``, which ``init.sh`` hands every JVM
(DSC-SPIDAL/twister2 ``docker/kubernetes/image/rootfs/twister2/init.sh:23,28``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from t2gen.inputs.yaml import SourceDoc
from t2gen.record import Record

__all__ = ["LOGGER_PROPERTIES", "ConfFile", "conf_file_text", "set_key", "yaml_value"]

LOGGER_PROPERTIES = """\
# java.util.logging configuration of the Twister2 JVMs (init.sh passes it as
# -Djava.util.logging.config.file); written by t2gen package.
handlers = java.util.logging.ConsoleHandler
.level = INFO
java.util.logging.ConsoleHandler.level = ALL
java.util.logging.ConsoleHandler.formatter = java.util.logging.SimpleFormatter
"""


class ConfFile(Record):
    """One configuration file of the package: ``twister2-job/<directory>/<name>``."""

    directory: str
    name: str
    data: bytes


def yaml_value(value: Any) -> str:
    """A value as YAML flow text that SnakeYAML (YAML 1.1) reads back with Twister2's types.

    Strings are double-quoted (``"yes"`` stays a string), floats always carry a
    point (``1.0``: Twister2 casts compute-resource ``cpu`` to ``Double``,
    ``Twister2Job.java:403``), integers are plain (``Integer``), None is ``null``
    (a key that is not set: Twister2's ``Config`` keeps it in a ``HashMap``).
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value) if math.isfinite(value) else "0.0"
        if "e" in text or "E" in text:
            text = format(value, "f")
        return text if "." in text else text + ".0"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(yaml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return (
            "{" + ", ".join(f"{key}: {yaml_value(v)}" for key, v in value.items()) + "}"
        )
    raise TypeError(f"no YAML form for {type(value).__name__}")


def conf_file_text(name: str, entries: Sequence[tuple[str, Any]]) -> bytes:
    """A configuration file t2gen writes: a comment line, then ``key: value`` per entry (bytes, UTF-8)."""
    lines = [
        f"# Twister2 {name} for this job, written by t2gen package from the job file."
    ]
    lines += [f"{key}: {yaml_value(value)}" for key, value in entries]
    return ("\n".join(lines) + "\n").encode()


def _value_span(text: str, line: int) -> tuple[int, int]:
    """Lines ``[line, end)`` (1-based) of the top-level key at ``line`` and its value."""
    lines = text.splitlines()
    end = line
    last_value = line
    while end < len(lines):
        current = lines[end]
        if current and not current[0].isspace() and not current.startswith("#"):
            break
        if current.strip() and not current.lstrip().startswith("#"):
            last_value = end + 1
        end += 1
    return line, last_value + 1


def set_key(text: str, doc: SourceDoc, key: str, value: Any) -> str:
    """``text`` with the top-level ``key``'s value replaced by ``value`` (comments elsewhere kept)."""
    line, _ = doc.position((key,), key=True)
    start, end = _value_span(text, line)
    lines = text.splitlines(keepends=True)
    lines[start - 1 : end - 1] = [f"{key}: {yaml_value(value)}\n"]
    return "".join(lines)
