"""The supervisor's context: rendered only when asked, and the Argo CD marks that make a changed job run again."""

from __future__ import annotations

from t2gen.render.context import build_context
from t2gen.render.context.supervisor import DIGEST_ANNOTATION, job_digest
from tests.helpers import job_text, valid_job

SUPERVISED = "workers:\n  - count: 2\nlifecycle: {supervise: true, argoCDHooks: true}\n"


def test_no_supervisor_unless_asked() -> None:
    assert build_context(valid_job(job_text()))["supervisor"] is None


def test_a_changed_job_changes_the_supervisor_template() -> None:
    """The Twister2 objects are Argo CD hooks, outside the sync status: the digest makes the change visible."""
    one = valid_job(job_text(SUPERVISED))
    again = valid_job(job_text(SUPERVISED))
    changed = valid_job(job_text(SUPERVISED.replace("count: 2", "count: 4")))
    assert job_digest(one) == job_digest(again) != job_digest(changed)
    supervisor = build_context(one)["supervisor"]
    assert supervisor["podTemplate"]["metadata"]["annotations"] == {
        DIGEST_ANNOTATION: job_digest(one)
    }
    assert supervisor["jobMetadata"]["annotations"] == {
        "argocd.argoproj.io/sync-options": "Force=true,Replace=true"
    }
    assert "annotations" not in supervisor["metadata"]  # only the Job is replaced


def test_hooks_mark_every_twister2_object_and_no_supervisor_object() -> None:
    context = build_context(valid_job(job_text(SUPERVISED)))
    hook = context["metadata"]["configMap"]["annotations"]
    assert hook["argocd.argoproj.io/hook"] == "Sync"
    assert (
        context["workerGroups"][0]["metadata"]["annotations"]["argocd.argoproj.io/hook"]
        == "Sync"
    )
    assert all("annotations" in r["metadata"]["role"] for r in context["rbac"]["roles"])
    assert "annotations" not in context["workerGroups"][0]["podTemplate"]["metadata"]


def test_a_large_jobs_role_names_no_pod() -> None:
    """Naming 2,001 pods would make the Role too large for kubectl apply; the rest stays named."""
    large = valid_job(
        job_text("workers:\n  - count: 2000\nlifecycle: {supervise: true}\n")
    )
    small = valid_job(
        job_text("workers:\n  - count: 4\nlifecycle: {supervise: true}\n")
    )
    pods = [
        r
        for r in build_context(large)["supervisor"]["rules"]
        if "pods" in r["resources"][0]
    ]
    assert all("resourceNames" not in r for r in pods)
    named = [
        r for r in build_context(small)["supervisor"]["rules"] if "resourceNames" in r
    ]
    assert [r["resources"] for r in named][:3] == [
        ["configmaps"],
        ["pods"],
        ["pods/log"],
    ]
