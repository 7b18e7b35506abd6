"""The skeleton fast path builds exactly the objects a parse of the rendered text gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
import pytest

from t2gen.kube.yamlio import load_all_yaml
from t2gen.pipeline import job as pipeline
from t2gen.pipeline.load import validate_files
from t2gen.render import skeleton
from t2gen.render.context import build_context
from t2gen.render.engine import make_environment
from tests.conftest import ROOT

EXAMPLES = sorted(
    path
    for path in (ROOT / "examples").glob("*.yaml")
    if "apiVersion" not in path.read_text(encoding="utf-8")[:200]
)


def _same(left: Any, right: Any) -> bool:
    """Equal in value, type and key order, with no object shared."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return list(left) == list(right) and all(
            _same(left[key], right[key]) for key in left
        )
    if isinstance(left, list):
        return len(left) == len(right) and all(
            _same(a, b) for a, b in zip(left, right, strict=True)
        )
    return bool(left == right)


def _environment(source: dict[str, str]) -> jinja2.Environment:
    environment = make_environment([])
    return environment.overlay(loader=jinja2.DictLoader(source))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.stem)
def test_builtin_templates_match_the_text_parse(example: Path) -> None:
    try:
        job = validate_files([str(example)])[0]
    except Exception:
        pytest.skip("not a valid job file")
    template_set = pipeline.builtin_template_set()
    environment = make_environment(template_set.search_path())
    context = build_context(job)
    for name, _ in template_set.templates():
        fast = skeleton.render_objects(environment, name, context)
        assert fast is not None, name
        text = environment.get_template(name).render(context)
        assert _same(fast, load_all_yaml(text)), name
        # A second job of the same shape uses the cached plan.
        again = skeleton.render_objects(environment, name, context)
        assert again is not None
        assert _same(again, fast)
        assert again is not fast


@pytest.mark.parametrize(
    "value",
    [
        "plain",
        "two words",
        "yes",
        "y",
        "0400",
        "1e3",
        "500m",
        "line\nbreak",
        'quo"te\\',
        "tab\there",
        "é ☃ 😀",
        "",
        "---",
        "# not a comment",
        "{{ x }}",
        -5,
        0,
        10**30,
        1.5,
        -0.0,
        1e100,
        True,
        None,
        [1, "a", {"k": "v"}],
        {"nested": {"list": [1, 2]}, "empty": {}, "e": []},
        ("t", 1),
    ],
)
def test_values_read_back_as_the_text_would(value: Any) -> None:
    environment = _environment(
        {"t.j2": "kind: {{ v }}\nitems:\n- {{ v }}\nflow: [{{ v }}, {a: {{ v }}}]\n"}
    )
    context = {"v": value}
    fast = skeleton.render_objects(environment, "t.j2", context)
    text = environment.get_template("t.j2").render(context)
    assert fast is not None
    assert _same(fast, load_all_yaml(text))


@pytest.mark.parametrize(
    ("source", "context"),
    [
        ("a: x-{{ v }}\n", {"v": "y"}),  # part of a larger scalar
        ('a: "{{ v }}"\n', {"v": "y"}),  # inside quotes
        ("# {{ v }}\na: 1\n", {"v": "y"}),  # in a comment
        ("a: {{ v }}{{ v }}\n", {"v": "y"}),  # two values in one scalar
        ("{{ k }}: 1\n{{ j }}: 2\n", {"k": "a", "j": "a"}),  # duplicate keys
        ("{{ k }}: 1\n", {"k": "a b"}),  # a quoted key
        ("a: &x {b: 1}\nc: *x\n", {}),  # an alias
        ("a: {{ v }}\n", {"v": float("nan")}),  # not writable
        ("a: {{ v }}\n", {"v": "\x85"}),  # a character YAML reads differently
        ("a: {{ v }}\n", {"v": {1: "a"}}),  # JSON turns the key into a string
        ("a: {{ v }}\n", {"v": {"k" * 600: 1}}),  # too long for an implicit key
        ("a: [{{ v }}]\n", {"v": "x:y"}),  # a colon in a plain flow scalar
        ("a: {{ missing }}\n", {}),  # undefined
        ("a: {{ v }}\n  b: c\n", {"v": 1}),  # not YAML
        ("{% set s %}{{ v }}{% endset %}a: {{ s }}\n", {"v": 1}),  # captured output
    ],
)
def test_unusual_templates_fall_back(source: str, context: dict[str, Any]) -> None:
    environment = _environment({"t.j2": source})
    assert skeleton.render_objects(environment, "t.j2", context) is None


class _Key(str):
    """A string subclass: JSON writes it as its text, the fast path must not keep it."""


def test_a_remembered_key_stands_only_for_an_exact_string() -> None:
    environment = _environment({"t.j2": "a: {{ v }}\n"})
    plain = {"name": {"name": "x"}}
    assert skeleton.render_objects(environment, "t.j2", {"v": plain}) == [{"a": plain}]
    assert "name" in skeleton._plain_keys
    # Equal and of the same hash as a remembered key, yet not a str: the text is parsed.
    odd = {_Key("name"): "x"}
    assert skeleton.render_objects(environment, "t.j2", {"v": odd}) is None
    with pytest.raises(skeleton._Unusual):
        skeleton._read_back({"n": odd})


def test_remembered_keys_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(skeleton, "_plain_keys", set())
    many = {f"k{index}": index for index in range(skeleton._KEYS_SIZE + 50)}
    many["x" * 111] = 1  # a long key is checked every time, never kept
    assert skeleton._read_back(many) == many
    assert len(skeleton._plain_keys) == skeleton._KEYS_SIZE
    assert "x" * 111 not in skeleton._plain_keys


def test_read_back_copies_every_container_and_refuses_the_odd() -> None:
    inner = {"k": ["a", 1, None, True, 2.5, -0.0]}
    value = [inner, (inner,)]
    copy = skeleton._read_back(value)
    assert copy == [inner, [inner]]
    assert type(copy[1]) is list  # JSON writes a tuple as a list
    # Fresh containers everywhere, as a parse of the text gives, even for a shared one.
    assert copy[0] is not inner and copy[0]["k"] is not inner["k"]
    assert copy[1][0] is not copy[0] and copy[1][0]["k"] is not copy[0]["k"]
    for odd in (
        [{"a": "\x85"}],  # deep in a list of mappings
        [{"a": _Key("x")}],  # a str subclass as a value
        {"a": [float("inf")]},
        {"a": {1: 2}},
        [[b"x"]],
        {"a": {"b": {"k" * 600: 1}}},
    ):
        with pytest.raises(skeleton._Unusual):
            skeleton._read_back(odd)
