"""Kept logs against a real API server: the job master's clean-up leaves the claim, and ``t2gen logs`` asks for it.

The control plane is the real-API-server tier's (``tests/kubeapi/``, one per
test process; skipped with the reason on a clone without its binaries), and
this test's own namespace; there is no kubelet, so no volume is ever mounted
and no pod runs. What a kubelet would do is the contract of
``tests/contract/test_kept_logs.py`` (where Twister2 writes each file) and
``tests/status/test_logs.py`` (the files printed whole); here the API server
decides what only it can: that the rendered objects are accepted, that the job
master's Role allows every delete of ``JobTerminator`` and refuses the kept
claim's (DSC-SPIDAL/twister2 c6844d2,
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/master/JobTerminator.java:36-88``),
that the claim is still there after those deletes, and what pod ``t2gen logs``
creates.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from t2gen.errors import T2genError
from t2gen.pipeline.logs import job_logs
from t2gen.status.fetch import Kubectl
from t2gen.status.logs import reader_name
from t2gen.twister2.terminator import claim, job_master_deletes
from tests.conftest import ROOT, _kubectl_path
from tests.kubeapi.controlplane import ControlPlane

EXAMPLE = ROOT / "examples/kept-logs.yaml"
JOB = "wordcount-logs"


def _wrapper(tmp_path: Path, kubectl: str, home: Path) -> str:
    """The real kubectl, but for ``wait``: it keeps the server's pod, then fails as a timeout would.

    Its ``HOME`` is the cluster's directory, where kubectl keeps its cache.
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
            os.environ["HOME"] = {str(home)!r}  # kubectl's cache, beside the cluster
            if "wait" in args:
                pod = next(a for a in args if a.startswith("pod/"))
                before = args[: args.index("wait")]
                with open({str(tmp_path / "server-pod.json")!r}, "w") as out:
                    subprocess.run([{kubectl!r}, *before, "get", pod, "-o", "json"], stdout=out, check=True)
                sys.exit("error: timed out waiting for the condition on " + pod.replace("pod/", "pods/"))
            os.execv({kubectl!r}, [{kubectl!r}, *args])
            """
        ),
        encoding="utf-8",
    )
    script.chmod(0o755)
    return str(script)


def test_the_kept_claim_outlives_the_job_masters_clean_up(
    cluster: ControlPlane, namespace: str, tmp_path: Path
) -> None:
    kubectl = _kubectl_path()
    assert kubectl is not None, "kubectl is missing: install the dev extra"
    job_master = f"system:serviceaccount:{namespace}:{JOB}-jm"
    # what the controller manager's ServiceAccount controller makes in every namespace;
    # the reader pod runs as it (with no token), as the job's own accounts may be gone
    cluster.kubectl("create", "serviceaccount", "default", "-n", namespace, check=False)
    rendered = subprocess.run(
        [sys.executable, "-m", "t2gen", "render", str(EXAMPLE), "-n", namespace],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    applied = cluster.kubectl("apply", "--server-side", "-f", "-", input_text=rendered)
    assert f"persistentvolumeclaim/{JOB}-logs serverside-applied" in applied.stdout
    # The job has run to its end: the job master deletes what JobTerminator deletes, as itself.
    for kind, name in [*job_master_deletes(JOB, [0]), claim(JOB)]:
        deleted = cluster.kubectl(
            "delete",
            "-n",
            namespace,
            f"{kind.plural}/{name}",
            "--as",
            job_master,
            check=False,
        )
        # allowed, then done or absent: this job has no claim <job> (JobTerminator goes on)
        assert deleted.returncode == 0 or "NotFound" in deleted.stderr, deleted.stderr
    refused = cluster.kubectl(
        "delete",
        "-n",
        namespace,
        f"persistentvolumeclaims/{JOB}-logs",
        "--as",
        job_master,
        check=False,
    )
    assert refused.returncode != 0 and "forbidden" in refused.stderr.lower()
    kept = cluster.kubectl("get", "-n", namespace, "pvc", f"{JOB}-logs", "-o", "json")
    assert json.loads(kept.stdout)["spec"]["resources"]["requests"]["storage"] == "1Gi"
    # t2gen logs creates the reader pod on that claim, and deletes it when it cannot start.
    wrapper = _wrapper(tmp_path, kubectl, cluster.directory)
    with pytest.raises(T2genError, match="timed out waiting for the condition"):
        job_logs(
            str(EXAMPLE),
            io.BytesIO(),
            kubectl=Kubectl(binary=wrapper, kubeconfig=str(cluster.kubeconfig)),
            worker=3,
            namespace=namespace,
        )
    pod = json.loads((tmp_path / "server-pod.json").read_text(encoding="utf-8"))
    assert pod["metadata"]["name"] == reader_name(JOB)
    (volume,) = pod["spec"]["volumes"]
    assert volume["persistentVolumeClaim"] == {
        "claimName": f"{JOB}-logs",
        "readOnly": True,
    }
    (container,) = pod["spec"]["containers"]
    assert container["volumeMounts"][0]["readOnly"] is True
    gone = cluster.kubectl("get", "-n", namespace, "pod", reader_name(JOB), check=False)
    assert gone.returncode != 0 and "NotFound" in gone.stderr
