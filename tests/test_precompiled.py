"""Built-in templates come precompiled from the package; nothing compiled is read from or written to disk.

The old on-disk cache of compiled templates (``$T2GEN_CACHE_DIR`` or
``~/.cache/t2gen``) ran whatever code a writable cache directory held.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jinja2
import pytest

from t2gen.pipeline import builtin_template_set
from t2gen.render import _precompiled, engine
from t2gen.render.context import build_context
from t2gen.resources import templates_dir
from tests.conftest import ROOT
from tests.helpers import valid_job

PRECOMPILED = ROOT / "t2gen" / "render" / "_precompiled"


def test_the_committed_precompiled_templates_are_current() -> None:
    expected = engine.compile_builtin_templates()
    present = {
        path.name: path.read_text(encoding="utf-8") for path in PRECOMPILED.glob("*.py")
    }
    assert present == expected, (
        "t2gen/render/_precompiled is stale: run `make generate`"
    )


def _compiled_from_source(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Render the example; return the templates Jinja2 had to compile from source."""
    engine._environment.cache_clear()
    compiled: list[str] = []
    original = jinja2.Environment.compile

    def spy(
        self: jinja2.Environment,
        source: str,
        name: Any = None,
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        compiled.append(str(name))
        return original(self, source, name, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "compile", spy)
    job = valid_job((ROOT / "examples" / "wordcount.yaml").read_text(encoding="utf-8"))
    try:
        documents = engine.render(build_context(job), builtin_template_set())
    finally:
        engine._environment.cache_clear()
    assert [d.obj["kind"] for d in documents][:1] == ["ConfigMap"]
    return compiled


def test_builtin_templates_are_not_compiled_at_run_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _compiled_from_source(monkeypatch) == []


def test_precompiled_code_for_another_jinja2_is_ignored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        _precompiled, "KEY", _precompiled.KEY.replace(jinja2.__version__, "2.11.3", 1)
    )
    assert "configmap.yaml.j2" in _compiled_from_source(monkeypatch)


def test_precompiled_code_of_an_edited_template_is_ignored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stale = dict(_precompiled.TEMPLATES)
    digest, module = stale["k8s/configmap.yaml.j2"]
    stale["k8s/configmap.yaml.j2"] = ("0" * len(digest), module)
    monkeypatch.setattr(_precompiled, "TEMPLATES", stale)
    assert _compiled_from_source(monkeypatch) == ["configmap.yaml.j2"]


def _poison(directory: Path, marker: Path) -> None:
    """Fill a Jinja2 bytecode cache with valid entries for every built-in template that create ``marker``."""
    cache = jinja2.FileSystemBytecodeCache(str(directory))
    environment = jinja2.Environment()
    for template_set in ("k8s", "secret"):
        search_path = str(Path(templates_dir(), template_set))
        for path in sorted(Path(search_path).glob("*.j2")):
            filename = os.path.join(search_path, path.name)  # noqa: PTH118 - as FileSystemLoader builds it
            bucket = cache.get_bucket(
                environment, path.name, filename, path.read_text(encoding="utf-8")
            )
            bucket.code = compile(
                f"open({str(marker)!r}, 'w').write('ran')", filename, "exec"
            )
            cache.set_bucket(bucket)


def test_a_poisoned_cache_directory_is_never_loaded_nor_created(tmp_path: Path) -> None:
    home, cache_dir, marker = tmp_path / "home", tmp_path / "cache", tmp_path / "ran"
    home.mkdir()
    for directory in (
        cache_dir / f"jinja-{jinja2.__version__}",
        home / ".cache" / "t2gen" / f"jinja-{jinja2.__version__}",
    ):
        directory.mkdir(parents=True)
        _poison(directory, marker)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    env = {**os.environ, "HOME": str(home), "T2GEN_CACHE_DIR": str(cache_dir)}
    env.pop("XDG_CACHE_HOME", None)
    for variables in (env, {k: v for k, v in env.items() if k != "T2GEN_CACHE_DIR"}):
        result = subprocess.run(
            [sys.executable, "-m", "t2gen", "render", "examples/wordcount.yaml"],
            cwd=ROOT,
            env=variables,
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
        )
        assert result.returncode == 0, result.stderr
        assert not marker.exists(), "code from the cache directory ran"
        assert result.stdout == (
            ROOT / "tests/golden/wordcount/expected.stdout"
        ).read_text(encoding="utf-8")
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_no_cache_directory_is_created(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    env.pop("T2GEN_CACHE_DIR", None)
    subprocess.run(
        [sys.executable, "-m", "t2gen", "render", "examples/wordcount.yaml", "--format", "json"],
        cwd=ROOT, env=env, capture_output=True, check=True,
    )  # fmt: skip
    assert list(tmp_path.iterdir()) == []
