"""Kubernetes schemas of t2gen's kinds as generated code (t2gen/_generated/kubeschema/, make generate).

The generated validators must accept exactly what jsonschema accepts (what
they reject is re-checked by jsonschema for the messages, so the output cannot
change, but a fast "valid" is final); they are used only for the Kubernetes
version and schemas they were generated from, and never with
``T2GEN_NO_KUBE_SCHEMA_CODE``.
"""

from __future__ import annotations

import copy
import functools
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from scripts import gen_kube_validators
from t2gen._generated import kubeschema
from t2gen.checks.openapi import KubeSchemas
from t2gen.cli.app import app
from t2gen.kube.versions import DEFAULT_KUBE_VERSION
from tests.conftest import EXAMPLES, GOLDEN, ROOT
from tests.gangs.test_custom_resource_schemas import VALID

WORDCOUNT = "examples/wordcount.yaml"
_LOADER = getattr(
    yaml, "CSafeLoader", yaml.SafeLoader
)  # libyaml: 10x faster, same objects


@functools.cache
def _rendered_objects() -> list[dict[str, Any]]:
    """Every object of the YAML goldens: read once per process, by the first test that needs them (not at collection)."""
    objects: list[dict[str, Any]] = []
    for path in sorted(GOLDEN.glob("*/expected.stdout")):
        text = path.read_text(encoding="utf-8")
        if not text.startswith("---"):
            continue  # JSON, plan tables, summaries
        try:
            documents = list(yaml.load_all(text, Loader=_LOADER))
        except yaml.YAMLError:
            continue  # Helm-escaped output
        objects += [d for d in documents if isinstance(d, dict) and "kind" in d]
    return objects


CUSTOM = [copy.deepcopy(obj) for obj in VALID.values()]

_SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "s"},
    "data": {"id_rsa": "aGVsbG8=", "other": "aGVsbA=="},
}


def _key_paths(obj: Any) -> list[tuple[Any, ...]]:
    """Every key path of ``obj``, root first (a list's first item standing for all)."""
    paths: list[tuple[Any, ...]] = []

    def walk(node: Any, path: tuple[Any, ...]) -> None:
        paths.append(path)
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, (*path, key))
        elif isinstance(node, list) and node:
            walk(node[0], (*path, 0))

    walk(obj, ())
    return paths


def _broken_at(obj: Any, path: tuple[Any, ...]) -> Iterator[Any]:
    """Copies of ``obj`` with a field added under ``path``, ``path`` dropped, or its value retyped."""
    for change in ("add", "drop", "retype"):
        broken = copy.deepcopy(obj)
        node = broken
        for part in path[:-1]:
            node = node[part]
        target = node[path[-1]] if path else broken
        if change == "add":
            if isinstance(target, dict):
                target["bogusField"] = 1
                yield broken
        elif change == "drop":
            if path and isinstance(node, dict):
                del node[path[-1]]
                yield broken
        elif path:
            node[path[-1]] = (
                7
                if isinstance(target, str)
                else "7"
                if isinstance(target, (int, float)) and not isinstance(target, bool)
                else "true"
                if isinstance(target, bool)
                else {"a": [1]}
                if isinstance(target, list)
                else ["x"]
            )
            yield broken


def _variants(obj: Any, limit: int = 60) -> Iterator[Any]:
    """Deterministic broken (and some still valid) copies of an object: every field added, dropped or retyped."""
    paths = _key_paths(obj)
    step = max(1, len(paths) // limit)
    for path in paths[::step]:
        yield from _broken_at(obj, path)


def _each_path_once(objects: list[dict[str, Any]]) -> Iterator[Any]:
    """Copies broken at every (kind, key path) of ``objects``, in the first object holding it, and that object."""
    seen: set[tuple[Any, tuple[Any, ...]]] = set()
    for obj in objects:
        new = [path for path in _key_paths(obj) if (obj.get("kind"), path) not in seen]
        if new:
            seen.update((obj.get("kind"), path) for path in new)
            yield obj
        for path in new:
            yield from _broken_at(obj, path)


def _agree(schemas: KubeSchemas, obj: dict[str, Any]) -> tuple[bool, bool] | None:
    """(generated code's answer, jsonschema's answer), or None for a kind with no generated code."""
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    assert isinstance(kind, str) and isinstance(api_version, str)
    fast = schemas._fast_validator(kind, api_version)
    if fast is None:
        return None
    slow = schemas._validator(kind, api_version)
    return fast(obj), not any(True for _ in slow.iter_errors(obj))


def test_the_generated_validators_are_current() -> None:
    present = {
        path.name: path.read_text(encoding="utf-8")
        for path in Path(kubeschema.__file__).parent.glob("*.py")
    }
    assert present == gen_kube_validators.generate(), "run `make generate`"


def test_every_kind_t2gen_renders_has_generated_code() -> None:
    schemas = KubeSchemas(DEFAULT_KUBE_VERSION)
    for api_version, kind in gen_kube_validators.KINDS:
        assert schemas._fast_validator(kind, api_version) is not None, kind


# `make test` breaks every key path of each kind once, in the first golden object
# holding it (570 paths, about 1,500 copies: every place of a kind's schema the
# goldens reach); until issue 41 it broke 12 paths of each distinct shape (about
# 2,900 copies, 390 distinct paths, most of them a StatefulSet's again: 6 s of CPU).
# The slow tier (`make fuzz`) breaks 60 paths of every golden object (about 17,700
# copies), the same paths again in other objects.
@pytest.mark.parametrize(
    ("limit", "least"),
    [
        pytest.param(None, (300, 1000, 600), id="paths"),
        pytest.param(60, (250, 15000, 10000), id="all", marks=pytest.mark.slow),
    ],
)
def test_generated_and_jsonschema_agree_on_goldens_and_broken_copies(
    limit: int | None, least: tuple[int, int, int]
) -> None:
    objects = _rendered_objects()
    schemas = KubeSchemas(DEFAULT_KUBE_VERSION)
    compared = rejected = 0
    everything = [*objects, *CUSTOM, _SECRET]
    candidates = (
        _each_path_once(everything)
        if limit is None
        else (
            candidate
            for obj in everything
            for candidate in [obj, *_variants(obj, limit)]
        )
    )
    for candidate in candidates:
        if not isinstance(candidate.get("kind"), str) or not isinstance(
            candidate.get("apiVersion"), str
        ):
            continue
        answers = _agree(schemas, candidate)
        if answers is None:
            continue
        fast, slow = answers
        assert fast == slow, (candidate, fast, slow)
        compared += 1
        rejected += not slow
    counts = (len(objects), compared, rejected)
    assert all(got > want for got, want in zip(counts, least, strict=True)), counts


@pytest.mark.parametrize(
    ("value", "valid"),
    [("aGVsbG8=", True), ("aGVsbG8", False), ("a b", False), ("", True), ("QQ", False)],
)
def test_secret_data_is_base64_for_both(value: str, valid: bool) -> None:
    secret = {**_SECRET, "data": {"key": value}}
    assert _agree(KubeSchemas(DEFAULT_KUBE_VERSION), secret) == (valid, valid)


def test_booleans_are_not_integers_and_unknown_keywords_are_not_compiled() -> None:
    rewrite = gen_kube_validators.self_contained
    schema = {"type": "object", "properties": {"n": {"enum": [0, 1]}}}
    with pytest.raises(gen_kube_validators.Unsupported, match="enum"):
        rewrite(schema, lambda ref: ("x", {}))
    with pytest.raises(gen_kube_validators.Unsupported, match="unevaluatedProperties"):
        rewrite({"unevaluatedProperties": False}, lambda ref: ("x", {}))
    # 2020-12 applies keywords beside $ref; draft-07 would ignore them.
    rewritten = rewrite(
        {"$ref": "#/$defs/a", "maxLength": 2}, lambda ref: ("a", {"type": "string"})
    )
    assert rewritten["allOf"] == [{"$ref": "#/definitions/a"}, {"maxLength": 2}]


def test_generated_code_is_used_only_for_what_it_was_made_from(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def fast(kind: str, api_version: str, version: str = DEFAULT_KUBE_VERSION) -> bool:
        return KubeSchemas(version)._fast_validator(kind, api_version) is not None

    assert fast("StatefulSet", "apps/v1")
    assert fast("PodGroup", "scheduling.volcano.sh/v1beta1")
    assert not fast("StatefulSet", "apps/v1", "1.36")  # another version: jsonschema
    assert fast("NetworkPolicy", "networking.k8s.io/v1")  # spec.network.policy
    assert not fast("Ingress", "networking.k8s.io/v1")  # not t2gen's kind
    monkeypatch.setenv("T2GEN_NO_KUBE_SCHEMA_CODE", "1")
    assert not fast("StatefulSet", "apps/v1")
    monkeypatch.delenv("T2GEN_NO_KUBE_SCHEMA_CODE")
    monkeypatch.setattr(kubeschema, "KUBERNETES_VALIDATE", "1.37.99")
    assert not fast("StatefulSet", "apps/v1")  # another kubernetes-validate
    table = dict(kubeschema.VALIDATORS)
    module, _ = table["scheduling.volcano.sh/v1beta1", "PodGroup"]
    table["scheduling.volcano.sh/v1beta1", "PodGroup"] = (module, "0" * 64)
    monkeypatch.setattr(kubeschema, "VALIDATORS", table)
    assert not fast("PodGroup", "scheduling.volcano.sh/v1beta1")  # schema edited


def _t2gen(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the console script; stderr ends with the schema libraries it imported."""
    code = (
        "import sys, atexit\n"
        "atexit.register(lambda: print(sorted(m for m in ('jsonschema', 'referencing', "
        "'kubernetes_validate', 'fastjsonschema', 'typer') if m in sys.modules), file=sys.stderr))\n"
        f"sys.argv = ['t2gen', *{list(args)!r}]\nfrom t2gen.cli.launch import main\nmain()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )


def test_a_valid_render_validate_imports_no_jsonschema() -> None:
    expected = (GOLDEN / "wordcount" / "expected.stdout").read_text(encoding="utf-8")
    result = _t2gen("render", "--validate", WORDCOUNT)
    assert (result.returncode, result.stdout, result.stderr) == (0, expected, "[]\n")
    check = _t2gen("check", "tests/golden/wordcount/expected.stdout")
    assert (check.returncode, check.stderr) == (0, "[]\n")
    assert check.stdout == "11 objects valid for Kubernetes 1.37 (strict)\n"


def test_a_rejected_object_gets_todays_messages_from_jsonschema(tmp_path: Path) -> None:
    manifest = tmp_path / "bad.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: 1}\n",
        encoding="utf-8",
    )
    result = _t2gen("check", str(manifest))
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.splitlines()[0] == (
        f"{manifest}:1: ConfigMap/c: data.a: 1 is not of type ['string', 'null']"
    )
    assert "'jsonschema'" in result.stderr.splitlines()[-1]


def test_render_validate_and_check_say_the_same_without_the_generated_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The golden and case suites hold few --validate lines: every example, and
    # broken copies of rendered objects, both ways.
    first = _rendered_objects()[:6]
    broken = copy.deepcopy(first)
    for number, obj in enumerate(broken):
        obj["metadata"]["bogus"] = number
        obj.setdefault("spec", {})["replicas"] = "7"
    manifest = tmp_path / "list.json"
    manifest.write_text(
        json.dumps({"apiVersion": "v1", "kind": "List", "items": first + broken}),
        encoding="utf-8",
    )
    lines = [
        ["render", "--validate", *(str(path) for path in EXAMPLES)],
        ["check", str(manifest)],
    ]
    runner = CliRunner()
    answers = []
    for switch in ("", "1"):
        monkeypatch.setenv("T2GEN_NO_KUBE_SCHEMA_CODE", switch)
        for argv in lines:
            result = runner.invoke(app, argv, catch_exceptions=False)
            answers.append((result.exit_code, result.stdout, result.stderr))
    assert answers[:2] == answers[2:]
    assert answers[0][0] == 0 and answers[1][0] == 1
    assert "metadata: unknown field 'bogus'" in answers[1][2]
