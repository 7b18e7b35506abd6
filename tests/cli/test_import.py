"""``t2gen import`` end to end: option values, port names per pod, must-agree notes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from t2gen.importer import import_config
from t2gen.importer.ports import port_name
from t2gen.inputs.jobfile import parse_job
from t2gen.kube.yamlio import load_all_yaml
from tests.conftest import ROOT
from tests.helpers import Completed, run_cli

T2GEN = Path(sys.executable).parent / "t2gen"
CONF = str(ROOT / "examples/twister2-conf")
TCP = "edu.iu.dsc.tws.comms.tcp.TWSTCPChannel"


def t2gen(*argv: str, stdin: str = "") -> Completed:
    """``t2gen ARGV`` run in this process (:func:`tests.helpers.run_cli`)."""
    return run_cli(list(argv), input=stdin)


def _process(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``t2gen ARGV`` run by the console script."""
    return subprocess.run(
        [str(T2GEN), *argv],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )


def resource_yaml(
    tmp_path: Path, *, per_pod: int, ports: str, channel: str = TCP
) -> Path:
    path = tmp_path / "resource.yaml"
    path.write_text(
        'twister2.job.id: "job"\n'
        'twister2.resource.kubernetes.docker.image: "twister2/twister2-k8s:0.8.0"\n'
        f'twister2.network.channel.class: "{channel}"\n'
        "kubernetes.worker.base.port: 9000\n"
        "twister2.resource.worker.compute.resources:\n"
        "  - cpu: 1.0\n"
        "    ram: 1024\n"
        "    disk: 0.0\n"
        "    instances: 2\n"
        f"    workersPerPod: {per_pod}\n"
        f"twister2.resource.worker.additional.ports: {ports}\n",
        encoding="utf-8",
    )
    return path


# --- option values are usage errors ---------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["--name", "Bad_Name"],
            "t2gen import: Invalid value for '--name': 'Bad_Name' is not a valid job name: expected "
            "lower-case letters, digits and '-', starting with a letter and ending with a letter or "
            "digit, at most 49 characters (e.g. wordcount-1) (see 't2gen import --help')",
        ),
        (
            ["--jar", "build/a b.jar"],
            "t2gen import: Invalid value for '--jar': 'a b.jar' is not a valid file name: expected "
            "a file name of letters, digits, '.', '_', '+' and '-' (e.g. wordcount.jar) "
            "(see 't2gen import --help')",
        ),
        (
            ["--name", "wordcount-jm"],
            "t2gen import: Invalid value for '--name': 'wordcount-jm' ends in '-jm'",
        ),
    ],
)
def test_bad_option_values_are_usage_errors(argv: list[str], expected: str) -> None:
    result = t2gen("import", CONF, *argv)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(expected)
    assert "core.yaml" not in result.stderr  # no unrelated file named


def test_good_option_values_are_used() -> None:
    """The one command line of this file that runs through the console script too."""
    result = t2gen("import", CONF, "--name", "wc", "--jar", "wc-1.0+b.jar")
    process = _process("import", CONF, "--name", "wc", "--jar", "wc-1.0+b.jar")
    assert (process.returncode, process.stdout, process.stderr) == (
        result.returncode,
        result.stdout,
        result.stderr,
    )
    assert result.returncode == 0, result.stderr
    job = parse_job(result.stdout, path="<import>").data
    assert job["metadata"]["name"] == "wc"
    assert job["spec"]["jobPackage"]["jarFile"] == "wc-1.0+b.jar"


# --- port names leave room for the last container's suffix ------------------------------


@pytest.mark.parametrize(
    ("containers", "longest"),
    [(1, 15), (2, 13), (10, 13), (11, 12), (100, 12), (101, 11)],
)
def test_port_name_leaves_room_for_the_suffix(containers: int, longest: int) -> None:
    name, why = port_name("a-very-long-port-name-abc", containers)
    assert name == "a-very-long-port-name-abc"[:longest].rstrip("-")
    assert f"cut to {longest} characters" in why
    assert ("leaving room for" in why) == (containers > 1)


def test_port_name_valid_but_too_long_for_the_pod() -> None:
    assert port_name("metrics-export") == ("metrics-export", "")
    name, why = port_name("metrics-export", 2)
    assert name == "metrics-expor"
    assert why == (
        "cut to 13 characters, leaving room for the '-1' that container 1 of a pod of 2 workers appends"
    )


def test_port_name_whose_letters_are_past_the_cut() -> None:
    assert port_name("1234567890123abc", 2) == (
        "port-12345678",
        "cut to 13 characters, leaving room for the '-1' that container 1 of a pod of 2 "
        "workers appends; 'port-' prefixed (a port name needs a letter)",
    )


def test_long_port_name_with_two_workers_per_pod_imports_and_renders(
    tmp_path: Path,
) -> None:
    path = resource_yaml(
        tmp_path, per_pod=2, ports="['a-very-long-port-name-abc', 'metrics-export']"
    )
    result = import_config([str(path)], jar_file="j.jar")
    assert result.job["spec"]["network"]["additionalPorts"] == [
        "a-very-long-p",
        "metrics-expor",
    ]
    warnings = [str(w) for w in result.warnings]
    assert warnings[0] == (
        f"{path}:11:45: twister2.resource.worker.additional.ports[0]: 'a-very-long-port-name-abc' "
        "is not a Kubernetes port name, written as 'a-very-long-p' (cut to 13 characters, leaving "
        "room for the '-1' that container 1 of a pod of 2 workers appends); the runtime reads only "
        "how many ports there are, not their names"
    )
    assert warnings[1].startswith(
        f"{path}:11:74: twister2.resource.worker.additional.ports[1]: 'metrics-export' is 14 "
        "characters, too long for a port name with 2 workers per pod, written as 'metrics-expor'"
    )
    rendered = t2gen("render", "-", stdin=result.text)
    assert rendered.returncode == 0, rendered.stderr
    names = {
        port["name"]
        for doc in load_all_yaml(rendered.stdout)
        if doc.get("kind") == "StatefulSet"
        for container in doc["spec"]["template"]["spec"]["containers"]
        for port in container.get("ports", [])
    }
    assert {"a-very-long-p", "a-very-long-p-1", "metrics-expor-1"} <= names
    assert max(len(name) for name in names) <= 15


def test_openmpi_pods_keep_15_characters(tmp_path: Path) -> None:
    path = resource_yaml(
        tmp_path,
        per_pod=2,
        ports="['metrics-export']",
        channel="edu.iu.dsc.tws.comms.mpi.TWSMPIChannel",
    )
    result = import_config([str(path)], jar_file="j.jar")
    assert result.job["spec"]["network"]["additionalPorts"] == ["metrics-export"]


# --- the base port's must-agree note only for OpenMPI jobs -----------------------------


@pytest.mark.parametrize(
    ("channel", "noted"),
    [(TCP, False), ("edu.iu.dsc.tws.comms.mpi.TWSMPIChannel", True)],
)
def test_base_port_note_matches_the_job(
    tmp_path: Path, channel: str, noted: bool
) -> None:
    path = resource_yaml(tmp_path, per_pod=1, ports="[]", channel=channel)
    result = import_config([str(path)], jar_file="j.jar")
    agree = [str(w) for w in result.agree]
    assert any("kubernetes.worker.base.port" in line for line in agree) == noted
    assert ("OpenMPI workers compute their port" in result.text) == noted
