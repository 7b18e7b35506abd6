"""The user's jar: a jar (a zip file) holding the job's worker class (``t2gen package --jar``).

Every worker puts the jar on its class path (``USER_JOB_JAR_FILE``, DSC-SPIDAL/twister2
``docker/kubernetes/image/rootfs/twister2/init.sh``) and loads ``workerClass`` from it by
name (``ReflectionUtils.newInstance`` through ``Twister2Job.setWorkerClass``,
``twister2/api/src/java/edu/iu/dsc/tws/api/Twister2Job.java:305-321``); the job master loads
``driverClass`` the same way. A class ``a.b.C`` (``a.b.C$D`` for a nested one) is the entry
``a/b/C.class`` (``a/b/C$D.class``) of a jar (The Java Virtual Machine Specification, 4,
"binary names"; the JAR File Specification). A file that is no zip, or a jar without the
class, packs a job whose every worker fails with ``ClassNotFoundException`` after the
package has been pushed and the pods started: ``t2gen package`` refuses it, located at the
class's field. Only the zip's central directory is read (``zipfile``), never an entry.
"""

from __future__ import annotations

import zipfile

from t2gen.errors import ConfigError, Problem, SchemaError, format_json_path
from t2gen.inputs.yaml import SourceDoc
from t2gen.model import Job

__all__ = ["MAX_JAR_ENTRIES", "check_jar", "class_entry"]

MAX_JAR_ENTRIES = 1_000_000
"""The most entries read from a jar's central directory (a large application jar holds tens of thousands)."""


def class_entry(binary_name: str) -> str:
    """The jar entry of a class: ``a.b.C`` -> ``a/b/C.class`` (``$`` of a nested class kept)."""
    return binary_name.replace(".", "/") + ".class"


def check_jar(path: str, job: Job, doc: SourceDoc) -> None:
    """Refuse a ``--jar`` that is no jar, or lacks the job's worker or driver class.

    Args:
        path: the jar as given to ``--jar``.
        job: the validated job (its ``workerClass`` is set).
        doc: its job file as read (for positions).

    Raises:
        ConfigError: the file is not a zip file, is damaged, or has more than
            :data:`MAX_JAR_ENTRIES` entries.
        SchemaError: the jar has no class file for ``workerClass`` or ``driverClass``,
            located at that field.
    """
    try:
        with zipfile.ZipFile(path) as jar:
            entries = jar.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as err:
        raise ConfigError(
            path=path,
            message=f"not a jar file ({err}): give the jar (a zip file) holding the job's "
            "classes, as your build writes it (e.g. build/libs/<name>.jar, target/<name>.jar)",
        ) from None
    except OSError as err:
        raise ConfigError(
            path=path, message=f"cannot read the jar: {err.strerror or err}"
        ) from None
    if len(entries) > MAX_JAR_ENTRIES:
        raise ConfigError(
            path=path,
            message=f"{len(entries)} entries; a jar is read up to {MAX_JAR_ENTRIES}",
        )
    names = {info.filename for info in entries}
    problems = []
    for field, name in (
        ("workerClass", job.spec.worker_class),
        ("driverClass", job.spec.driver_class),
    ):
        if name and class_entry(name) not in names:
            line, col = doc.position(("spec", field))
            problems.append(
                Problem(
                    doc.path,
                    line,
                    col,
                    f"{field} {name} is not in the jar {path}: it has no {class_entry(name)}, so "
                    "every pod would fail with ClassNotFoundException; give the jar that holds "
                    f"the class, or the class's binary name as the jar has it",
                    format_json_path(("spec", field)),
                )
            )
    if problems:
        raise SchemaError(problems=problems)
