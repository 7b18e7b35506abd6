from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from t2gen.checks.openapi import schema_versions
from t2gen.cli._options import KUBE_VERSION_HELP
from t2gen.cli.app import app
from t2gen.inputs.jobfile import read_job
from t2gen.kube.yamlio import load_all_yaml
from t2gen.twister2.sshkeys import KEY_TYPES
from tests.conftest import EXAMPLES, ROOT, build_file_tree
from tests.helpers import job_text, run_cli

runner = CliRunner()


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.startswith("t2gen ") and result.stderr == ""


@pytest.mark.parametrize("command", ["validate", "render", "schema", "init"])
def test_every_command_has_help_with_an_example(command: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0
    assert "Example" in result.stdout and f"t2gen {command}" in result.stdout


def test_no_arguments_prints_help() -> None:
    result = runner.invoke(app, [])
    assert "Usage" in result.stdout + result.stderr


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["render", "--help"]])
def test_help_and_version_import_no_heavy_library(argv: list[str]) -> None:
    code = (
        "import sys\n"
        "from t2gen.cli.app import app\n"
        f"try:\n    app({argv!r})\nexcept SystemExit:\n    pass\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'jinja2', 'jsonschema', 'ruamel', 'yaml', 'pydantic'})\n"
        "print(heavy, file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
    )
    assert result.stderr.strip().splitlines()[-1] == "[]"


def test_python_dash_m() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "t2gen", "--version"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    assert result.returncode == 0 and result.stdout.startswith("t2gen ")


def test_schema_prints_a_valid_schema_that_accepts_every_example() -> None:
    result = runner.invoke(app, ["schema"])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    Draft202012Validator.check_schema(schema)
    for example in EXAMPLES:
        Draft202012Validator(schema).validate(read_job(str(example)).data)


def test_init_prints_a_starter_that_validates_and_renders(tmp_path: Path) -> None:
    starter = runner.invoke(app, ["init"])
    assert starter.exit_code == 0 and starter.stdout.startswith(
        "# yaml-language-server"
    )
    job = tmp_path / "job.yaml"
    job.write_text(starter.stdout, encoding="utf-8")
    assert runner.invoke(app, ["validate", str(job)]).exit_code == 0
    rendered = runner.invoke(app, ["render", str(job)])
    assert rendered.exit_code == 0
    kinds = [obj["kind"] for obj in load_all_yaml(rendered.stdout)]
    assert kinds == [
        "ServiceAccount",
        "ServiceAccount",  # the job master's and the workers'
        "ConfigMap",
        "Role",
        "Role",
        "RoleBinding",
        "RoleBinding",
        "Service",
        "Service",
        "StatefulSet",
        "StatefulSet",
    ]


def test_render_reads_stdin() -> None:
    text = (ROOT / "examples/wordcount.yaml").read_text(encoding="utf-8")
    result = runner.invoke(app, ["render", "-"], input=text)
    assert result.exit_code == 0
    assert (
        result.stdout
        == runner.invoke(app, ["render", str(ROOT / "examples/wordcount.yaml")]).stdout
    )


def test_errors_from_stdin_are_named_dash() -> None:
    result = runner.invoke(
        app, ["validate", "-"], input=job_text("workers: [{count: 3, perPod: 2}]\n")
    )
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(
        "-:7:21: spec.workers[0].count: 3 is not divisible by perPod 2"
    )


def test_render_several_jobs_into_one_stream() -> None:
    result = runner.invoke(app, ["render", *(str(p) for p in EXAMPLES)])
    assert result.exit_code == 0
    names = {obj["metadata"]["name"] for obj in load_all_yaml(result.stdout)}
    assert {"wordcount-0", "heterogeneous-1"} <= names


def test_every_bad_file_is_reported_and_nothing_is_rendered(tmp_path: Path) -> None:
    build_file_tree(
        tmp_path,
        {"good.yaml": job_text(), "bad.yaml": job_text("workers: [{count: 0}]\n")},
    )
    result = runner.invoke(
        app,
        [
            "render",
            str(tmp_path / "good.yaml"),
            str(tmp_path / "bad.yaml"),
            "missing.yaml",
        ],
    )
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines == [
        f"{tmp_path / 'bad.yaml'}:7:21: spec.workers[0].count: 0 is out of range; use 1 to 100000",
        "missing.yaml: no such file",
    ]


def test_same_job_twice_is_refused() -> None:
    example = str(ROOT / "examples/wordcount.yaml")
    result = runner.invoke(app, ["render", example, example])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.endswith(
        "metadata.name: the job file is given twice; give each job file once\n"
    )


def test_two_files_of_one_job_name_both(tmp_path: Path) -> None:
    example = ROOT / "examples/wordcount.yaml"
    copy = tmp_path / "copy.yaml"
    copy.write_text(example.read_text(encoding="utf-8"), encoding="utf-8")
    result = runner.invoke(app, ["render", str(example), str(copy)])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (
        f"{copy}:9:9: metadata.name: job 'wordcount' is also defined by {example}; "
        "two jobs in one namespace need different names (their objects would replace each other)\n"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["render", "JOB", "--job-object", "DIR"],
            "DIR: is a directory, not a job object file",
        ),
        (
            ["render", "JOB", "--job-object", "BIG"],
            "BIG: larger than 1024 KiB; base64-encoded, the job object must fit the ConfigMap (1 MiB)",
        ),
        (
            ["secret", "ssh", "--name", "k", "--from-key", "DIR"],
            "DIR: is a directory, not a private key file",
        ),
        (
            ["secret", "ssh", "--name", "k", "--from-key", "BIG"],
            "BIG: larger than 1024 KiB; an SSH private key is a few KiB",
        ),
        (
            ["check", "LATIN1"],
            "LATIN1:3:21: not UTF-8 (byte 0xe9); save the manifest file as UTF-8 text",
        ),
        (
            ["import", "LATIN1"],
            "LATIN1:3:21: not UTF-8 (byte 0xe9); save the Twister2 configuration file as UTF-8 text",
        ),
    ],
)
def test_files_other_than_job_files_are_named_for_what_they_are(
    tmp_path: Path, argv: list[str], message: str
) -> None:
    """A job object, a private key, manifests and a Twister2 configuration are not job files."""
    (tmp_path / "dir").mkdir()
    (tmp_path / "big").write_bytes(b"x" * (1024 * 1024 + 1))
    (tmp_path / "latin1.yaml").write_bytes(b"a: 1\nb: 2\nmetadata: {name: caf\xe9}\n")
    names = {
        "JOB": str(ROOT / "examples/wordcount.yaml"),
        "DIR": str(tmp_path / "dir"),
        "BIG": str(tmp_path / "big"),
        "LATIN1": str(tmp_path / "latin1.yaml"),
    }
    result = runner.invoke(app, [names.get(arg, arg) for arg in argv])
    assert result.exit_code == 1 and result.stdout == ""
    expected = message
    for placeholder in ("DIR", "BIG", "LATIN1"):
        expected = expected.replace(placeholder, names[placeholder])
    assert result.stderr == expected + "\n"


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["render"], "give a job file: `FILE` or `-f FILE`"),
        (["render", "--bogus", "x"], "No such option"),
        (["render", "x", "--namespace", "Bad_NS"], "is not a namespace name"),
        (["render", "x", "--format", "xml"], "Invalid value"),
        (["render", "x", "--force"], "--force lets --output-dir replace a directory"),
        (["frobnicate"], "No such command"),
    ],
)
def test_usage_errors_exit_2(argv: list[str], fragment: str) -> None:
    result = runner.invoke(app, argv)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert fragment in result.stderr


def test_namespace_option_overrides_the_file() -> None:
    result = runner.invoke(
        app, ["render", str(ROOT / "examples/heterogeneous.yaml"), "-n", "other"]
    )
    assert {obj["metadata"]["namespace"] for obj in load_all_yaml(result.stdout)} == {
        "other"
    }


def test_helm_format_leaves_the_namespace_to_helm(tmp_path: Path) -> None:
    # metadata.namespace of the job file is dropped (and said on stderr), in
    # the objects and in the RoleBinding's subject, so `helm install
    # --namespace` places all of them together.
    build_file_tree(tmp_path, {"job.yaml": job_text(metadata="namespace: batch\n")})
    plain = runner.invoke(app, ["render", str(tmp_path / "job.yaml")])
    # 11 objects, the subjects of the two RoleBindings, and the ConfigMap's record
    # of the package's namespace (t2gen.dev/package-namespace, issue 42)
    assert plain.stdout.count("namespace: batch") == 14
    result = runner.invoke(
        app, ["render", str(tmp_path / "job.yaml"), "--format", "helm"]
    )
    assert result.exit_code == 0
    objects = load_all_yaml(result.stdout)
    assert len(objects) == 11
    # the record stays: it is where the package's pods look, whatever Helm chooses
    assert result.stdout.count("namespace") == 1
    assert "    t2gen.dev/package-namespace: batch\n" in result.stdout
    binding = next(obj for obj in objects if obj["kind"] == "RoleBinding")
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "job-jm"}]
    assert result.stderr == (
        "warning: -o helm leaves out metadata.namespace 'batch': "
        "`helm install --namespace` places the objects\n"
    )


def test_make_demo_prints_only_yaml() -> None:
    # `make demo | kubectl apply -f -`: make must not echo its command on stdout.
    make = shutil.which("make")
    if make is None:
        pytest.skip("no make here")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")
    }
    if subprocess.run(
        [make, "-q", ".venv/.installed"], cwd=ROOT, env=env, check=False
    ).returncode:
        pytest.skip("make would (re)install the venv first; run `make install`")
    result = subprocess.run(
        [make, "demo"], cwd=ROOT, env=env, capture_output=True, text=True, encoding="utf-8", check=False
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    expected = runner.invoke(
        app, ["render", str(ROOT / "examples/wordcount.yaml")]
    ).stdout
    assert result.stdout == expected
    assert load_all_yaml(result.stdout)[0]["kind"] == "ServiceAccount"


def test_output_directory(tmp_path: Path) -> None:
    out = tmp_path / "manifests"
    result = runner.invoke(
        app, ["render", str(ROOT / "examples/wordcount.yaml"), "--output-dir", str(out)]
    )
    assert result.exit_code == 0 and result.stdout == ""
    files = sorted(path.name for path in out.iterdir())
    assert "kustomization.yaml" in files and "statefulset-wordcount-0.yaml" in files


def test_the_same_job_in_two_namespaces_renders(tmp_path: Path) -> None:
    for namespace in ("dev", "prod"):
        build_file_tree(
            tmp_path,
            {f"{namespace}.yaml": job_text(metadata=f"namespace: {namespace}\n")},
        )
    result = runner.invoke(
        app, ["render", str(tmp_path / "dev.yaml"), str(tmp_path / "prod.yaml")]
    )
    assert result.exit_code == 0, result.stderr
    namespaces = [obj["metadata"]["namespace"] for obj in load_all_yaml(result.stdout)]
    assert namespaces.count("dev") == namespaces.count("prod") == 11


def test_kube_version_alone_chooses_what_render_writes() -> None:
    # --kube-version no longer needs --validate: it also chooses the Workload API's shape.
    example = str(ROOT / "examples/workload-api-gang.yaml")
    result = runner.invoke(app, ["render", example, "--kube-version", "1.35"])
    assert result.exit_code == 0, result.stderr
    assert "scheduling.k8s.io/v1alpha1" in result.stdout
    result = runner.invoke(app, ["render", example, "--kube-version", "banana"])
    assert result.exit_code == 2
    assert "'banana' is not a Kubernetes version" in result.stderr
    assert "one of 1.25 to 1.37" in result.stderr


def test_inconsistent_options_are_usage_errors() -> None:
    example = str(ROOT / "examples/wordcount.yaml")
    for argv, fragment in (
        (
            ["render", example, "--output-dir", "out", "--format", "json"],
            "-o/--format applies to standard output only",
        ),
    ):
        result = runner.invoke(app, argv)
        assert result.exit_code == 2 and fragment in " ".join(
            result.stderr.replace("│", " ").split()
        )


def test_objects_too_large_for_kubectl_apply_are_refused_where_they_come_from(
    tmp_path: Path,
) -> None:
    env = "".join(
        f"  - {{name: V{index}, value: '{'x' * 200}'}}\n" for index in range(15)
    )
    job = job_text(f"workers: [{{count: 64, perPod: 64}}]\nenv:\n{env}")
    build_file_tree(tmp_path, {"wide.yaml": job})
    result = runner.invoke(app, ["render", str(tmp_path / "wide.yaml")])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(
        f"{tmp_path / 'wide.yaml'}:9:5: spec.env: StatefulSet job-0 would take "
    )
    assert (
        "kubectl apply keeps each object in an annotation of at most 256 KiB"
        in result.stderr
    )


def test_check_counts_what_it_could_not_check(tmp_path: Path) -> None:
    build_file_tree(
        tmp_path,
        {"cr.yaml": "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"},
    )
    result = runner.invoke(app, ["check", str(tmp_path / "cr.yaml")])
    assert (
        result.stdout
        == "0 objects valid for Kubernetes 1.37 (strict); 1 not checked (no schema)\n"
    )


def test_check_names_the_line_of_a_document_that_is_not_an_object(
    tmp_path: Path,
) -> None:
    build_file_tree(
        tmp_path,
        {
            "m.yaml": "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
            "---\n- just\n- a list\n---\nhello\n"
        },
    )
    path = tmp_path / "m.yaml"
    result = runner.invoke(app, ["check", str(path)])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"{path}:6:1: document 2 is a list, not a Kubernetes object "
        "(a mapping with apiVersion, kind and metadata)",
        f"{path}:9:1: document 3 is a scalar, not a Kubernetes object "
        "(a mapping with apiVersion, kind and metadata)",
    ]


def test_check_of_a_job_file_names_the_command_that_reads_it() -> None:
    """`t2gen check job.yaml` (for `validate`) says so, not that some version serves t2gen/v1."""
    result = runner.invoke(app, ["check", str(ROOT / "examples/wordcount.yaml")])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (
        f"{ROOT / 'examples/wordcount.yaml'}:6:1: kind: document 1: a t2gen job file, not a "
        "Kubernetes object: `t2gen validate` checks it, and `t2gen render <file> | "
        "t2gen check -` the manifests it renders\n"
    )


def _resolve(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """A schema node with its ``$ref`` (to ``#/$defs/...``) merged in."""
    ref = node.get("$ref")
    if ref is None:
        return node
    target = root
    for part in ref.removeprefix("#/").split("/"):
        target = target[part]
    return {**_resolve(target, root), **{k: v for k, v in node.items() if k != "$ref"}}


def _starter_mismatches(
    value: Any, node: dict[str, Any], root: dict[str, Any], path: str, required: bool
) -> Iterator[str]:
    """Every value of the starter that is neither the schema's default nor a required or constant value."""
    node = _resolve(node, root)
    if isinstance(value, dict) and "properties" in node:
        for key, child in value.items():
            assert key in node["properties"], f"{path}.{key}: not in the schema"
            yield from _starter_mismatches(
                child,
                node["properties"][key],
                root,
                f"{path}.{key}".lstrip("."),
                key in node.get("required", []),
            )
    elif isinstance(value, list) and value and "items" in node:
        for index, item in enumerate(value):
            yield from _starter_mismatches(
                item, node["items"], root, f"{path}[{index}]", required
            )
    elif "default" in node:
        if value != node["default"]:
            yield f"{path}: {value!r} shown, but the schema's default is {node['default']!r}"
    elif not required and "const" not in node:
        yield f"{path}: {value!r} shown, but the schema has no default for it"


def test_init_shows_the_schemas_defaults() -> None:
    # The starter says "the values shown are the defaults"; the schema is their only home.
    schema = json.loads((ROOT / "schemas/twister2job.schema.json").read_text("utf-8"))
    starter = load_all_yaml(runner.invoke(app, ["init"]).stdout)[0]
    assert list(_starter_mismatches(starter, schema, schema, "", True)) == []


# Without the optional kubernetes-validate (the `validate` extra): importing it fails.
_WITHOUT_VALIDATE = (
    "import sys; sys.modules['kubernetes_validate'] = None; "
    "sys.argv[0] = 't2gen'; from t2gen.cli.app import main; main()"
)


@pytest.mark.parametrize("with_extra", [True, False], ids=["extra", "no-extra"])
@pytest.mark.parametrize(
    ("command", "version", "message"),
    [
        ("render", "abc", "'abc' is not a Kubernetes version; write it like 1.37, one of 1.25 to 1.37"),
        ("render", "1.24", "Kubernetes 1.24 has no bundled schema; use one of 1.25 to 1.37"),
        ("render", "2.0", "Kubernetes 2.0 has no bundled schema; use one of 1.25 to 1.37"),
        ("render", "1.3", "Kubernetes 1.3 has no bundled schema; use one of 1.25 to 1.37"),
        ("check", "abc", "'abc' is not a Kubernetes version; write it like 1.37, one of 1.25 to 1.37"),
        ("check", "1.38", "Kubernetes 1.38 has no bundled schema; use one of 1.25 to 1.37"),
        ("plan", "1.24", "Kubernetes 1.24 has no bundled schema; use one of 1.25 to 1.37"),
        ("plan", "x1.30", "'x1.30' is not a Kubernetes version; write it like 1.37, one of 1.25 to 1.37"),
    ],
)  # fmt: skip
def test_a_bad_kube_version_is_a_usage_error_with_or_without_the_extra(
    command: str,
    version: str,
    message: str,
    with_extra: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # In this process: t2gen finds kubernetes-validate with importlib.util.find_spec on
    # each call, which a None in sys.modules answers "not installed", as _WITHOUT_VALIDATE
    # does for a process (test_a_good_kube_version_renders_without_the_extra).
    if not with_extra:
        monkeypatch.setitem(sys.modules, "kubernetes_validate", None)
    result = run_cli(
        [command, "examples/wordcount.yaml", "--kube-version", version], cwd=ROOT
    )
    assert (result.returncode, result.stdout) == (2, ""), result.stderr
    assert result.stderr == (
        f"t2gen {command}: Invalid value for '--kube-version': {message} "
        f"(see 't2gen {command} --help')\n"
    )


def test_a_good_kube_version_renders_without_the_extra() -> None:
    result = subprocess.run(
        [sys.executable, "-c", _WITHOUT_VALIDATE, "render", "examples/workload-api-gang.yaml",
         "--kube-version", "v1.35.2"],
        cwd=ROOT, capture_output=True, text=True, encoding="utf-8", check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "scheduling.k8s.io/v1alpha1" in result.stdout


def test_kube_version_help_names_the_bundled_versions() -> None:
    versions = schema_versions()
    assert (
        f"({versions[0]} to {versions[-1]}; default {versions[-1]})"
        in KUBE_VERSION_HELP
    )


def test_key_types_are_sshkeys_own() -> None:
    option = next(
        param
        for param in typer.main.get_command(app)
        .commands["secret"]
        .commands["ssh"]
        .params  # type: ignore[attr-defined]
        if param.name == "key_type"
    )
    assert tuple(option.type.choices) == KEY_TYPES
    assert option.default.value == KEY_TYPES[0]


def _always_warns(data: dict[str, Any], doc: Any) -> Iterator[Any]:
    """Warns on the worker groups of every job."""
    from t2gen.errors import Warning_

    yield Warning_(
        doc.path, *doc.position(("spec", "workers")), "look here", "spec.workers"
    )


@pytest.mark.parametrize("command", ["validate", "render"])
def test_a_rule_warning_is_located_on_stderr_and_exits_0(
    command: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from t2gen.jobfile.rules import REGISTRY, Rule

    monkeypatch.setitem(
        REGISTRY, "always-warns", Rule("always-warns", _always_warns, ("spec",))
    )
    job = tmp_path / "job.yaml"
    job.write_text(job_text("workers:\n  - count: 2\n"), encoding="utf-8")
    result = runner.invoke(app, [command, str(job)])
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"{job}:8:5: warning: spec.workers: look here"
    ]
    assert result.stdout  # the summary, or the manifests


def test_warnings_come_before_the_errors_of_an_invalid_job(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from t2gen.jobfile.rules import REGISTRY, Rule

    monkeypatch.setitem(
        REGISTRY, "always-warns", Rule("always-warns", _always_warns, ("spec",))
    )
    job = tmp_path / "job.yaml"
    job.write_text(
        job_text("workers:\n  - count: 3\n    perPod: 2\n"), encoding="utf-8"
    )
    result = runner.invoke(app, ["render", str(job)])
    assert result.exit_code == 1 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0] == f"{job}:8:5: warning: spec.workers: look here"
    assert "not divisible" in lines[1]


def test_every_commented_option_of_the_starter_is_valid_when_uncommented(
    tmp_path: Path,
) -> None:
    # A user uncomments what they need; each suggestion must then still validate
    # (and render), together with all the others.
    import re

    starter = runner.invoke(app, ["init"]).stdout
    body = starter[starter.index("apiVersion:") :]
    option = re.compile(r"^(\s*)# ( *)([A-Za-z]+:( |$).*)$")
    uncommented = [
        f"{m.group(1)}{m.group(2)}{m.group(3)}" if (m := option.match(line)) else line
        for line in body.splitlines()
    ]
    assert (
        sum(a != b for a, b in zip(uncommented, body.splitlines(), strict=True)) >= 10
    )
    job = tmp_path / "job.yaml"
    job.write_text("\n".join(uncommented) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["render", str(job)])
    assert result.exit_code == 0, result.stderr
    kinds = {obj["kind"] for obj in load_all_yaml(result.stdout)}
    assert {"PodGroup", "PersistentVolumeClaim", "StatefulSet"} <= kinds


def test_a_problem_reached_twice_is_printed_once(tmp_path: Path) -> None:
    """The same finding found by two paths (here: one file named twice) is one line."""
    job = tmp_path / "am4.yaml"
    shutil.copy(ROOT / "tests/cases/access-mode-rwop-job-master/config.yaml", job)
    result = runner.invoke(app, ["validate", str(job), str(job)])
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "ReadWriteOncePod lets one pod" in lines[0]
    assert result.stdout == ""
