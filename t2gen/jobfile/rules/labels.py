"""The job's own labels and annotations: none of the keys t2gen sets."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules._base import Rule, as_dict, problem, rule
from t2gen.twister2.names import RESERVED_LABEL_KEYS


@rule("labels-reserved", fields=("metadata.labels",))
def check_labels(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``metadata.labels`` does not override a label t2gen sets.

    The Twister2 runtime finds the job's objects by ``app``, ``t2-job``, ``t2-wp``
    and ``t2-mp``; the StatefulSets select their pods by ``t2-wp``/``t2-mp`` and
    ``t2-worker-group``; the ``app.kubernetes.io/*`` labels describe the job.
    A user label of the same key would break selectors or the runtime.

    Sources: Twister2's ``KubernetesUtils`` and ``KubernetesConstants``
    (cylondata/twister2,
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``);
    Kubernetes, "Recommended Labels"
    (https://kubernetes.io/docs/concepts/overview/working-with-objects/common-labels/);
    ``t2gen/twister2/names.py`` (``RESERVED_LABEL_KEYS``).
    """
    for key in as_dict(as_dict(data.get("metadata")).get("labels")):
        if key in RESERVED_LABEL_KEYS:
            yield problem(
                doc,
                ("metadata", "labels", key),
                f"label {key!r} is set by t2gen (selectors and the Twister2 runtime rely on it); "
                "choose another key",
                key=True,
            )


T2GEN_ANNOTATION_PREFIX = "t2gen.dev/"
"""The prefix of the annotations t2gen writes and reads back (``t2gen/twister2/names.py``)."""


@rule("annotations-reserved", fields=("metadata.annotations",))
def check_annotations(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``metadata.annotations`` holds no ``t2gen.dev/`` key: t2gen's own annotations.

    t2gen writes them and reads them back: ``t2gen.dev/package-namespace`` on the
    job's ConfigMap (check ``package-namespace``), ``t2gen.dev/job-digest`` on the
    supervisor's pod, ``t2gen.dev/bind-workers-to-cpu`` and
    ``t2gen.dev/security-profile`` on pods (checks ``bound-worker-guaranteed``,
    ``pod-security-restricted``). The job's annotations go on every object and
    pod, so one of these keys there would claim what t2gen did not check, or be
    overwritten without a word.
    """
    for key in as_dict(as_dict(data.get("metadata")).get("annotations")):
        if isinstance(key, str) and key.startswith(T2GEN_ANNOTATION_PREFIX):
            yield problem(
                doc,
                ("metadata", "annotations", key),
                f"annotation {key!r}: the prefix {T2GEN_ANNOTATION_PREFIX} is t2gen's own "
                "(it writes and checks these annotations); choose another key",
                key=True,
            )


RULES: tuple[Rule, ...] = (check_labels, check_annotations)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
