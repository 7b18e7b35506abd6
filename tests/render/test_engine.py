from __future__ import annotations

from pathlib import Path

import pytest

from t2gen.errors import T2genError, TemplateError
from t2gen.pipeline.load import builtin_template_set
from t2gen.render.context import build_context
from t2gen.render.engine import TemplateSet, render
from tests.conftest import build_file_tree
from tests.helpers import job_text, valid_job


def _set(tmp_path: Path, files: dict[str, str]) -> TemplateSet:
    build_file_tree(tmp_path / "set", files)
    return TemplateSet(name="custom", builtin=tmp_path / "set")


def _context() -> dict[str, object]:
    return build_context(valid_job(job_text()))


def test_an_empty_overlay_name_is_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from t2gen.pipeline.job import make_template_set

    monkeypatch.chdir(tmp_path)
    (tmp_path / "extra.yaml.j2").write_text("", encoding="utf-8")
    templates = make_template_set([""])
    assert templates.search_path()[0] == "." and templates.overlays[0][0] == "."


def test_an_overlay_without_templates_is_refused(tmp_path: Path) -> None:
    """A NetworkPolicy written to ``networkpolicy.yaml`` (no ``.j2``) is not silently dropped."""
    from t2gen.pipeline.job import make_template_set

    (tmp_path / "networkpolicy.yaml").write_text(
        "kind: NetworkPolicy\n", encoding="utf-8"
    )
    with pytest.raises(
        T2genError, match=r": holds no template: only files ending in \.j2"
    ):
        make_template_set([str(tmp_path)])
    with pytest.raises(T2genError, match=r": no such template directory$"):
        make_template_set([str(tmp_path / "missing")])


def test_builtin_set_lists_templates_without_partials() -> None:
    names = [name for name, _ in builtin_template_set().templates()]
    assert "_pod.yaml.j2" not in names
    assert names == sorted(names) and "statefulset-workers.yaml.j2" in names


def test_every_expression_is_emitted_as_a_yaml_value(tmp_path: Path) -> None:
    hostile = "x\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: stolen}"
    templates = _set(
        tmp_path,
        {
            "cm.yaml.j2": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  a: {{ value }}\n"
        },
    )
    (document,) = render({"value": hostile}, templates)
    assert document.obj["data"] == {"a": hostile}


def test_undefined_names_fail_with_template_and_line(tmp_path: Path) -> None:
    templates = _set(
        tmp_path,
        {
            "a.yaml.j2": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ nope.name }}\n"
        },
    )
    with pytest.raises(TemplateError) as info:
        render({}, templates)
    assert str(info.value) == "custom/a.yaml.j2:4: 'nope' is undefined"


@pytest.mark.parametrize(("expression", "message"), [("1 / 0", "division by zero")])
def test_any_exception_fails_with_template_and_line(
    tmp_path: Path, expression: str, message: str
) -> None:
    # Not a traceback: an overlay can raise what Python can.
    templates = _set(
        tmp_path,
        {
            "a.yaml.j2": f"apiVersion: v1\nkind: ConfigMap\ndata: {{{{ {expression} }}}}\n"
        },
    )
    with pytest.raises(TemplateError) as info:
        render({}, templates)
    assert str(info.value) == f"custom/a.yaml.j2:3: {message}"


def test_syntax_errors_fail_with_template_and_line(tmp_path: Path) -> None:
    templates = _set(tmp_path, {"a.yaml.j2": "apiVersion: v1\n{% if %}\n"})
    with pytest.raises(
        TemplateError, match=r"^custom/a.yaml.j2:2: Expected an expression"
    ):
        render({}, templates)


def test_errors_in_partials_name_the_partial(tmp_path: Path) -> None:
    templates = _set(
        tmp_path,
        {
            "a.yaml.j2": "apiVersion: v1\nkind: ConfigMap\n{% include '_p.j2' %}\n",
            "_p.j2": "metadata:\n  name: {{ missing }}\n",
        },
    )
    with pytest.raises(TemplateError, match=r"^custom/_p.j2:2: 'missing' is undefined"):
        render({}, templates)


@pytest.mark.parametrize(
    ("partial", "message"),
    [
        ("metadata: {{ missing }}\n", "'missing' is undefined"),
        ("metadata: {{ x\n", "unexpected end of template"),
    ],
)
def test_errors_in_an_overlay_partial_name_the_overlay_file(
    tmp_path: Path, partial: str, message: str
) -> None:
    """A built-in template including an overlay's partial: the error is the overlay's."""
    builtin = build_file_tree(
        tmp_path / "set",
        {"a.yaml.j2": "apiVersion: v1\nkind: ConfigMap\n{% include '_p.j2' %}\n"},
    )
    build_file_tree(tmp_path / "over", {"_p.j2": partial})
    templates = TemplateSet(
        name="custom", builtin=builtin, overlays=(("over", tmp_path / "over"),)
    )
    with pytest.raises(TemplateError, match=rf"^over/_p.j2:1: {message}"):
        render({}, templates)
    # The same directory twice: the first is the one searched, and named.
    twice = TemplateSet(
        name="custom",
        builtin=builtin,
        overlays=(("first", tmp_path / "over"), ("second", tmp_path / "over")),
    )
    with pytest.raises(TemplateError, match=rf"^first/_p.j2:1: {message}"):
        render({}, twice)


def test_broken_yaml_names_the_template_and_the_rendered_line(tmp_path: Path) -> None:
    templates = _set(
        tmp_path,
        {
            "a.yaml.j2": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n bad: indent\n"
        },
    )
    with pytest.raises(
        TemplateError,
        match=r"custom/a.yaml.j2: the rendered YAML does not parse .* rendered line 5",
    ):
        render({}, templates)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("- a\n", "not a Kubernetes object"),
        ("kind: ConfigMap\nmetadata: {name: x}\n", "without apiVersion"),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n", "without metadata.name"),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: 1, k: 2}\n",
            "duplicate key",
        ),
    ],
)
def test_documents_must_be_objects(tmp_path: Path, text: str, fragment: str) -> None:
    with pytest.raises(TemplateError, match=fragment):
        render({}, _set(tmp_path, {"a.yaml.j2": text}))


def test_empty_documents_are_dropped(tmp_path: Path) -> None:
    templates = _set(
        tmp_path, {"a.yaml.j2": "{% if false %}apiVersion: v1{% endif %}\n---\n"}
    )
    assert render({}, templates) == []


def test_builtin_render_of_a_minimal_job() -> None:
    documents = render(_context(), builtin_template_set())
    assert [(d.kind, d.name) for d in documents] == [
        ("ConfigMap", "job"),
        ("Role", "job-worker"),
        ("Role", "job-jm"),
        ("RoleBinding", "job-worker"),
        ("RoleBinding", "job-jm"),
        ("Service", "job-jm"),
        ("Service", "job"),
        ("ServiceAccount", "job-worker"),
        ("ServiceAccount", "job-jm"),
        ("StatefulSet", "job-jm"),
        ("StatefulSet", "job-0"),
    ]
    assert documents[0].template == "k8s/configmap.yaml.j2"


def test_b64encode_filter_for_secret_data(tmp_path: Path) -> None:
    templates = _set(
        tmp_path,
        {
            "s.yaml.j2": "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata:\n  k: {{ value | b64encode }}\n"
        },
    )
    (document,) = render({"value": "héllo"}, templates)
    assert document.obj["data"] == {"k": "aMOpbGxv"}
