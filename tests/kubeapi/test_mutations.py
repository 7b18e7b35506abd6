"""The lifecycle fails when a Role loses a verb its code uses (issue 40, "Must show").

The completed scenario of :mod:`tests.kubeapi.test_lifecycle` is run with one
verb taken out of one rule of the Role t2gen rendered (in the rendered objects,
before they are applied); each run must show a refused call in the audit log and end
other than the unmutated run: the supervisor's verdict or clean-up, or a
Twister2 call failing. ``make test-kube`` runs one verb of each role; the rest are
in the slow tier (``make fuzz``), as repeats of the same proof. kubectl's own
look at the namespace after a NotFound is not counted as refused
(:func:`tests.kubeapi.scenario._probe`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.kubeapi.client import ApiError
from tests.kubeapi.controlplane import ControlPlane
from tests.kubeapi.kubelet import Kubelet, until
from tests.kubeapi.scenario import Scenario, job_file

FAST = {
    ("supervisor", "configmaps", "watch"),
    ("jm", "services", "delete"),
    ("worker", "configmaps", "patch"),
}
MUTATIONS = [
    *(
        ("supervisor", r, v)
        for r, v in [
            ("configmaps", "get"),
            ("configmaps", "watch"),
            ("configmaps", "patch"),
            ("pods", "get"),
            ("pods", "list"),
            ("pods/log", "get"),
            ("serviceaccounts", "delete"),
        ]
    ),
    *(
        ("jm", r, v)
        for r, v in [
            ("configmaps", "list"),
            ("configmaps", "watch"),
            ("configmaps", "patch"),
            ("services", "delete"),
            ("persistentvolumeclaims", "delete"),
            ("statefulsets", "list"),
        ]
    ),
    ("worker", "configmaps", "list"),
    ("worker", "configmaps", "patch"),
]
"""(role, resource, verb): each verb of each Role the scenario's calls use."""


def _without(
    role: str, resource: str, verb: str
) -> Callable[[list[dict[str, Any]]], None]:
    """An edit of the rendered objects: Role ``role`` without ``verb`` on ``resource``.

    Made before the apply, so no call of the run can come before it (an
    authorized watch stays open whatever its Role becomes later).
    """

    def change(objects: list[dict[str, Any]]) -> None:
        found = next(
            o for o in objects if o["kind"] == "Role" and o["metadata"]["name"] == role
        )
        rules = []
        for rule in found["rules"]:
            if resource in rule["resources"] and verb in rule["verbs"]:
                rule = {**rule, "verbs": [v for v in rule["verbs"] if v != verb]}
            if rule["verbs"]:
                rules.append(rule)
        assert rules != found["rules"], (role, resource, verb)
        found["rules"] = rules

    return change


def _problems(cluster: ControlPlane, kubelet: Kubelet, job: Scenario) -> list[str]:
    """Run the completed scenario; return every way it went other than the unmutated run."""
    problems: list[str] = []
    try:
        job.start_runtime()
    except ApiError as error:
        problems.append(f"the runtime's call failed: {error}")
    supervisor = kubelet.supervisor()
    account = f"system:serviceaccount:{job.namespace}:{job.job}-supervisor"
    until(
        lambda: (
            supervisor.done.is_set()
            or any(
                e["user"]["username"] == account and e["verb"] == "list"
                for e in cluster.audit_events()
            )
        ),
        "the supervisor's first poll, or its end",
    )
    if job.job_master is not None:
        job.job_master.terminate("COMPLETED")
        problems += job.job_master.failures
    if not problems:
        assert supervisor.done.wait(120), "the supervisor did not end"
        if supervisor.exit_code != 0 or not supervisor.message.startswith(
            "Completed: the job completed"
        ):
            problems.append(
                f"the supervisor ended {supervisor.exit_code}: {supervisor.message}"
            )
        left = job.names("serviceaccounts")
        if f"ServiceAccount/{job.job}-worker" in left:
            problems.append("the job's ServiceAccounts were not deleted")
    refused = {a: c["refused"] for a, c in job.calls().items() if c["refused"]}
    if refused:
        problems.append(f"refused calls: {refused}")
    return problems


def _params() -> list[Any]:
    return [
        pytest.param(*m, id="-".join(m), marks=[] if m in FAST else [pytest.mark.slow])
        for m in MUTATIONS
    ]


@pytest.mark.parametrize(("role", "resource", "verb"), _params())
def test_a_role_without_a_verb_fails_the_scenario(
    controllers: ControlPlane,
    kubelet: Kubelet,
    tmp_path: Path,
    role: str,
    resource: str,
    verb: str,
) -> None:
    job = Scenario(
        controllers, kubelet, job_file("supervised", kubelet.namespace), tmp_path
    )
    job.apply(_without(f"{job.job}-{role}", resource, verb))
    problems = _problems(controllers, kubelet, job)
    print(f"{role} without {verb} {resource}: {problems}")
    assert any(p.startswith("refused calls") for p in problems), problems


@pytest.mark.slow
def test_the_unmutated_scenario_has_no_problem(
    controllers: ControlPlane, kubelet: Kubelet, tmp_path: Path
) -> None:
    """The yardstick: the same run with the Roles as rendered goes as expected.

    Slow tier: ``test_lifecycle.py::test_completed`` runs it with stronger
    checks; a mutation above passes only on a refused call, never vacuously.
    """
    job = Scenario(
        controllers, kubelet, job_file("supervised", kubelet.namespace), tmp_path
    )
    job.apply()
    assert _problems(controllers, kubelet, job) == []
