"""``t2gen status``: bad input is a located error with exit 1, nothing on stdout; usage errors exit 2.

The phases themselves are golden outputs (``tests/golden/status-*``, from ``tests/fixtures/status/``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from t2gen.cli.app import app

JOB = "examples/supervised.yaml"


def _status(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["status", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{not json: [", "not JSON or YAML"),
        (
            '{"kind": "Node", "metadata": {"name": "n"}}',
            "is a Node, not a Kubernetes object list",
        ),
        (
            '{"kind": "List", "items": [{"kind": "Pod"}]}',
            "items[0]: not a Kubernetes object",
        ),
        ("", "is empty"),
    ],
)
def test_bad_cluster_state_is_a_located_error(
    in_root: Path, tmp_path: Path, text: str, says: str
) -> None:
    state = tmp_path / "state.json"  # never in the repository: tests run in parallel
    state.write_text(text, encoding="utf-8")
    code, out, err = _status(JOB, "--cluster", str(state))
    assert code == 1
    assert out == ""
    assert err.startswith(f"{state}:") and says in err, err


def test_missing_file_and_unknown_option(in_root: Path) -> None:
    code, out, err = _status(JOB, "--cluster", "absent.json")
    assert (code, out) == (1, "")
    assert "absent.json" in err
    assert _status(JOB, "--nodes", "x")[0] == 2


def test_an_empty_list_is_a_job_not_found(in_root: Path, tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": []}))
    code, out, _ = _status(JOB, "--cluster", str(state), "-o", "json")
    assert code == 4  # NotFound: docs/lifecycle.md, "Exit codes"
    assert json.loads(out)["phase"] == "NotFound"


def test_a_killed_runs_config_map_is_a_leftover(in_root: Path, tmp_path: Path) -> None:
    """A ConfigMap with KILL_JOB and no pod would kill the next run at once (JobKillWatcher.java:88-99)."""
    labels = {  # as t2gen renders them; status reads no object without both app.kubernetes.io labels
        "t2-job": "wordcount-supervised",
        "app": "twister2",
        "app.kubernetes.io/instance": "wordcount-supervised",
        "app.kubernetes.io/managed-by": "t2gen",
    }
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "wordcount-supervised",
            "namespace": "twister2",
            "labels": labels,
        },
        "data": {"JOB_ID": "wordcount-supervised", "KILL_JOB": "true"},
    }
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"kind": "List", "items": [config_map]}))
    code, out, _ = _status(JOB, "--cluster", str(state), "-o", "json")
    found = json.loads(out)
    assert (code, found["phase"], found["killJob"]) == (4, "Ended", True)
    assert found["leftovers"] == ["configmaps/wordcount-supervised"]
    assert found["clear"] == (
        "kubectl delete -n twister2 configmaps/wordcount-supervised --ignore-not-found"
    )


def test_the_claim_of_a_failed_checkpointing_run_is_kept_for_a_restore(
    in_root: Path, tmp_path: Path
) -> None:
    """The claim the job master kept after a failed run with checkpointing is not in the command to clear.

    The job master keeps it for a restart (Twister2 ``JobTerminator.java:49-65``);
    deleting it would delete the checkpoints ``checkpointing.restore`` reads
    (docs/reference.md, "Re-running a job, and restoring a failed one").
    """
    job = tmp_path / "ck.yaml"
    job.write_text(
        "apiVersion: t2gen/v1\nkind: Twister2Job\nmetadata: {name: ck, namespace: ml}\n"
        "spec:\n  image: twister2/twister2-k8s:0.8.0\n  workers: [{count: 2}]\n"
        "  storage: {persistent: {perWorker: 1Gi}}\n  checkpointing: {enabled: true}\n",
        encoding="utf-8",
    )
    labels = {
        "app.kubernetes.io/instance": "ck",
        "app.kubernetes.io/managed-by": "t2gen",
        "t2-job": "ck",
        "app": "twister2",
    }
    items = [
        {
            "apiVersion": "v1",
            "kind": kind,
            "metadata": {"name": name, "namespace": "ml", "labels": labels},
        }
        for kind, name in (("PersistentVolumeClaim", "ck"), ("ServiceAccount", "ck-jm"))
    ]
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"kind": "List", "items": items}))
    code, out, _ = _status(str(job), "--cluster", str(state), "-o", "json")
    found = json.loads(out)
    assert (code, found["phase"]) == (4, "Ended")
    assert found["leftovers"] == ["persistentvolumeclaims/ck", "serviceaccounts/ck-jm"]
    assert (
        found["clear"]
        == "kubectl delete -n ml serviceaccounts/ck-jm --ignore-not-found"
    )
    assert found["keptForRestore"] == "persistentvolumeclaims/ck"
    code, text, _ = _status(str(job), "--cluster", str(state))
    assert (
        "kept: persistentvolumeclaims/ck holds the checkpoints of a failed run" in text
    )
