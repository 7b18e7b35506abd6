"""What the job file says about the job itself: its worker and driver classes, and its JobConfig."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules._base import Rule, as_dict, problem, rule
from t2gen.twister2.confkeys import POD_KEY_ADVICE, POD_KEYS

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


@rule("job-config-runtime-key", fields=("spec.jobConfig",))
def check_job_config_keys(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """No ``jobConfig`` key is a configuration key the pods take from another field.

    Every worker and the job master put each ``JobConfig`` entry over the
    package's configuration (``JobUtils.overrideConfigs``, DSC-SPIDAL/twister2
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/utils/JobUtils.java:122-138``,
    called at ``.../rsched/schedulers/k8s/worker/K8sWorkerStarter.java:99`` and
    ``.../k8s/master/JobMasterStarter.java:84``). For the keys ``t2gen package``
    derives from the job file so that they agree with the manifests
    (``kubernetes.namespace``, the ports, the channel, the job master, ZooKeeper,
    checkpointing, the restart limits: :data:`t2gen.twister2.confkeys.POD_KEYS`), and for the job
    master's share of the claim and its address, which the pods read too
    (``JobMasterStarter.java:91-92``, ``WorkerRuntime.java:95``), such an entry would
    make the pods read a value the manifests do not have, while ``validate``,
    ``package`` and ``render --package`` all agree; the field is the one source.
    """
    config = as_dict(as_dict(data.get("spec")).get("jobConfig"))
    for key in config:
        field = POD_KEYS.get(key)
        if field is not None:
            advice = POD_KEY_ADVICE.get(key, f"set {field} instead and remove this key")
            yield problem(
                doc,
                ("spec", "jobConfig", key),
                f"jobConfig {key} is also the Twister2 configuration key the pods take from "
                f"{field}; as a JobConfig entry it would replace that value in every pod "
                f"(JobUtils.overrideConfigs), which the manifests would not have: {advice}",
                key=True,
            )


RULES: tuple[Rule, ...] = (check_class_names, check_job_config_keys)
