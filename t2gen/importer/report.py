"""The findings of an import: keys with no field, must-agree notes, and the lines a user reads.

Warnings name the key and its ``file:line:col``; keys with no t2gen equivalent
form one block, and keys the runtime also reads from the job package another
(with what must agree). They go to standard error and, as comments, to the end
of the job file.
"""

from __future__ import annotations

from collections.abc import Sequence

from t2gen.importer.keys import LEGACY_WORKER_KEYS, Use
from t2gen.importer.model import ImportWarning
from t2gen.importer.state import Conversion

__all__ = ["footer", "list_unmapped", "report_lines"]


def list_unmapped(conv: Conversion) -> None:
    """Keys with no job-file field, and the keys whose value must agree with the job package."""
    for name, (setting, value) in conv.values.items():
        key = setting.key
        assert key is not None
        if key.use is not Use.FIELD and name not in LEGACY_WORKER_KEYS:
            why = {
                Use.PACKAGE: "read from the job package",
                Use.CLIENT: "read by the twister2 client only",
                Use.UNUSED: "not used on Kubernetes",
            }[key.use]
            conv.skip(setting, f"{why}: {key.note}" if key.note else why)
        if key.agree and (conv.is_mpi or not key.agree_mpi_only):
            conv.agree.append(ImportWarning(setting.origin, setting.name, key.agree))
        if name == "twister2.resource.zookeeper.server.addresses" and value:
            conv.warn(
                setting.origin,
                setting.name,
                "with ZooKeeper the workers wait for a znode holding their JOB_SUBMISSION_TIME, and t2gen's "
                "default, 0, is the same in every run of a job name: give each run its own in spec.env",
            )


def report_lines(
    warnings: Sequence[ImportWarning],
    unmapped: Sequence[ImportWarning],
    agree: Sequence[ImportWarning],
) -> list[str]:
    """The import's findings as the lines a user reads (standard error, or the job file's end).

    Args:
        warnings: semantic differences.
        unmapped: keys with no t2gen equivalent.
        agree: keys whose job-package value must agree with the job file.

    Returns:
        Lines: each warning prefixed ``warning:``, then one block of unmapped keys,
        then one block of must-agree notes.
    """
    lines = [f"warning: {w}" for w in sorted(warnings, key=ImportWarning.sort_key)]
    if unmapped:
        lines.append(
            "warning: keys with no t2gen equivalent (they stay in the job package's configuration):"
        )
        lines += [f"  {w}" for w in sorted(unmapped, key=ImportWarning.sort_key)]
    if agree:
        lines.append(
            "note: the runtime reads these from the job package; keep the package's configuration equal to the job file:"
        )
        lines += [f"  {w}" for w in sorted(agree, key=ImportWarning.sort_key)]
    return lines


def footer(conv: Conversion) -> str:
    """The findings as the job file's trailing comment block ("" when there are none)."""
    blocks = report_lines(conv.warnings, conv.unmapped, conv.agree)
    if not blocks:
        return ""
    return "\n" + "\n".join(f"# {line}" if line else "#" for line in blocks) + "\n"
