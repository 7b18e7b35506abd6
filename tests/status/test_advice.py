"""``t2gen status``'s advice is safe to paste, and ``-o json`` is JSON, whatever the names hold (issue 40, item 5).

Role and RoleBinding names are path segments to the API server (anything but
``/``, ``%``, ``.`` and ``..``): ``x;touch PWNED;#``, ``$(...)``, backticks and
spaces are all names a tenant can create. ``status`` lists only the kinds t2gen
renders for the job, namespaced, labelled with its instance and managed by
t2gen, and quotes every name it advises to delete (:func:`shlex.quote`); the
advice, run by a real shell, runs nothing but ``kubectl delete`` of the job's
own objects.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from t2gen.cli.status import StatusFormat
from t2gen.plan.text import inert, inert_json
from t2gen.status.fetch import collect_command, fetched_kinds
from t2gen.status.phase import job_status
from t2gen.status.text import status_text
from tests.status.test_leftovers import _left, _load

HOSTILE = [
    "x;touch PWNED;#",
    "$(touch PWNED)",
    "`touch PWNED`",
    "a b --all --namespace kube-system",
    "x'\"|>PWNED",
    "\u009bx",
    "--all",
]
RECORDER = """import json, sys
with open(sys.argv[1], "a") as calls:
    calls.write(json.dumps(sys.argv[2:]) + "\\n")
"""


def _state() -> tuple[Any, list[dict[str, Any]], list[dict[str, Any]]]:
    job, rendered = _load("wordcount.yaml")
    objects = [_left(job, "ServiceAccount", "v1", "wordcount-jm")]
    objects += [_left(job, "Role", "rbac.authorization.k8s.io/v1", n) for n in HOSTILE]
    return job, rendered, objects


def test_only_the_jobs_own_objects_are_read() -> None:
    job, rendered, objects = _state()
    kinds = fetched_kinds(job, rendered)
    assert all(k.namespaced for k in kinds)
    strangers = [
        _left(job, "ClusterRole", "rbac.authorization.k8s.io/v1", "cluster-admin"),
        _left(job, "Job", "batch/v1", "not-rendered-for-wordcount"),
        {**_left(job, "Role", "rbac.authorization.k8s.io/v1", "elsewhere")},
    ]
    strangers[2]["metadata"]["namespace"] = "kube-system"
    unmanaged = _left(job, "Role", "rbac.authorization.k8s.io/v1", "unmanaged")
    del unmanaged["metadata"]["labels"]["app.kubernetes.io/managed-by"]
    found = job_status(job, [*objects, *strangers, unmanaged], kinds)
    if job.namespace is None:  # wordcount has none: any one namespace is its
        found = job_status(job, [*objects, *strangers[:2], unmanaged], kinds)
    assert found["leftovers"] == [
        "serviceaccounts/wordcount-jm",
        *(f"roles.rbac.authorization.k8s.io/{n}" for n in HOSTILE),
    ]
    assert "managed-by=t2gen" in collect_command(job, rendered)


def test_the_pasted_advice_runs_only_kubectl_delete_of_the_jobs_objects(
    tmp_path: Path,
) -> None:
    job, rendered, objects = _state()
    found = job_status(job, objects, fetched_kinds(job, rendered))
    line = next(
        ln
        for ln in inert(status_text(found)).splitlines()
        if ln.startswith("to clear: ")
    )
    advice = line.removeprefix("to clear: ")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    kubectl = bin_dir / "kubectl"
    kubectl.write_text(f"#!{sys.executable}\n{RECORDER}")
    kubectl.chmod(0o755)
    calls = tmp_path / "calls.jsonl"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    for shell in ("sh", "bash"):
        subprocess.run(
            [
                shell,
                "-c",
                f'kubectl() {{ command kubectl {shlex.quote(str(calls))} "$@"; }}\n{advice}',
            ],
            cwd=tmp_path,
            env=env,
            check=True,
        )
    assert not (tmp_path / "PWNED").exists()
    runs = [json.loads(x) for x in calls.read_text().splitlines()]
    assert len(runs) == 2  # one kubectl, once a shell
    for argv in runs:
        assert argv[0] == "delete" and argv[-1] == "--ignore-not-found"
        refs = argv[1:-1]
        assert refs[0] == "serviceaccounts/wordcount-jm"
        # every other argument is one Role of the job: TYPE/NAME, never an option
        assert all(r.startswith("roles.rbac.authorization.k8s.io/") for r in refs[1:])
        assert len(refs) == 1 + len(HOSTILE)
        assert [r.split("/", 1)[1] for r in refs[1:-1]] == [*HOSTILE[:-2], "\\x9bx"]


def test_json_output_is_json_whatever_the_names_hold() -> None:
    job, rendered, objects = _state()
    found = job_status(job, objects, fetched_kinds(job, rendered))
    text = inert_json(json.dumps(found, indent=2, ensure_ascii=False) + "\n")
    assert "\u009b" not in text
    assert json.loads(text)["leftovers"] == found["leftovers"]
    assert StatusFormat.json.value == "json"


@pytest.mark.parametrize("name", HOSTILE)
def test_every_advised_name_is_one_word(name: str) -> None:
    job, rendered, _ = _state()
    role = _left(job, "Role", "rbac.authorization.k8s.io/v1", name)
    found = job_status(job, [role], fetched_kinds(job, rendered))
    words = shlex.split(found["clear"])
    assert words == [
        "kubectl",
        "delete",
        f"roles.rbac.authorization.k8s.io/{name}",
        "--ignore-not-found",
    ]
