"""The template work meter, calibrated (issue 41): every refusal a located error, every one fast.

Each test is a scaled-down copy of a hostile overlay of ``bench/kinds.py``
(which measures the full-size ones against the budget, 10x a plain render's
CPU): what the meter did not charge before (slices, big-integer arithmetic,
compiling a template, many files or directories) is now refused before it
costs, with the template and line named, exit 1 (2 for a usage error) and no
traceback. The built-in templates an overlay does not touch are not metered.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from t2gen.cli.app import app
from t2gen.kube.yamlbounds import ReadBounds
from t2gen.pipeline.job import make_template_set
from t2gen.render import budget, engine, estimate, overlays
from tests.conftest import ROOT

runner = CliRunner()
EXAMPLE = str(ROOT / "examples/wordcount.yaml")
HEAD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  a: "
WORK = "the templates did more than 200,000 units of work"


@pytest.fixture
def small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tenth of the budget, so each test stays fast: what it charges is the point."""
    monkeypatch.setattr(budget.metered.__wrapped__, "__defaults__", (200_000,))


def _overlay(root: Path, body: str, name: str = "x") -> Path:
    root.mkdir(exist_ok=True)
    (root / f"{name}.yaml.j2").write_text(
        HEAD.format(name=name) + body + "\n", encoding="utf-8"
    )
    return root


def _render(*overlays: Path, job: str = EXAMPLE) -> tuple[int, str]:
    arguments = ["render", job]
    for overlay in overlays:
        arguments += ["--templates", str(overlay)]
    result = runner.invoke(app, arguments)
    assert "Traceback" not in result.stderr
    if result.exit_code:
        assert result.stdout == ""
    return result.exit_code, result.stderr


def _refused_at(stderr: str, overlay: Path, line: int | None, message: str) -> None:
    where = f"{overlay}/x.yaml.j2" + (f":{line}" if line else "")
    assert stderr.startswith(f"{where}: {message}"), stderr
    assert stderr.count("\n") == 1


@pytest.mark.usefixtures("small_budget")
@pytest.mark.parametrize(
    ("made", "part", "count"),
    [
        ("[1, 'a'] * 50000", "s[1:]", 40),  # 16 items a unit
        ("'x' * 200000", "s[::-1]", 70),  # 64 characters a unit
        ("'x' * 1000000", "s[1:]", 150),  # 512 characters a unit
    ],
)
def test_slices_are_charged_by_what_they_copy(
    tmp_path: Path, made: str, part: str, count: int
) -> None:
    """1,000 copies of a 1 M-item list take 12 s, uncharged (Jinja2 writes slices past getitem)."""
    body = (
        "{% set s = " + made + " %}{% for i in range(" + str(count) + ") %}"
        "{% set t = " + part + " %}{% endfor %}{{ 1 }}"
    )
    overlay = _overlay(tmp_path / "o", body)
    code, stderr = _render(overlay)
    assert code == 1
    _refused_at(stderr, overlay, 6, WORK)


def test_a_small_slice_still_renders(tmp_path: Path) -> None:
    overlay = _overlay(tmp_path / "o", "{{ job.name[1:3] ~ job.name[::-1] }}")
    assert _render(overlay) == (0, "")


@pytest.mark.usefixtures("small_budget")
def test_big_integer_division_is_charged_by_its_digits(tmp_path: Path) -> None:
    """A 4,096-bit by 2,048-bit division is 40 units of CPU, charged 1 before (a loop iteration)."""
    body = (
        "{% set n = 2 ** 4095 - 1 %}{% set d = 2 ** 2048 + 1 %}"
        "{% for i in range(1000) %}{% for j in range(4) %}{% set q = n // d %}"
        "{% endfor %}{% endfor %}{{ 1 }}"
    )
    overlay = _overlay(tmp_path / "o", body)
    code, stderr = _render(overlay)
    assert code == 1
    _refused_at(stderr, overlay, 6, WORK)


def test_integer_units_grow_with_both_operands() -> None:
    with budget.metered(10**9) as meter:
        budget.charge_binop("//", 7, 3)
        small = 10**9 - meter.left
        budget.charge_binop("//", 2**4095, 2**2048)
        large = 10**9 - meter.left - small
        budget.charge_binop("+", 2**4095, 2**4095)
        added = 10**9 - meter.left - small - large
    assert small == budget.BINOP_UNITS == added
    assert large == budget.BINOP_UNITS + 137 * 69 // budget.INT_PRODUCTS_PER_UNIT


@pytest.mark.usefixtures("small_budget")
@pytest.mark.parametrize(
    "body",
    [
        "{{ 'a'" + " ~ 'a'" * 2_000 + " }}",
        "".join(f"{{% block b{i} %}}{{% endblock %}}" for i in range(300)),
        ("{{ 1" + "|abs" * 100 + " }}") * 10,
    ],
    ids=["2,000 ~", "300 blocks", "1,000 filters"],
)
def test_compiling_a_template_is_charged_before_it_is_parsed(
    tmp_path: Path, body: str
) -> None:
    """100,000 ``~`` cost 20x a render to compile, 20,000 blocks 178 MB: none was charged."""
    overlay = _overlay(tmp_path / "o", body)
    code, stderr = _render(overlay)
    assert code == 1
    _refused_at(stderr, overlay, None, WORK)


def test_compile_units_count_the_tokens_in_tags_only() -> None:
    assert sum(estimate.compile_units("abc: def\n" * 10)) == 90
    # {{ a + b }}: {, {, a, +, b, }, } (an upper bound on Jinja2's tokens)
    assert sum(estimate.compile_units("{{ a + b }}")) == 11 + 7 * 200


@pytest.mark.usefixtures("small_budget")
def test_written_expressions_are_charged_as_measured(tmp_path: Path) -> None:
    """10,000 ``{{ s }}`` were 100,000 units at 8 each; a YAML emission costs about 20."""
    body = (
        "{% set s = 'x' %}\"{% for i in range(1000) %}{% for j in range(10) %}"
        '{{ s }}{% endfor %}{% endfor %}"'
    )
    overlay = _overlay(tmp_path / "o", body)
    code, stderr = _render(overlay)
    assert code == 1
    _refused_at(stderr, overlay, 6, WORK)


def test_more_than_16_template_directories_is_a_usage_error(tmp_path: Path) -> None:
    """10,000 ``--templates`` cost 95x a render; none of these even exists: none is read."""
    missing = [tmp_path / f"missing-{i}" for i in range(17)]
    code, stderr = _render(*missing)
    assert code == 2
    said = " ".join(stderr.replace("│", " ").split())  # Click's box, unwrapped
    assert "given 17 times; at most 16 template directories are read" in said
    assert "no such template directory" not in stderr


def test_16_template_directories_render(tmp_path: Path) -> None:
    overlays = [
        _overlay(tmp_path / f"o{i}", "{{ job.name }}", name=f"x{i}") for i in range(16)
    ]
    assert _render(*overlays)[0] == 0


def test_more_than_500_overlay_templates_are_refused_before_any_renders(
    tmp_path: Path,
) -> None:
    """2,000 overlay files cost 14.5x a render; the count stops at the 501st."""
    first = tmp_path / "a"
    for i in range(300):
        _overlay(first, "b", name=f"x{i}")
    second = tmp_path / "b"
    for i in range(201):
        _overlay(second, "b", name=f"y{i}")
    assert overlays.too_many_templates([first]) is None
    code, stderr = _render(first, second)
    assert code == 1
    assert stderr.startswith(
        f"{second}: the template directories hold more than 500 templates (*.j2 files) in all"
    ), stderr
    assert stderr.count("\n") == 1


def test_the_built_in_templates_an_overlay_does_not_touch_are_not_metered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The largest valid job (5,100,000 units metered) was refused with any overlay.

    Here the budget is lowered below what the example's built-in templates
    use (3,000-7,000 units): one small overlay template still renders, and one
    that replaces the pod partial meters the StatefulSets that include it.
    """
    assert budget.metered.__wrapped__.__defaults__ == (2_000_000,)
    monkeypatch.setattr(budget.metered.__wrapped__, "__defaults__", (2_500,))
    overlay = _overlay(tmp_path / "o", "{{ job.name }}")
    assert _render(overlay)[0] == 0
    pod = (ROOT / "templates/k8s/_pod.yaml.j2").read_text(encoding="utf-8")
    (overlay / "_pod.yaml.j2").write_text(pod, encoding="utf-8")
    touched = make_template_set([str(overlay)]).metered_templates()
    assert touched == {
        "x.yaml.j2",
        "_pod.yaml.j2",
        "statefulset-job-master.yaml.j2",
        "statefulset-workers.yaml.j2",
    }
    code, stderr = _render(overlay)
    assert code == 1
    assert "the templates did more than 2,500 units of work" in stderr


def test_the_built_in_templates_values_do_not_count_against_the_overlays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An overlay's output is read back within 200,000 values (960,000 cost 19.6x a render)."""
    monkeypatch.setattr(
        engine,
        "OVERLAY_OUTPUT_BOUNDS",
        ReadBounds(
            what="rendered manifests", advice="render less", depth=100, nodes=100
        ),
    )
    overlay = _overlay(tmp_path / "o1", "[" + "0," * 80 + "0]")
    assert _render(overlay)[0] == 0  # the built-in objects' values are not counted
    overlay = _overlay(tmp_path / "o2", "[" + "0," * 100 + "0]")
    code, stderr = _render(overlay)
    assert code == 1
    _refused_at(stderr, overlay, None, "what it renders: more than 100 values")
