"""``render --package`` warns when a package's ``logger.properties`` would not keep ``spec.logs``' files whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from t2gen.inputs.jobfile import read_job
from t2gen.inputs.package import PackageContents
from t2gen.package.keptlogs import kept_logs_warnings, logger_properties
from t2gen.pipeline.load import validate
from t2gen.twister2.logfiles import KEPT_LOGGER_PROPERTIES
from tests.conftest import ROOT
from tests.helpers import run_console
from tests.package.cases import jar_bytes

EXAMPLE = ROOT / "examples/kept-logs.yaml"


@pytest.fixture
def packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``kept.tar.gz`` of the example, ``plain.tar.gz`` of the same job without spec.logs."""
    monkeypatch.chdir(tmp_path)
    text = EXAMPLE.read_text()
    (tmp_path / "plain.yaml").write_text(text[: text.index("  logs:")])
    (tmp_path / "wordcount.jar").write_bytes(jar_bytes())
    for job, name in ((str(EXAMPLE), "kept"), ("plain.yaml", "plain")):
        made = run_console(
            [
                "package",
                job,
                "--jar",
                "wordcount.jar",
                "--output-file",
                str(tmp_path / f"{name}.tar.gz"),
            ]
        )
        assert made.exit_code == 0, made.stderr
    return tmp_path


def test_a_package_without_the_file_handler_is_named(packages: Path) -> None:
    rendered = run_console(["render", str(EXAMPLE), "--package", "plain.tar.gz"])
    assert rendered.exit_code == 0
    assert (
        "kept-logs.yaml:24:3: warning: spec.logs: plain.tar.gz's common/logger.properties"
        in rendered.stderr
    )
    assert "names no Twister2FileLogHandler" in rendered.stderr


def test_t2gen_packages_keep_them_silently(packages: Path) -> None:
    rendered = run_console(["render", str(EXAMPLE), "--package", "kept.tar.gz"])
    assert (rendered.exit_code, rendered.stderr) == (0, "")


def test_twister2s_shipped_settings_cut_the_log_and_truncate_on_restart() -> None:
    shipped = logger_properties(
        "handlers=edu.iu.dsc.tws.common.logging.Twister2FileLogHandler, java.util.logging.ConsoleHandler\n"
        "# a comment\n"
        "edu.iu.dsc.tws.common.logging.Twister2FileLogHandler.limit=50000\n"
        "edu.iu.dsc.tws.common.logging.Twister2FileLogHandler.count=1\n"
    )
    assert (
        shipped["edu.iu.dsc.tws.common.logging.Twister2FileLogHandler.limit"] == "50000"
    )
    kept = logger_properties(KEPT_LOGGER_PROPERTIES)
    assert kept["edu.iu.dsc.tws.common.logging.Twister2FileLogHandler.limit"] == "0"
    assert kept["handlers"].startswith(
        "edu.iu.dsc.tws.common.logging.Twister2FileLogHandler,"
    )


def test_twister2s_shipped_logger_properties_is_warned_twice() -> None:
    doc = read_job(str(EXAMPLE))
    job = validate(doc)
    shipped = (
        "handlers=edu.iu.dsc.tws.common.logging.Twister2FileLogHandler, java.util.logging.ConsoleHandler\n"
        "edu.iu.dsc.tws.common.logging.Twister2FileLogHandler.limit=50000\n"
        "edu.iu.dsc.tws.common.logging.Twister2FileLogHandler.count=1\n"
    )  # twister2/config/src/yaml/conf/common/logger.properties:31,73,77 (c6844d2)
    contents = PackageContents(
        path="submitted.tar.gz",
        packed_bytes=0,
        unpacked_bytes=0,
        members=(),
        job_files=(),
        conf=(("common/logger.properties", shipped.encode()),),
    )
    said = [w.message for w in kept_logs_warnings(job, doc, contents)]
    assert len(said) == 2
    assert "limits each log file to 50000 bytes: a longer log is cut" in said[0]
    assert "a restarted worker truncates its log file" in said[1]
