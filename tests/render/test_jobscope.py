"""The per-job shortcuts of the built-in set give what the plain calls give (issue 41)."""

from __future__ import annotations

import os
from pathlib import Path

import jinja2
import pytest

from t2gen.errors import TemplateError
from t2gen.pipeline import job as pipeline
from t2gen.pipeline.load import validate_files
from t2gen.render import skeleton
from t2gen.render.context import build_context
from t2gen.render.engine import make_environment, render
from t2gen.render.overlays import listed_while_unchanged
from t2gen.render.readback import documents_of
from tests.conftest import ROOT


def test_a_scope_renders_each_builtin_template_as_template_render_does() -> None:
    job = validate_files([str(ROOT / "examples" / "wordcount.yaml")])[0]
    template_set = pipeline.builtin_template_set()
    environment = make_environment(template_set.search_path())
    context = build_context(job)
    scope = skeleton.JobScope(environment, context)
    for name, _ in template_set.templates():
        template = environment.get_template(name)
        assert scope.template(name) is template
        assert scope.render(template) == template.render(context), name
        assert skeleton.render_objects(
            environment, name, context, scope
        ) == skeleton.render_objects(environment, name, context), name
    assert scope.parent == dict(environment.globals, **context)


def test_a_template_with_its_own_globals_is_rendered_by_jinja2_itself() -> None:
    environment = make_environment([])
    template = environment.from_string("{{ extra }} {{ job }}", globals={"extra": 7})
    scope = skeleton.JobScope(environment, {"job": "a"})
    assert "extra" not in scope.parent
    assert scope.render(template) == "7 a"


def test_a_listing_is_read_again_when_its_directory_changes(tmp_path: Path) -> None:
    (tmp_path / "a.yaml.j2").write_text("", encoding="utf-8")
    calls = []

    def list_them() -> list[tuple[str, str]]:
        calls.append(1)
        return [
            (name, f"k/{name}") for name in sorted(p.name for p in tmp_path.iterdir())
        ]

    first = listed_while_unchanged(tmp_path, "k", list_them)
    assert listed_while_unchanged(tmp_path, "k", list_them) == first
    assert len(calls) == 1
    (tmp_path / "b.yaml.j2").write_text("", encoding="utf-8")
    stat = (tmp_path).stat()  # a coarse clock may not move: make sure it does
    os.utime(tmp_path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert listed_while_unchanged(tmp_path, "k", list_them) == (
        ("a.yaml.j2", "k/a.yaml.j2"),
        ("b.yaml.j2", "k/b.yaml.j2"),
    )
    before = len(calls)
    listed_while_unchanged(tmp_path / "gone", "k", list_them)
    listed_while_unchanged(tmp_path / "gone", "k", list_them)
    assert len(calls) == before + 2  # a directory that cannot be read: listed each time


def test_a_kind_that_is_no_name_is_refused_each_time() -> None:
    bad = {"apiVersion": "v1", "kind": "../x", "metadata": {"name": "n"}}
    for _ in range(2):  # the second verdict is the kept one
        with pytest.raises(TemplateError, match="both must be names"):
            documents_of([dict(bad)], "k8s/x.yaml.j2")
    good = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "n"}}
    assert [d.obj for d in documents_of([good, None, good], "k8s/x.yaml.j2")] == [
        good,
        good,
    ]


def test_a_context_key_that_is_no_name_fails_as_without_the_fast_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    template_set = pipeline.builtin_template_set()
    messages = []
    for switch in ("", "1"):
        monkeypatch.setenv("T2GEN_NO_SKELETON", switch)
        with pytest.raises(TemplateError) as caught:
            render({1: 2, "job": {}}, template_set)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize(
    "name", ["a", "missing", "items", "keys", "__class__", "__len__", "get", "pop"]
)
def test_keys_first_reads_what_jinja2s_sandbox_reads(name: str) -> None:
    environment = make_environment([])
    value = {"a": 1, "keys": 2, "items": 3, "get": 4}
    seen = []
    for keys_first in (False, True):
        environment.t2gen_keys_first = keys_first  # type: ignore[attr-defined]
        try:
            found = environment.getattr(value, name)
        finally:
            environment.t2gen_keys_first = False  # type: ignore[attr-defined]
        seen.append(
            (type(found).__name__, getattr(found, "_undefined_name", None))
            if isinstance(found, jinja2.Undefined)
            else found
        )
    assert seen[0] == seen[1]
