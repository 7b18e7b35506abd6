"""The job name: none that would take over another job's objects."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules._base import Rule, as_dict, problem, rule
from t2gen.twister2 import names

_DERIVED = {
    names.JOB_MASTER_SUFFIX: "job master's StatefulSet and Service",
}
"""What t2gen names ``<job><suffix>``, by suffix."""


@rule("job-name-suffix", fields=("metadata.name",))
def check_job_name(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """The job name does not end in a suffix t2gen uses for the objects it derives (``-jm``).

    Every object of job ``<x>`` is named after it: the job master's
    StatefulSet and Service are ``<x>-jm`` (:mod:`t2gen.twister2.names`,
    after Twister2's ``KubernetesUtils``). A job
    named ``<x>-jm`` would have a headless Service ``<x>-jm``: applied beside
    job ``<x>`` it replaces the selector and ports of ``<x>``'s job-master
    Service, so ``<x>``'s workers lose their job master, and job ``<x>``'s
    ServiceAccount may delete the other job's Service.

    Sources: Kubernetes, "Object Names and IDs" (one object of a kind per name
    and namespace, https://kubernetes.io/docs/concepts/overview/working-with-objects/names/);
    cylondata/twister2 ``KubernetesUtils.java`` (object names).
    """
    name = as_dict(data.get("metadata")).get("name")
    if not isinstance(name, str):
        return
    for suffix in names.DERIVED_NAME_SUFFIXES:
        base = name.removesuffix(suffix)
        if base != name and base:
            yield problem(
                doc,
                ("metadata", "name"),
                f"{name!r} ends in {suffix!r}, and t2gen names job {base}'s {_DERIVED[suffix]} {name}: "
                f"this job's own Service {name} would take over that one (its selector and ports)"
                + (
                    f", and job {base}'s ServiceAccount may delete it"
                    if suffix == names.JOB_MASTER_SUFFIX
                    else ""
                )
                + "; choose a name that does not end in "
                + " or ".join(repr(s) for s in names.DERIVED_NAME_SUFFIXES),
            )


RULES: tuple[Rule, ...] = (check_job_name,)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
