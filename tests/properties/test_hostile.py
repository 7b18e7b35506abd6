"""Hostile inputs, second round (issue 14): encodings, floods, YAML 1.1, forged lines, sizes, keys, ``$(``.

The small inputs are cases in ``tests/cases/``; the large ones are generated
here. Timing is measured by ``bench/floods.py`` (``make bench``), not asserted.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from t2gen.cli.app import app
from t2gen.errors import MAX_REPORTED, ConfigError
from t2gen.inputs.yaml.fastload import fast_load, fast_load_doc
from t2gen.inputs.yaml.loader import parse_config
from t2gen.inputs.yaml.source import MAX_ENTRIES, MAX_NODES
from t2gen.jobfile.schema import load_schema
from tests.conftest import ROOT, kubectl_objects
from tests.helpers import job_text

runner = CliRunner()
sys.path.insert(0, str(ROOT / "bench"))
import floods  # noqa: E402

# --- 1. escaped surrogates -------------------------------------------------


def test_an_escaped_surrogate_pair_is_one_character_end_to_end(
    tmp_path: Path, kubectl: Any
) -> None:
    job = tmp_path / "emoji.yaml"
    job.write_text(
        job_text(
            'workers: [{count: 1}]\nenv:\n  - {name: MOOD, value: "\\ud83d\\ude00"}\n',
            metadata='annotations:\n  mood: "\\ud83d\\ude00!"\n',
        ),
        encoding="utf-8",
    )
    assert runner.invoke(app, ["validate", str(job)]).exit_code == 0
    result = runner.invoke(app, ["render", str(job)])
    assert result.exit_code == 0, result.stderr
    manifest = tmp_path / "out.yaml"
    manifest.write_text(result.stdout, encoding="utf-8")
    objects = kubectl_objects(kubectl, manifest)
    assert {"name": "MOOD", "value": "\U0001f600"} in [
        entry
        for obj in objects
        if obj["kind"] == "StatefulSet"
        for container in obj["spec"]["template"]["spec"]["containers"]
        for entry in container.get("env", [])
    ]
    assert any(
        obj["metadata"].get("annotations", {}).get("mood") == "\U0001f600!"
        for obj in objects
    )


def test_surrogates_give_the_same_text_from_both_readers() -> None:
    text = 'a: "\\ud83d\\ude00"\n'
    assert parse_config(text).data == {"a": "\U0001f600"}
    assert fast_load(text) in (None, {"a": "\U0001f600"})


# --- 3. floods ---------------------------------------------------------------


@pytest.mark.parametrize("label", list(floods.FLOODS))
def test_every_flood_is_judged_in_a_bounded_report(label: str, tmp_path: Path) -> None:
    text = floods.FLOODS[label]()
    assert len(text.encode()) <= 1024 * 1024  # a file t2gen accepts to read
    job = tmp_path / "flood.yaml"
    job.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["validate", str(job)])
    assert result.exit_code == 1 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert 1 <= len(lines) <= MAX_REPORTED + 1
    assert all(line.startswith(f"{job}:") for line in lines[:MAX_REPORTED])
    if len(lines) > MAX_REPORTED:
        assert lines[-1].startswith("... and ") and lines[-1].endswith(" more problems")


@pytest.mark.parametrize("label", [label for label in floods.FLOODS if "U+" in label])
def test_a_flood_holding_a_yaml11_line_break_ends_in_that_one_error(
    label: str, tmp_path: Path
) -> None:
    job = tmp_path / "flood.yaml"
    job.write_text(floods.FLOODS[label](), encoding="utf-8")
    result = runner.invoke(app, ["validate", str(job)])
    assert result.exit_code == 1 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert re.match(
        rf"{re.escape(str(job))}:\d+:\d+: character U\+(0085|2028|2029) ", line
    )


def test_a_report_past_the_bound_counts_the_rest(tmp_path: Path) -> None:
    job = tmp_path / "env.yaml"
    job.write_text(
        job_text(
            "workers: [{count: 1}]\nenv: [" + ",".join(["{name: 9}"] * 250) + "]\n"
        ),
        encoding="utf-8",
    )
    lines = runner.invoke(app, ["validate", str(job)]).stderr.splitlines()
    assert len(lines) == MAX_REPORTED + 1
    assert lines[-1] == "... and 150 more problems"


@pytest.mark.parametrize(
    "text",
    [
        "a: [" + ",".join(["1"] * (MAX_ENTRIES + 5)) + "]\n",
        "a: [" + ",".join(["0x1"] * (MAX_ENTRIES + 5)) + "]\n",  # the full reader's
        "a: {" + ",".join(f"k{i}: 1" for i in range(MAX_ENTRIES + 5)) + "}\n",
        "".join(f"k{i}: [1,1,1,1,1,1,1,1,1]\n" for i in range(MAX_NODES // 10 + 5)),
    ],
    ids=["list", "list-full-reader", "mapping", "values"],
)
def test_both_readers_stop_a_flood_at_the_same_place(text: str) -> None:
    with pytest.raises(ConfigError) as full:
        parse_config(text, path="j")
    try:
        fast = fast_load_doc(text, path="j")
    except ConfigError as err:
        assert err.lines() == full.value.lines()
    else:
        assert fast is None  # left to the full reader
    assert "t2gen stopped reading here" in str(full.value)


def _values_flood(last: int) -> str:
    """20 keys of 990 values each and a key ``z`` of ``last``: 19,843 + ``last`` values.

    A value is each scalar (keys included), list and mapping: 20 x 990 + 21 keys
    + 21 lists + the root mapping. Every list and mapping stays under
    MAX_ENTRIES, so only MAX_NODES can stop it.
    """
    assert MAX_ENTRIES > 990
    lists = "".join(f"k{i}: [" + ",".join(["1"] * 990) + "]\n" for i in range(20))
    return lists + "z: [" + ",".join(["1"] * last) + "]\n"


_AT_THE_VALUE_LIMIT = MAX_NODES - (20 * 990 + 21 + 21 + 1)


def test_the_fast_reader_takes_the_value_limit_and_stops_one_past_it() -> None:
    # The floods above stop at MAX_ENTRIES first; this one reaches MAX_NODES.
    assert 0 < _AT_THE_VALUE_LIMIT < 990
    fast = fast_load_doc(_values_flood(_AT_THE_VALUE_LIMIT), path="j")
    assert fast is not None
    expected = {f"k{i}": [1] * 990 for i in range(20)}
    assert fast.data == {**expected, "z": [1] * _AT_THE_VALUE_LIMIT}
    with pytest.raises(ConfigError) as past:
        fast_load_doc(_values_flood(_AT_THE_VALUE_LIMIT + 1), path="j")
    assert past.value.lines() == [
        f"j:21:{3 + 2 * (_AT_THE_VALUE_LIMIT + 1)}: the job file holds more than "
        f"{MAX_NODES:,} values; a job file holds far fewer (t2gen stopped reading here)"
    ]


# ruamel.yaml reads 20,000 values in some 2 s: the full reader meets the same
# flood in the slow tier (`make fuzz`).
@pytest.mark.slow
def test_the_full_reader_stops_one_past_the_value_limit_as_the_fast_one() -> None:
    text = _values_flood(_AT_THE_VALUE_LIMIT)
    fast = fast_load_doc(text, path="j")
    assert fast is not None and fast.data == parse_config(text, path="j").data
    past = _values_flood(_AT_THE_VALUE_LIMIT + 1)
    with pytest.raises(ConfigError) as full:
        parse_config(past, path="j")
    with pytest.raises(ConfigError) as fast_past:
        fast_load_doc(past, path="j")
    assert fast_past.value.lines() == full.value.lines()


def test_no_schema_limit_is_above_the_readers_entry_limit() -> None:
    def limits(node: Any) -> list[int]:
        if isinstance(node, dict):
            own = [v for k, v in node.items() if k in ("maxItems", "maxProperties")]
            return own + [n for value in node.values() for n in limits(value)]
        if isinstance(node, list):
            return [n for value in node for n in limits(value)]
        return []

    assert max(limits(load_schema())) <= MAX_ENTRIES


# --- 4. YAML 1.2 only --------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "value"),
    [("1_2", "1_2"), ("1_0.5", "1_0.5"), ("0x_1", "0x_1"), ("0x1F", 31), ("+7", 7),
     ("0o17", 15), ("TRUE", True), ("NULL", None), ("1e3", 1000.0), ("-.inf", float("-inf"))],
)  # fmt: skip
def test_numbers_read_alike_in_both_readers(written: str, value: Any) -> None:
    text = f"a: {written}\n"
    assert parse_config(text).data == {"a": value}
    assert fast_load(text) == {"a": value}


# --- 6. size refusals blame the right field ------------------------------------


def _fat_affinity(tmp_path: Path) -> Path:
    values = "[" + ",".join(f"v{i:02d}{'x' * 60}" for i in range(32)) + "]"
    required = "".join(
        f"      - {{key: k{i}, operator: In, values: {values}}}\n" for i in range(64)
    )
    preferred = "".join(
        f"      - {{weight: 1, key: k{i}, operator: In, values: {values}}}\n"
        for i in range(64)
    )
    job = tmp_path / "fat.yaml"
    job.write_text(
        job_text(
            "workers: [{count: 2}]\nplacement:\n  nodeAffinity:\n    required:\n"
            + required
            + "    preferred:\n"
            + preferred
        ),
        encoding="utf-8",
    )
    return job


def test_fat_node_affinity_is_blamed_alike_by_validate_and_render(
    tmp_path: Path,
) -> None:
    job = _fat_affinity(tmp_path)
    validated = runner.invoke(app, ["validate", str(job)])
    rendered = runner.invoke(app, ["render", str(job)])
    assert validated.exit_code == rendered.exit_code == 1
    assert validated.stderr == rendered.stderr
    assert validated.stderr.startswith(f"{job}:9:5: spec.placement: StatefulSet job-0 ")
    assert rendered.stdout == ""


def test_a_large_job_object_is_blamed_on_its_file(tmp_path: Path) -> None:
    blob = tmp_path / "job.obj"
    blob.write_bytes(os.urandom(700 * 1024))
    result = runner.invoke(
        app, ["render", "examples/wordcount.yaml", "--job-object", str(blob)]
    )
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"{blob}: ConfigMap wordcount would take ")
    assert "spec.workers" not in result.stderr


def test_ten_thousand_worker_groups_are_blamed_on_the_workers(tmp_path: Path) -> None:
    job = tmp_path / "groups.yaml"
    job.write_text(
        job_text("workers:\n" + "  - {count: 1}\n" * 10_000), encoding="utf-8"
    )
    result = runner.invoke(app, ["validate", str(job)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{job}:8:5: this list has more than 1,000 entries")


def test_too_many_containers_are_blamed_on_the_workers(tmp_path: Path) -> None:
    env = "".join(f"  - {{name: V{i}}}\n" for i in range(12))
    job = tmp_path / "containers.yaml"
    job.write_text(
        job_text("workers:\n" + "  - {count: 64, perPod: 64}\n" * 50 + "env:\n" + env),
        encoding="utf-8",
    )
    result = runner.invoke(app, ["validate", str(job)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{job}:8:5: spec.workers: the job's pod templates")
    assert "spec.env" not in result.stderr


# --- 8. secret ssh --from-key ------------------------------------------------


@pytest.fixture(scope="module")
def ssh_key(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    path = tmp_path_factory.mktemp("key") / "id"
    path.write_bytes(
        ed25519.Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.OpenSSH,
            serialization.NoEncryption(),
        )
    )
    return path


def _secret_key(key_file: Path) -> tuple[int, str, str]:
    result = runner.invoke(
        app, ["secret", "ssh", "--name", "s", "--from-key", str(key_file)]
    )
    if result.exit_code:
        return result.exit_code, "", result.stderr
    (secret,) = list(yaml.safe_load_all(result.stdout))
    data = secret.get("stringData") or {
        k: __import__("base64").b64decode(v).decode() for k, v in secret["data"].items()
    }
    return 0, data["id_rsa"], result.stderr


@pytest.mark.parametrize(
    "variant", ["crlf", "newlines-removed", "spaces-for-newlines", "text-after"]
)
def test_a_damaged_or_padded_key_gives_exactly_the_key(
    variant: str, ssh_key: Path, tmp_path: Path
) -> None:
    original = ssh_key.read_text(encoding="ascii")
    given = {
        "crlf": original.replace("\n", "\r\n"),
        "newlines-removed": original.replace("\n", ""),
        "spaces-for-newlines": original.replace("\n", " "),
        "text-after": original + "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG\n",
    }[variant]
    key_file = tmp_path / "key"
    key_file.write_text(given, encoding="ascii", newline="")
    code, written, stderr = _secret_key(key_file)
    assert code == 0, stderr
    if variant in ("crlf", "text-after"):
        assert written == original  # a well-formed block is kept byte for byte
    else:  # wrapped again: the same key, in lines of at most 70 characters
        assert "".join(written.split()) == "".join(original.split())
        assert all(len(line) <= 70 for line in written.splitlines()[1:-1])
    keygen = shutil.which("ssh-keygen")
    if keygen is None:
        pytest.skip("ssh-keygen is not installed (openssh-client)")
    out = tmp_path / "written"
    out.write_text(written, encoding="ascii", newline="")
    out.chmod(stat.S_IRUSR | stat.S_IWUSR)
    loaded = subprocess.run(
        [keygen, "-y", "-f", str(out)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    assert loaded.returncode == 0, loaded.stderr


def test_a_file_with_two_keys_is_refused(ssh_key: Path, tmp_path: Path) -> None:
    key_file = tmp_path / "two"
    key_file.write_text(ssh_key.read_text(encoding="ascii") * 2, encoding="ascii")
    code, _, stderr = _secret_key(key_file)
    assert code == 1
    assert stderr == f"{key_file}: holds 2 private keys; give a file with exactly one\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("command", ["validate", "secret"])
def test_a_fifo_is_refused_not_waited_on(command: str, tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    argv = (
        ["validate", str(fifo)]
        if command == "validate"
        else ["secret", "ssh", "--name", "s", "--from-key", str(fifo)]
    )
    done: dict[str, Any] = {}
    worker = threading.Thread(
        target=lambda: done.update(result=runner.invoke(app, argv)), daemon=True
    )
    worker.start()
    worker.join(timeout=20)
    if worker.is_alive():  # unblock the reader, then fail
        with fifo.open("wb"):
            pass
        pytest.fail("t2gen waited on a FIFO")
    result = done["result"]
    assert result.exit_code == 1
    assert result.stderr == (
        f"{fifo}: not a regular file (a pipe, socket or device); give a file, or - to read "
        "standard input\n"
    )


def test_dash_still_reads_standard_input() -> None:
    text = (ROOT / "examples" / "wordcount.yaml").read_text(encoding="utf-8")
    result = runner.invoke(app, ["validate", "-"], input=text)
    assert result.exit_code == 0, result.stderr


# --- 10. $( in env values ------------------------------------------------------


def _kubelet_expand(value: str, variables: dict[str, str]) -> str:
    """Kubernetes' ``expansion.Expand`` (third_party/forked/golang/expansion/expand.go), in Python."""
    out, i = [], 0
    while i < len(value):
        if value[i] == "$" and i + 1 < len(value):
            following = value[i + 1]
            if following == "$":
                out.append("$")
                i += 2
                continue
            if following == "(":
                end = value.find(")", i + 2)
                if end != -1:
                    name = value[i + 2 : end]
                    out.append(variables.get(name, f"$({name})"))
                    i = end + 1
                    continue
        out.append(value[i])
        i += 1
    return "".join(out)


def test_env_values_reach_the_container_unchanged(tmp_path: Path, kubectl: Any) -> None:
    values = [
        "$(HOST_IP)",
        "$$(HOST_IP)",
        "a$b",
        "cost: $5",
        "$",
        "$$",
        "x$(",
        "$(A)$(B)",
    ]
    env = "".join(
        f"  - {{name: V{i}, value: {json.dumps(v)}}}\n" for i, v in enumerate(values)
    )
    job = tmp_path / "dollars.yaml"
    # spec.env is the workers'; the job master gets the same values in its own env
    master = textwrap.indent(env, "  ")
    job.write_text(
        job_text(f"workers: [{{count: 1}}]\nenv:\n{env}jobMaster:\n  env:\n{master}"),
        encoding="utf-8",
    )
    result = runner.invoke(app, ["render", str(job)])
    assert result.exit_code == 0, result.stderr
    manifest = tmp_path / "out.yaml"
    manifest.write_text(result.stdout, encoding="utf-8")
    containers = [
        container
        for obj in kubectl_objects(kubectl, manifest)
        if obj["kind"] == "StatefulSet"
        for container in obj["spec"]["template"]["spec"]["containers"]
    ]
    assert containers
    runtime = {"HOST_IP": "10.0.0.1", "A": "a", "B": "b"}
    for container in containers:
        seen = {
            entry["name"]: _kubelet_expand(entry["value"], runtime)
            for entry in container["env"]
            if entry["name"].startswith("V")
        }
        assert seen == {f"V{i}": v for i, v in enumerate(values)}
