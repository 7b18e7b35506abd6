"""Kept logs against a real API server: the job master's clean-up leaves the claim, and ``t2gen logs`` asks for it.

The control plane is the project's test one (``kube-up`` of ``../shared/kube``,
or ``T2GEN_KUBE_UP``; skipped with the reason on a clone without it), API
server and etcd only: there is no kubelet, so no volume is ever mounted and
no pod runs. What a kubelet would do is the contract of
``tests/contract/test_kept_logs.py`` (where Twister2 writes each file) and
``tests/status/test_logs.py`` (the files printed whole); here the API server
decides what only it can: that the rendered objects are accepted, that the job
master's Role allows every delete of ``JobTerminator`` and refuses the kept
claim's (DSC-SPIDAL/twister2 c6844d2,
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/master/JobTerminator.java:36-88``),
that the claim is still there after those deletes, and what pod ``t2gen logs``
creates. Everything runs in one test: the control plane's processes are this
test's own and are stopped before it ends (``tests/processes.py``).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from t2gen.errors import T2genError
from t2gen.pipeline.logs import job_logs
from t2gen.status.fetch import Kubectl
from t2gen.status.logs import reader_name
from t2gen.twister2.terminator import claim, job_master_deletes
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples/kept-logs.yaml"
JOB, NAMESPACE = "wordcount-logs", "twister2"
KUBE_UP = Path(os.environ.get("T2GEN_KUBE_UP", ROOT.parent / "shared/kube/kube-up"))
JOB_MASTER = f"system:serviceaccount:{NAMESPACE}:{JOB}-jm"


def _free_port_base() -> int:
    """A port with the four after it free (kube-up uses PORT_BASE to PORT_BASE+4)."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            base = int(probe.getsockname()[1])
        if base + 4 > 65535:
            continue
        sockets = []
        try:
            for port in range(base, base + 5):
                s = socket.socket()
                sockets.append(s)
                s.bind(("127.0.0.1", port))
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()
        return base
    pytest.skip("no five free consecutive ports on 127.0.0.1")


@pytest.fixture
def kubeconfig(tmp_path: Path) -> Iterator[str]:
    """A running API server (no kubelet) for this test only; stopped when it ends."""
    kubectl = shutil.which("kubectl")
    if not KUBE_UP.is_file() or kubectl is None:
        pytest.skip(
            f"no test control plane ({KUBE_UP} and kubectl on PATH): kept logs are "
            "checked against one only where it exists"
        )
    directory = tmp_path / "kube"
    env = {**os.environ, "KUBE_ONLY": "apiserver"}
    if "T2GEN_KUBE_BIN" in os.environ:
        env["KUBE_BIN"] = os.environ["T2GEN_KUBE_BIN"]
    started = subprocess.run(
        [str(KUBE_UP), str(directory), str(_free_port_base())],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,  # a bound on a broken start, never a wait for an event
    )
    try:
        assert started.returncode == 0, started.stderr[-2000:]
        yield str(directory / "admin.kubeconfig")
    finally:
        subprocess.run(
            [str(KUBE_UP.parent / "kube-down"), str(directory)],
            capture_output=True,
            check=False,
        )


def _kubectl(
    kubeconfig: str, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["kubectl", "--kubeconfig", kubeconfig, *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )


def _wrapper(tmp_path: Path) -> Kubectl:
    """The real kubectl, but for ``wait``: it keeps the server's pod, then fails as a timeout would.

    With no kubelet the reader pod is never Ready; waiting would only burn
    ``--timeout``, so the wrapper answers at once, as kubectl does when it expires.
    """
    script = tmp_path / "kubectl"
    script.write_text(
        textwrap.dedent(
            f"""\
            #!{sys.executable}
            import os, subprocess, sys
            args = sys.argv[1:]
            if "wait" in args:
                pod = next(a for a in args if a.startswith("pod/"))
                before = args[: args.index("wait")]
                with open({str(tmp_path / "server-pod.json")!r}, "w") as out:
                    subprocess.run(["kubectl", *before, "get", pod, "-o", "json"], stdout=out, check=True)
                sys.exit("error: timed out waiting for the condition on " + pod.replace("pod/", "pods/"))
            os.execvp("kubectl", ["kubectl", *args])
            """
        ),
        encoding="utf-8",
    )
    script.chmod(0o755)
    return Kubectl(binary=str(script))


def test_the_kept_claim_outlives_the_job_masters_clean_up(
    kubeconfig: str, tmp_path: Path
) -> None:
    assert _kubectl(kubeconfig, "create", "namespace", NAMESPACE).returncode == 0
    # what the controller manager's ServiceAccount controller makes in every namespace;
    # the reader pod runs as it (with no token), as the job's own accounts may be gone
    made = _kubectl(kubeconfig, "create", "serviceaccount", "default", "-n", NAMESPACE)
    assert made.returncode == 0, made.stderr
    rendered = subprocess.run(
        [sys.executable, "-m", "t2gen", "render", str(EXAMPLE)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    applied = _kubectl(kubeconfig, "apply", "--server-side", "-f", "-", stdin=rendered)
    assert applied.returncode == 0, applied.stderr
    assert (
        "persistentvolumeclaim/wordcount-logs-logs serverside-applied" in applied.stdout
    )

    # The job has run to its end: the job master deletes what JobTerminator deletes, as itself.
    for kind, name in [*job_master_deletes(JOB, [0]), claim(JOB)]:
        deleted = _kubectl(
            kubeconfig,
            "delete",
            "-n",
            NAMESPACE,
            f"{kind.plural}/{name}",
            "--as",
            JOB_MASTER,
        )
        # allowed, then done or absent: this job has no claim <job> (JobTerminator goes on)
        assert deleted.returncode == 0 or "NotFound" in deleted.stderr, deleted.stderr
    refused = _kubectl(
        kubeconfig,
        "delete",
        "-n",
        NAMESPACE,
        f"persistentvolumeclaims/{JOB}-logs",
        "--as",
        JOB_MASTER,
    )
    assert refused.returncode != 0 and "forbidden" in refused.stderr.lower()
    kept = _kubectl(
        kubeconfig, "get", "-n", NAMESPACE, "pvc", f"{JOB}-logs", "-o", "json"
    )
    assert kept.returncode == 0, kept.stderr
    assert json.loads(kept.stdout)["spec"]["resources"]["requests"]["storage"] == "1Gi"

    # t2gen logs creates the reader pod on that claim, and deletes it when it cannot start.
    kubectl = _wrapper(tmp_path)
    with pytest.raises(T2genError, match="timed out waiting for the condition"):
        job_logs(
            str(EXAMPLE),
            io.BytesIO(),
            kubectl=Kubectl(binary=kubectl.binary, kubeconfig=kubeconfig),
            worker=3,
        )
    pod = json.loads((tmp_path / "server-pod.json").read_text())
    assert pod["metadata"]["name"] == reader_name(JOB)
    (volume,) = pod["spec"]["volumes"]
    assert volume["persistentVolumeClaim"] == {
        "claimName": f"{JOB}-logs",
        "readOnly": True,
    }
    (container,) = pod["spec"]["containers"]
    assert container["volumeMounts"][0]["readOnly"] is True
    gone = _kubectl(kubeconfig, "get", "-n", NAMESPACE, "pod", reader_name(JOB))
    assert gone.returncode != 0 and "NotFound" in gone.stderr
