"""Built-in templates come precompiled from the package, and only while they are current.

That they give the bytes of compiling the source is shown by the golden and
case suites (``T2GEN_NO_PRECOMPILED``); that nothing is read from outside the
package, by tests/test_no_outside_code.py.
"""

from __future__ import annotations

from typing import Any

import jinja2
import pytest

from t2gen._generated import templates as precompiled_templates
from t2gen.pipeline.load import builtin_template_set
from t2gen.render import engine
from t2gen.render.context import build_context
from tests.conftest import ROOT
from tests.helpers import valid_job

PRECOMPILED = ROOT / "t2gen" / "_generated" / "templates"


def test_the_committed_precompiled_templates_are_current() -> None:
    expected = engine.compile_builtin_templates()
    present = {
        path.name: path.read_text(encoding="utf-8") for path in PRECOMPILED.glob("*.py")
    }
    assert present == expected, (
        "t2gen/_generated/templates is stale: run `make generate`"
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
        precompiled_templates,
        "KEY",
        precompiled_templates.KEY.replace(jinja2.__version__, "2.11.3", 1),
    )
    assert "configmap.yaml.j2" in _compiled_from_source(monkeypatch)


def test_precompiled_code_of_an_edited_template_is_ignored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stale = dict(precompiled_templates.TEMPLATES)
    digest, module = stale["k8s/configmap.yaml.j2"]
    stale["k8s/configmap.yaml.j2"] = ("0" * len(digest), module)
    monkeypatch.setattr(precompiled_templates, "TEMPLATES", stale)
    assert _compiled_from_source(monkeypatch) == ["configmap.yaml.j2"]
