"""Kubernetes schemas compiled by fastjsonschema (t2gen/kube/fastschema.py) and their user cache.

The fast validators must accept exactly what jsonschema accepts (what they
reject is re-checked by jsonschema for the messages, so the output cannot
change, but a fast "valid" is final); the cache must never run code that
another user could have written, or that is not what t2gen wrote.
"""

from __future__ import annotations

import copy
import hashlib
import json
import marshal
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from t2gen import usercache
from t2gen.checks.openapi import KubeSchemas
from t2gen.kube import fastschema
from tests.conftest import EXAMPLES, GOLDEN, KUBE_VERSIONS, ROOT
from tests.test_custom_resource_schemas import VALID

WORDCOUNT = "examples/wordcount.yaml"


def _rendered_objects() -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = []
    for path in sorted(GOLDEN.glob("*/expected.stdout")):
        text = path.read_text(encoding="utf-8")
        if not text.startswith("---"):
            continue  # JSON, plan tables, summaries
        try:
            documents = list(yaml.safe_load_all(text))
        except yaml.YAMLError:
            continue  # Helm-escaped output
        objects += [d for d in documents if isinstance(d, dict) and "kind" in d]
    return objects


OBJECTS = _rendered_objects()
CUSTOM = [copy.deepcopy(obj) for obj in VALID.values()]

_SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "s"},
    "data": {"id_rsa": "aGVsbG8=", "other": "aGVsbA=="},
}


def _variants(obj: Any, limit: int = 120) -> Iterator[Any]:
    """Deterministic broken (and some still valid) copies of an object: every field added, dropped or retyped."""
    paths: list[tuple[Any, ...]] = []

    def walk(node: Any, path: tuple[Any, ...]) -> None:
        paths.append(path)
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, (*path, key))
        elif isinstance(node, list) and node:
            walk(node[0], (*path, 0))

    walk(obj, ())
    step = max(1, len(paths) // limit)
    for path in paths[::step]:
        parent = obj
        for part in path:
            parent = parent[part]
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


def _agree(schemas: KubeSchemas, obj: dict[str, Any]) -> tuple[bool, bool] | None:
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    assert isinstance(kind, str) and isinstance(api_version, str)
    fast = schemas._fast_validator(kind, api_version)
    if schemas._schema(kind, api_version) is None:
        return None
    assert fast is not None, f"no fast validator for {api_version} {kind}"
    slow = schemas._validator(kind, api_version)
    return fast(obj), not any(True for _ in slow.iter_errors(obj))


@pytest.mark.parametrize("version", KUBE_VERSIONS)
def test_fast_and_slow_validators_agree_on_goldens_and_broken_copies(
    version: str,
) -> None:
    schemas = KubeSchemas(version)
    compared = rejected = 0
    for obj in [*OBJECTS, *CUSTOM, _SECRET]:
        for candidate in [obj, *_variants(obj)]:
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
    assert len(OBJECTS) > 100 and compared > 5000 and rejected > 2000, (
        compared,
        rejected,
    )


@pytest.mark.parametrize(
    ("value", "valid"),
    [("aGVsbG8=", True), ("aGVsbG8", False), ("a b", False), ("", True), ("QQ", False)],
)
def test_secret_data_is_base64_for_both(value: str, valid: bool) -> None:
    secret = {**_SECRET, "data": {"key": value}}
    assert _agree(KubeSchemas("1.37"), secret) == (valid, valid)


def test_booleans_are_not_integers_and_unknown_keywords_are_not_compiled() -> None:
    schema = {"type": "object", "properties": {"n": {"enum": [0, 1]}}}
    with pytest.raises(fastschema.Unsupported, match="enum"):
        fastschema.self_contained(schema, lambda ref: ("x", {}))
    with pytest.raises(fastschema.Unsupported, match="unevaluatedProperties"):
        fastschema.self_contained(
            {"unevaluatedProperties": False}, lambda ref: ("x", {})
        )
    # 2020-12 applies keywords beside $ref; draft-07 would ignore them.
    rewritten = fastschema.self_contained(
        {"$ref": "#/$defs/a", "maxLength": 2}, lambda ref: ("a", {"type": "string"})
    )
    assert rewritten["allOf"] == [{"$ref": "#/definitions/a"}, {"maxLength": 2}]


# --- the cache -------------------------------------------------------------


def _t2gen(
    *args: str,
    cache: Path,
    env: dict[str, str] | None = None,
    check_modules: bool = False,
) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys, atexit\n"
        "atexit.register(lambda: print(sorted(m for m in ('jsonschema', 'referencing', "
        "'kubernetes_validate', 'fastjsonschema', 'typer') if m in sys.modules), file=sys.stderr))\n"
        if check_modules
        else "import sys\n"
    ) + (
        f"sys.argv = ['t2gen', *{list(args)!r}]\nfrom t2gen.cli.launch import main\nmain()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        env={**os.environ, "T2GEN_CACHE_DIR": str(cache), **(env or {})},
    )


@pytest.fixture(scope="module")
def expected_render() -> str:
    result = subprocess.run(
        [sys.executable, "-m", "t2gen", "render", WORDCOUNT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
    )
    return result.stdout


def _cached(cache: Path) -> list[Path]:
    return sorted(cache.glob(f"{fastschema.CACHE_PREFIX}*"))


def test_a_valid_render_validate_imports_no_jsonschema(
    tmp_path: Path, expected_render: str
) -> None:
    cache = tmp_path / "cache"
    first = _t2gen("render", "--validate", WORDCOUNT, cache=cache, check_modules=True)
    assert first.returncode == 0 and first.stdout == expected_render
    # the first use generates the validators: fastjsonschema, never jsonschema
    assert first.stderr == "['fastjsonschema']\n"
    assert oct(cache.stat().st_mode & 0o777) == "0o700"
    assert (
        len(_cached(cache)) == 6
    )  # ConfigMap, Role, RoleBinding, Service, ServiceAccount, StatefulSet
    assert all(oct(p.stat().st_mode & 0o777) == "0o600" for p in _cached(cache))
    second = _t2gen("render", WORDCOUNT, "--validate", cache=cache, check_modules=True)
    assert (second.returncode, second.stdout, second.stderr) == (
        0,
        expected_render,
        "[]\n",
    )
    check = _t2gen(
        "check",
        "tests/golden/wordcount/expected.stdout",
        cache=cache,
        check_modules=True,
    )
    assert (check.returncode, check.stderr) == (0, "[]\n")
    assert check.stdout == "11 objects valid for Kubernetes 1.37 (strict)\n"


def test_a_rejected_object_gets_todays_messages_from_jsonschema(tmp_path: Path) -> None:
    manifest = tmp_path / "bad.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: 1}\n",
        encoding="utf-8",
    )
    for _ in range(2):  # cold and warm cache
        result = _t2gen(
            "check", str(manifest), cache=tmp_path / "c", check_modules=True
        )
        assert result.returncode == 1 and result.stdout == ""
        assert result.stderr.splitlines()[0] == (
            f"{manifest}:1: ConfigMap/c: data.a: 1 is not of type ['string', 'null']"
        )
        assert "'jsonschema'" in result.stderr.splitlines()[-1]


def _poison(cache: Path, marker: Path, *, mode: int = 0o600) -> Path:
    """Replace every cached validator by code that creates ``marker``, under a name whose hash matches."""
    payload = marshal.dumps(
        compile(
            f"open({str(marker)!r}, 'w').close()\ndef validate(data, formats): pass\n",
            "poison",
            "exec",
        )
    )
    digest = hashlib.sha256(payload).hexdigest()
    written = []
    for path in _cached(cache):
        key = path.name[len(fastschema.CACHE_PREFIX) :].split("-")[0]
        path.unlink()
        poisoned = cache / f"{fastschema.CACHE_PREFIX}{key}-{digest}.marshal"
        poisoned.write_bytes(payload)
        poisoned.chmod(mode)
        written.append(poisoned)
    return written[0]


def test_a_poisoned_file_with_a_matching_name_is_run_control(
    tmp_path: Path,
) -> None:
    # The control for the tests below: a file that passes every check is run.
    cache, marker = tmp_path / "cache", tmp_path / "ran"
    assert _t2gen("render", "--validate", WORDCOUNT, cache=cache).returncode == 0
    _poison(cache, marker)
    assert _t2gen("render", "--validate", WORDCOUNT, cache=cache).returncode == 0
    assert marker.exists()


def test_a_file_whose_content_does_not_match_its_name_is_not_run(
    tmp_path: Path, expected_render: str
) -> None:
    cache, marker = tmp_path / "cache", tmp_path / "ran"
    assert _t2gen("render", "--validate", WORDCOUNT, cache=cache).returncode == 0
    names = [p.name for p in _cached(cache)]
    _poison(cache, marker)
    for poisoned, name in zip(_cached(cache), names, strict=True):
        poisoned.rename(cache / name)  # the legitimate names, foreign content
    result = _t2gen("render", "--validate", WORDCOUNT, cache=cache)
    assert (result.returncode, result.stdout, result.stderr) == (0, expected_render, "")
    assert not marker.exists()


@pytest.mark.parametrize(
    "payload",
    [b"not marshal data", marshal.dumps(compile("x = 1", "no-validate", "exec"))],
)
def test_an_intact_file_that_is_no_validator_is_made_again(
    tmp_path: Path, expected_render: str, payload: bytes
) -> None:
    # Ours, matching its name, yet not a validator: the run goes on, correct.
    cache = tmp_path / "cache"
    assert _t2gen("render", "--validate", WORDCOUNT, cache=cache).returncode == 0
    digest = hashlib.sha256(payload).hexdigest()
    for path in _cached(cache):
        key = path.name[len(fastschema.CACHE_PREFIX) :].split("-")[0]
        path.unlink()
        (cache / f"{fastschema.CACHE_PREFIX}{key}-{digest}.marshal").write_bytes(
            payload
        )
    result = _t2gen("render", "--validate", WORDCOUNT, cache=cache)
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        expected_render,
        "",
    )


@pytest.mark.parametrize("mode", [0o620, 0o602])
def test_a_file_writable_by_others_is_not_run(
    tmp_path: Path, mode: int, expected_render: str
) -> None:
    cache, marker = tmp_path / "cache", tmp_path / "ran"
    assert _t2gen("render", "--validate", WORDCOUNT, cache=cache).returncode == 0
    _poison(cache, marker, mode=mode)
    result = _t2gen("render", "--validate", WORDCOUNT, cache=cache)
    assert (result.returncode, result.stdout) == (0, expected_render)
    assert not marker.exists()


def test_a_symlinked_file_is_not_run(tmp_path: Path) -> None:
    cache, marker = tmp_path / "cache", tmp_path / "ran"
    assert _t2gen("render", "--validate", WORDCOUNT, cache=cache).returncode == 0
    _poison(cache, marker)
    for index, poisoned in enumerate(_cached(cache)):
        elsewhere = tmp_path / f"elsewhere{index}"
        poisoned.rename(elsewhere)
        poisoned.symlink_to(elsewhere)
    assert _t2gen("render", "--validate", WORDCOUNT, cache=cache).returncode == 0
    assert not marker.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file away")
def test_a_file_of_another_user_is_not_run(tmp_path: Path) -> None:
    cache, marker = tmp_path / "cache", tmp_path / "ran"
    assert _t2gen("render", "--validate", WORDCOUNT, cache=cache).returncode == 0
    _poison(cache, marker)
    for path in _cached(cache):
        os.chown(path, 4242, 4242)
    assert _t2gen("render", "--validate", WORDCOUNT, cache=cache).returncode == 0
    assert not marker.exists()


@pytest.mark.parametrize("mode", [0o770, 0o707, 0o777])
def test_a_cache_directory_writable_by_others_is_ignored(
    tmp_path: Path, mode: int, expected_render: str
) -> None:
    cache, marker = tmp_path / "cache", tmp_path / "ran"
    assert _t2gen("render", "--validate", WORDCOUNT, cache=cache).returncode == 0
    _poison(cache, marker)
    cache.chmod(mode)
    before = sorted(cache.iterdir())
    result = _t2gen("render", "--validate", WORDCOUNT, cache=cache, check_modules=True)
    assert (result.returncode, result.stdout) == (0, expected_render)
    assert "'jsonschema'" not in result.stderr  # generated in memory instead
    assert not marker.exists()
    assert sorted(cache.iterdir()) == before  # nothing written either


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a directory away")
def test_a_cache_directory_of_another_user_is_ignored(tmp_path: Path) -> None:
    cache, marker = tmp_path / "cache", tmp_path / "ran"
    assert _t2gen("render", "--validate", WORDCOUNT, cache=cache).returncode == 0
    _poison(cache, marker)
    os.chown(cache, 4242, 4242)
    assert _t2gen("render", "--validate", WORDCOUNT, cache=cache).returncode == 0
    assert not marker.exists()


def test_the_cache_directory_is_found_and_created_0700(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("T2GEN_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert usercache.cache_dir() == tmp_path / "home" / ".cache" / "t2gen"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")  # not absolute: ignored
    assert usercache.cache_dir() == tmp_path / "home" / ".cache" / "t2gen"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert usercache.cache_dir() == tmp_path / "xdg" / "t2gen"
    monkeypatch.setenv("T2GEN_CACHE_DIR", str(tmp_path / "own" / "dir"))
    assert usercache.cache_dir() == tmp_path / "own" / "dir"
    for path in ("home/.cache/t2gen", "xdg/t2gen", "own/dir"):
        assert oct((tmp_path / path).stat().st_mode & 0o777) == "0o700"
    (tmp_path / "file").write_text("", encoding="utf-8")
    monkeypatch.setenv("T2GEN_CACHE_DIR", str(tmp_path / "file"))
    assert usercache.cache_dir() is None


def test_concurrent_first_uses_both_succeed(
    tmp_path: Path, expected_render: str
) -> None:
    cache = tmp_path / "cache"
    code = f"import sys; sys.argv = ['t2gen', 'render', '--validate', {WORDCOUNT!r}]\nfrom t2gen.cli.launch import main\nmain()\n"
    env = {**os.environ, "T2GEN_CACHE_DIR": str(cache)}
    for _ in range(3):
        processes = [
            subprocess.Popen(
                [sys.executable, "-c", code],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                env=env,
            )
            for _ in range(2)
        ]
        for process in processes:
            stdout, stderr = process.communicate(timeout=120)
            assert (process.returncode, stdout, stderr) == (0, expected_render, "")
    files = _cached(cache)
    assert files and not list(cache.glob(".tmp-*"))
    for path in files:  # every file is complete: its name's hash matches
        assert path.name.endswith(
            f"-{hashlib.sha256(path.read_bytes()).hexdigest()}.marshal"
        )


def test_without_fastjsonschema_the_slow_path_gives_the_same_answers(
    tmp_path: Path, expected_render: str
) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.modules['fastjsonschema'] = None\n"
            f"sys.argv = ['t2gen', 'render', '--validate', {WORDCOUNT!r}]\n"
            "from t2gen.cli.launch import main\nmain()\n",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        env={**os.environ, "T2GEN_CACHE_DIR": str(tmp_path / "c")},
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, expected_render, "")
    assert not _cached(tmp_path / "c")


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_render_validate_output_is_the_same_with_and_without_fast_validators(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from t2gen.cli.commands import run_render

    def run(capsys_free: bool) -> tuple[int, str, str]:
        import io

        out, err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), io.StringIO()
        monkeypatch.setattr(sys, "stdout", out)
        monkeypatch.setattr(sys, "stderr", err)
        code = run_render([str(example)], kube_validate=True)
        out.flush()
        return code, out.buffer.getvalue().decode("utf-8"), err.getvalue()  # type: ignore[attr-defined]

    fast = run(True)
    monkeypatch.setattr(fastschema, "load_or_generate", lambda *args: None)
    slow = run(False)
    assert fast == slow and fast[0] == 0


def test_json_manifests_are_checked_the_same(tmp_path: Path) -> None:
    broken = copy.deepcopy(OBJECTS[0])
    broken["metadata"]["bogus"] = True
    manifest = tmp_path / "list.json"
    manifest.write_text(
        json.dumps({"apiVersion": "v1", "kind": "List", "items": [OBJECTS[1], broken]}),
        encoding="utf-8",
    )
    result = _t2gen("check", str(manifest), cache=tmp_path / "c")
    assert result.returncode == 1 and result.stdout == ""
    assert "metadata: unknown field 'bogus'" in result.stderr
