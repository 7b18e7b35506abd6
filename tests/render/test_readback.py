"""What templates render is read back within bounds (:mod:`t2gen.render.readback`), located at the template."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from t2gen.cli.app import app
from t2gen.kube.yamlbounds import ReadBounds
from t2gen.render import engine
from tests.conftest import ROOT

runner = CliRunner()
HEAD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  a: "


def _render(overlay: Path) -> tuple[int, str]:
    result = runner.invoke(
        app,
        ["render", str(ROOT / "examples/wordcount.yaml"), "--templates", str(overlay)],
    )
    return result.exit_code, result.stderr


def test_the_values_of_all_the_overlays_templates_share_one_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 960,000 values once cost the reading 19.6x a render; the bound is lowered here so
    # the test reads a few thousand: the overlay's templates share it (the built-in
    # ones it does not touch have their own, tests/render/test_overlay_budget.py).
    monkeypatch.setattr(
        engine,
        "OVERLAY_OUTPUT_BOUNDS",
        ReadBounds(
            what="rendered manifests", advice="render less", depth=100, nodes=3_000
        ),
    )
    first = "[" + "0," * 1_600 + "0]"
    (tmp_path / "a.yaml.j2").write_text(
        HEAD.format(name="a") + first + "\n", encoding="utf-8"
    )
    assert _render(tmp_path)[0] == 0  # one template's 1,601 values fit
    flood = "[" + "0," * 1_600 + "0]"
    (tmp_path / "z.yaml.j2").write_text(
        HEAD.format(name="z") + flood + "\n", encoding="utf-8"
    )
    code, stderr = _render(tmp_path)
    assert code == 1
    assert stderr.startswith(
        f"{tmp_path}/z.yaml.j2: what it renders: more than 3,000 values"
    )
    assert stderr.endswith(
        "t2gen reads at most that many: render less (rendered line 6, column "
        + stderr.rsplit("column ", 1)[1]
    )
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
