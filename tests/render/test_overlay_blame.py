"""An overlay's mistakes are located at the overlay, never blamed on the job file (issue 41).

Before: an overlay's 2 MB ConfigMap was reported as
``examples/wordcount.yaml:20:5: spec.workers: ... use fewer workers per pod``, an
object an overlay rendered twice as ``two job files define the same job``
without a location, and an overlay of partials only rendered the built-in
objects and exited 0 as if it had been used.
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from t2gen.cli.app import app
from tests.conftest import ROOT

runner = CliRunner()
JOB = str(ROOT / "examples/wordcount.yaml")
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n"


def _render(*overlays: Path) -> tuple[int, str, str]:
    argv = ["render", JOB]
    for overlay in overlays:
        argv += ["--templates", str(overlay)]
    result = runner.invoke(app, argv)
    return result.exit_code, result.stdout, result.stderr


def _overlay(tmp_path: Path, name: str, files: dict[str, str]) -> Path:
    directory = tmp_path / name
    directory.mkdir()
    for file_name, text in files.items():
        (directory / file_name).write_text(text, encoding="utf-8")
    return directory


def test_an_overlays_object_too_large_is_blamed_on_its_template(tmp_path: Path) -> None:
    loop = '{% for i in range(2000) %}\n  k{{ i }}: {{ "x" * 1000 }}\n{% endfor %}\n'
    overlay = _overlay(
        tmp_path, "big", {"big.yaml.j2": CONFIG_MAP.format(name="big") + loop}
    )
    code, stdout, stderr = _render(overlay)
    assert (code, stdout) == (1, "")
    assert stderr.startswith(f"{overlay}/big.yaml.j2: ConfigMap big would take ")
    assert "this template renders it" in stderr
    assert "wordcount.yaml" not in stderr and "spec.workers" not in stderr


def test_an_overlays_object_through_aliases_is_refused_at_its_template(
    tmp_path: Path,
) -> None:
    # 3 x 600,000 bytes of data, over the API server's 1 MiB for a ConfigMap: what
    # a template renders is read with no alias at all
    text = CONFIG_MAP.format(name="big") + (
        '  a: &v {{ "y" * 600000 }}\n  b: *v\n  c: *v\n'
    )
    overlay = _overlay(tmp_path, "alias", {"alias.yaml.j2": text})
    code, stdout, stderr = _render(overlay)
    assert (code, stdout) == (1, "")
    assert stderr.startswith(
        f"{overlay}/alias.yaml.j2: what it renders: found an alias"
    )


def test_an_object_an_overlay_renders_twice_is_located_at_the_template(
    tmp_path: Path,
) -> None:
    twice = CONFIG_MAP.format(name="dup") + "  a: b\n"
    overlay = _overlay(tmp_path, "twice", {"dup.yaml.j2": f"{twice}---\n{twice}"})
    code, stdout, stderr = _render(overlay)
    assert (code, stdout) == (1, "")
    assert stderr == (
        f"{overlay}/dup.yaml.j2: ConfigMap/dup: rendered twice (by this template) in "
        "one namespace: kubectl apply would keep one; give each object a name of its own\n"
    )


def test_an_overlay_object_named_like_a_built_in_one_names_both_templates(
    tmp_path: Path,
) -> None:
    text = CONFIG_MAP.format(name="wordcount") + "  a: b\n"  # the job's own ConfigMap
    overlay = _overlay(tmp_path, "clash", {"zz.yaml.j2": text})
    code, _, stderr = _render(overlay)
    assert code == 1
    assert stderr.startswith(
        f"{overlay}/zz.yaml.j2: ConfigMap/wordcount: rendered twice (also by "
        "k8s/configmap.yaml.j2)"
    )


def test_an_overlay_of_new_partials_only_is_refused(tmp_path: Path) -> None:
    overlay = _overlay(
        tmp_path,
        "partials",
        {"_helpers.yaml.j2": "{% macro x() %}a: 1{% endmacro %}\n"},
    )
    code, stdout, stderr = _render(overlay)
    assert (code, stdout) == (1, "")
    assert stderr == (
        f"{overlay}: holds only partials (_helpers.yaml.j2), which only a template "
        "includes, and none replaces a built-in one: add a template (a *.j2 file not "
        "starting with _) that includes them\n"
    )


def test_partials_a_template_of_another_overlay_includes_are_used(
    tmp_path: Path,
) -> None:
    partials = _overlay(tmp_path, "partials", {"_data.yaml.j2": "data:\n  a: b\n"})
    templates = _overlay(
        tmp_path,
        "templates",
        {
            "extra.yaml.j2": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n"
            '{% include "_data.yaml.j2" %}\n'
        },
    )
    code, stdout, stderr = _render(partials, templates)
    assert code == 0, stderr
    assert "name: extra" in stdout


def test_a_partial_replacing_a_built_in_one_is_an_overlay(tmp_path: Path) -> None:
    builtin = (ROOT / "templates/k8s/_pod.yaml.j2").read_text(encoding="utf-8")
    overlay = _overlay(tmp_path, "pod", {"_pod.yaml.j2": builtin})
    code, _, stderr = _render(overlay)
    assert code == 0, stderr


def test_templates_list_and_show_read_an_overlay_of_partials(tmp_path: Path) -> None:
    overlay = _overlay(tmp_path, "partials", {"_helpers.yaml.j2": "a: 1\n"})
    listed = runner.invoke(app, ["templates", "list", "--templates", str(overlay)])
    assert listed.exit_code == 0, listed.stderr
    assert "_helpers.yaml.j2" in listed.stdout
    shown = runner.invoke(
        app, ["templates", "show", "_helpers.yaml.j2", "--templates", str(overlay)]
    )
    assert (shown.exit_code, shown.stdout) == (0, "a: 1\n")
