"""What the job file says about the job itself: its worker and driver classes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules._base import Rule, as_dict, problem, rule

JAVA_RESERVED = frozenset(
    [
        "abstract",
        "assert",
        "boolean",
        "break",
        "byte",
        "case",
        "catch",
        "char",
        "class",
        "const",
        "continue",
        "default",
        "do",
        "double",
        "else",
        "enum",
        "extends",
        "final",
        "finally",
        "float",
        "for",
        "goto",
        "if",
        "implements",
        "import",
        "instanceof",
        "int",
        "interface",
        "long",
        "native",
        "new",
        "package",
        "private",
        "protected",
        "public",
        "return",
        "short",
        "static",
        "strictfp",
        "super",
        "switch",
        "synchronized",
        "this",
        "throw",
        "throws",
        "transient",
        "try",
        "void",
        "volatile",
        "while",
        "true",
        "false",
        "null",
        "_",
    ]
)
"""Java's keywords and literals (JLS 3.9, 3.10.3, 3.10.7): no part of a class name may be one."""


@rule("java-class-name", fields=("spec.workerClass", "spec.driverClass"))
def check_class_names(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``workerClass`` and ``driverClass`` are Java binary class names.

    The schema checks their shape (identifiers joined by ``.``, ``$`` for a
    nested class); no identifier may be a Java keyword or literal (The Java
    Language Specification, 3.8-3.9), or ``Class.forName`` in the worker
    (``ReflectionUtils.newInstance``, used by ``Twister2Job.setWorkerClass``,
    ``twister2/api/src/java/edu/iu/dsc/tws/api/Twister2Job.java:305-321``)
    can never find the class.
    """
    spec = as_dict(data.get("spec"))
    for field in ("workerClass", "driverClass"):
        name = spec.get(field)
        if not isinstance(name, str):
            continue
        for part in name.replace("$", ".").split("."):
            if part in JAVA_RESERVED:
                yield problem(
                    doc,
                    ("spec", field),
                    f"{name!r} is not a Java class name: {part!r} is a Java keyword, which no "
                    "package or class may be named; give the class's binary name, e.g. "
                    "edu.iu.dsc.tws.examples.batch.wordcount.tset.WordCount",
                )
                break


RULES: tuple[Rule, ...] = (check_class_names,)
