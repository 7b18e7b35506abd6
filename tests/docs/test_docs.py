from __future__ import annotations

from typer.testing import CliRunner

from scripts.docs import (
    job_file_reference,
    rules_reference,
    template_context_reference,
)
from t2gen.cli.app import app
from t2gen.jobfile.rules import REGISTRY
from t2gen.jobfile.schema import load_schema
from t2gen.render.context import CONTEXT_DOC, build_context
from tests.conftest import ROOT
from tests.helpers import job_text, valid_job

runner = CliRunner()


def test_job_file_reference_is_up_to_date() -> None:
    assert (ROOT / "docs/job-file.md").read_text(
        encoding="utf-8"
    ) == job_file_reference(), "run `make docs`"


def test_template_reference_is_up_to_date() -> None:
    assert (ROOT / "docs/templates.md").read_text(
        encoding="utf-8"
    ) == template_context_reference(), "run `make docs`"


def test_rules_reference_is_up_to_date() -> None:
    assert (ROOT / "docs/rules.md").read_text(encoding="utf-8") == rules_reference(), (
        "run `make docs`"
    )


def test_every_rule_is_in_the_rules_reference_with_its_id() -> None:
    page = rules_reference()
    for registered in REGISTRY.values():
        assert f"### `{registered.id}`" in page
        assert f"[`{registered.id}`](#{registered.id})" in page
    assert "``" not in page


def test_every_output_check_is_in_the_rules_reference_with_its_id() -> None:
    from t2gen.checks import ALL_CHECKS

    page = rules_reference()
    for registered in ALL_CHECKS:
        assert f"### `{registered.id}`" in page
        assert f"[`{registered.id}`](#{registered.id})" in page
    assert ":mod:" not in page and ":func:" not in page


def test_every_schema_key_is_in_the_reference() -> None:
    page = job_file_reference()
    for name in (
        "spec.workers[].perPod",
        "spec.placement.nodeAffinity.required[].operator",
        "spec.rbac.create",
    ):
        assert f"`{name}`" in page
    assert load_schema()["description"] in page


def test_context_doc_describes_exactly_the_context() -> None:
    assert set(CONTEXT_DOC) == set(build_context(valid_job(job_text())))


def test_templates_list_and_show() -> None:
    listing = runner.invoke(app, ["templates", "list"]).stdout.splitlines()
    assert "configmap.yaml.j2\tk8s/configmap.yaml.j2" in listing
    assert "_pod.yaml.j2\tk8s/_pod.yaml.j2" in listing
    shown = runner.invoke(app, ["templates", "show", "k8s/configmap.yaml.j2"])
    assert shown.stdout == (ROOT / "templates/k8s/configmap.yaml.j2").read_text(
        encoding="utf-8"
    )
    missing = runner.invoke(app, ["templates", "show", "nope.j2"])
    assert missing.exit_code == 1 and "no such template" in missing.stderr
    for spelling in ("configmap.yaml.j2/", "k8s//configmap.yaml.j2/."):
        again = runner.invoke(app, ["templates", "show", spelling])
        assert (again.exit_code, again.stdout) == (0, shown.stdout)


def test_templates_list_shows_overlays(tmp_path: object) -> None:
    overlay = ROOT / "tests/golden/custom-templates/templates"
    listing = runner.invoke(
        app, ["templates", "list", "--templates", str(overlay)]
    ).stdout.splitlines()
    assert f"networkpolicy.yaml.j2\t{overlay}/networkpolicy.yaml.j2" in listing
    assert (
        f"service-job-master.yaml.j2\t{overlay}/service-job-master.yaml.j2" in listing
    )


def test_pre_commit_hooks_name_real_commands() -> None:
    import yaml

    hooks = yaml.safe_load(
        (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    )
    assert {hook["id"] for hook in hooks} == {"t2gen-validate", "t2gen-render-check"}
    for hook in hooks:
        command = hook["entry"].split()[1:]
        assert runner.invoke(app, [*command, "--help"]).exit_code == 0


def test_static_help_is_up_to_date() -> None:
    from scripts.docs import static_help_module

    assert (ROOT / "t2gen/_generated/cli_help.py").read_text(
        encoding="utf-8"
    ) == static_help_module(), "run `make docs`"


def test_version_and_help_need_no_typer() -> None:
    import subprocess
    import sys

    code = (
        "import atexit, sys\n"
        "from t2gen.cli.launch import main\n"
        "sys.argv = ['t2gen', sys.argv[1]]\n"
        "atexit.register(lambda: print(sorted(m for m in sys.modules if m.split('.')[0] in ('typer', 'rich', 'jinja2', 'yaml')), file=sys.stderr))\n"
        "main()\n"
    )
    for argument in ("--version", "--help", "-h"):
        result = subprocess.run(
            [sys.executable, "-c", code, argument],
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=True,
        )
        assert result.stderr.strip() == "[]"
        expected = runner.invoke(
            app, [argument], env={"COLUMNS": "80", "NO_COLOR": "1"}
        ).stdout
        assert result.stdout == expected
