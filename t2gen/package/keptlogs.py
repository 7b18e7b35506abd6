"""``--package`` and ``spec.logs``: does the package's ``logger.properties`` write the kept log files, whole?

A job package that ``t2gen package`` builds for a job with ``spec.logs``
writes them (:data:`t2gen.twister2.logfiles.KEPT_LOGGER_PROPERTIES`); one
built by ``twister2 submit`` carries its own ``common/logger.properties``,
which Twister2's JVMs read (``docker/kubernetes/image/rootfs/twister2/init.sh:23,28``):
without ``Twister2FileLogHandler`` among its handlers nothing is written
(``LoggingContext.java:71-80``), with a ``limit`` above 0 a file is cut (Twister2's
shipped one keeps 50,000 bytes, ``conf/common/logger.properties:73,77``), and
without ``append = true`` a restarted worker truncates its file
(``Twister2FileLogHandler.java:42-56``, ``LoggingContext.java:82-110``;
DSC-SPIDAL/twister2 at c6844d2, ``twister2/common/src/java/edu/iu/dsc/tws/common/logging/``).
"""

from __future__ import annotations

import re

from t2gen.errors import Warning_
from t2gen.inputs.package import PackageContents
from t2gen.inputs.yaml import SourceDoc
from t2gen.model import Job

__all__ = ["kept_logs_warnings", "logger_properties"]

_HANDLER = "edu.iu.dsc.tws.common.logging.Twister2FileLogHandler"


def logger_properties(text: str) -> dict[str, str]:
    """The ``key = value`` settings of a ``java.util.logging`` properties file (the last one of a key wins).

    Comments (``#``, ``!``) and blank lines are skipped; a key ends at the first
    ``=``, ``:`` or white space, as ``java.util.Properties.load`` reads it (line
    continuations, rare in logging files, are not joined).
    """
    settings: dict[str, str] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped[0] in "#!":
            continue
        match = re.fullmatch(r"([^=:\s]+)\s*[=:\s]\s*(.*)", stripped)
        if match is not None:
            settings[match.group(1)] = match.group(2).strip()
    return settings


def kept_logs_warnings(
    job: Job, doc: SourceDoc, contents: PackageContents
) -> list[Warning_]:
    """Warnings, located at ``spec.logs``, when the package would not keep every log whole.

    Returns:
        Nothing for a job without ``spec.logs``; else one warning per setting
        of the package's ``common/logger.properties`` that loses log records.
    """
    if job.spec.logs is None:
        return []
    raw = contents.conf_file("common/logger.properties")
    settings = logger_properties(raw.decode("utf-8", "replace") if raw else "")
    handlers = {h.strip() for h in settings.get("handlers", "").split(",")}
    said = []
    if _HANDLER not in handlers:
        said.append(
            "names no Twister2FileLogHandler among its handlers: no worker writes a log file, "
            "so the claim stays empty"
        )
    else:
        limit = settings.get(f"{_HANDLER}.limit", "")
        if limit != "0":
            size = f"{limit} bytes" if limit else "100 MiB (Twister2's default)"
            said.append(
                f"limits each log file to {size}: a longer log is cut; set its limit to 0"
            )
        if settings.get(f"{_HANDLER}.append", "").lower() != "true":
            said.append("does not append: a restarted worker truncates its log file")
    line, col = doc.position(("spec", "logs"), key=True)
    return [
        Warning_(
            doc.path,
            line,
            col,
            f"{contents.path}'s common/logger.properties {message} "
            '(t2gen package writes one that keeps every record: docs/lifecycle.md, "Kept logs")',
            "spec.logs",
        )
        for message in said
    ]
