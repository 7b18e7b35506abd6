"""The go-templates of the supervisor's script, run by a real kubectl offline, print what the fake kubectl prints.

``tests/lifecycle/fake_kubectl.py`` answers the script's calls in the format
these templates give; this runs the same templates through kubectl's own
go-template printer (``kubectl annotate --local -o go-template=...``, no
cluster) so the fake and kubectl cannot disagree. A watch event is kubectl's
``metav1.WatchEvent`` (``{type, object}``) with ``--output-watch-events``
(kubernetes/kubectl ``pkg/cmd/get/get.go``), so the event template is the
ConfigMap template one level down.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.lifecycle.harness import SCRIPT


def _template(name: str) -> str:
    found = re.search(rf"^{name}='([^']*)'$", SCRIPT, re.MULTILINE)
    assert found, name
    return found.group(1)


CONFIG_MAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "wc"},
    "data": {
        "JOB_ID": "wc",
        "TWISTER2_JOB_OBJECT": "CgJ3Yw==",
        "RESTART_COUNT_FOR_WORKER_1": "2",
        "KILL_JOB": "true",
    },
}
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "wc-0-0"},
    "spec": {"containers": [{"name": "c", "image": "x"}]},
    "status": {
        "containerStatuses": [
            {
                "name": "twister2-container-0",
                "restartCount": 2,
                "image": "x",
                "imageID": "",
                "ready": True,
            },
            {
                "name": "twister2-container-1",
                "restartCount": 0,
                "image": "x",
                "imageID": "",
                "ready": True,
            },
        ]
    },
}


def _print(kubectl: Any, tmp_path: Path, obj: dict[str, Any], template: str) -> str:
    path = tmp_path / "object.json"
    path.write_text(json.dumps(obj))
    result = kubectl(
        "annotate",
        "--local",
        "-f",
        str(path),
        "t2gen.test/x=1",
        "-o",
        f"go-template={template}",
    )
    assert result.returncode == 0, result.stderr
    return str(result.stdout)


def test_config_map_data(kubectl: Any, tmp_path: Path) -> None:
    assert _print(kubectl, tmp_path, CONFIG_MAP, _template("DATA")) == (
        "JOB_ID=wc\nKILL_JOB=true\nRESTART_COUNT_FOR_WORKER_1=2\n"
    )


def test_watch_event(kubectl: Any, tmp_path: Path) -> None:
    event = _template("EVENT")
    assert event.startswith("{{.type}}")
    inner = "MODIFIED" + event.removeprefix("{{.type}}").replace(
        ".object.data", ".data"
    )
    assert _print(kubectl, tmp_path, CONFIG_MAP, inner) == (
        "MODIFIED JOB_ID=wc KILL_JOB=true RESTART_COUNT_FOR_WORKER_1=2\n"
    )


def test_worker_restarts(kubectl: Any, tmp_path: Path) -> None:
    restarts = _template("RESTARTS")
    assert restarts.startswith("{{range .items}}") and restarts.endswith("{{end}}")
    per_pod = restarts.removeprefix("{{range .items}}").removesuffix("{{end}}")
    assert _print(kubectl, tmp_path, POD, per_pod) == (
        "wc-0-0 twister2-container-0 2\nwc-0-0 twister2-container-1 0\n"
    )
