"""t2gen/bytecode.py: the console script's finder loads t2gen's modules as Python's import system would.

The finder must give every module the same file, cache file, spec and source
as without it, and :func:`cached_code` must accept a ``.pyc`` exactly when
CPython's ``SourceFileLoader`` would, leaving every other case to it.
"""

from __future__ import annotations

import importlib
import json
import os
import py_compile
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from t2gen.bytecode import PackageFinder, cached_code, install
from tests.conftest import ROOT

# Every module of t2gen, imported in a fresh interpreter with or without the
# finder; prints what a module's import gave it.
_DESCRIBE = """
import importlib, inspect, json, pkgutil, sys
read = []
if sys.argv[1] == "finder":
    from t2gen import bytecode
    bytecode.install()
    plain_cached_code = bytecode.cached_code
    def cached_code(source):
        code = plain_cached_code(source)
        read.append(code is not None)
        return code
    bytecode.cached_code = cached_code
import t2gen
names = sorted(
    info.name
    for info in pkgutil.walk_packages(t2gen.__path__, "t2gen.")
    if not info.name.endswith("__main__")
)
found = {}
for name in names:
    module = importlib.import_module(name)
    spec = module.__spec__
    found[name] = {
        "file": module.__file__,
        "cached": module.__cached__,
        "package": module.__package__,
        "path": list(getattr(module, "__path__", [])) or None,
        "origin": spec.origin,
        "locations": spec.submodule_search_locations,
        "source": inspect.getsource(module).splitlines()[0],
        "loader": type(module.__loader__).__name__,
    }
print(json.dumps({"modules": found, "read": read}))
"""


def _describe(mode: str, root: Path) -> tuple[dict[str, dict[str, object]], list[bool]]:
    """Import every module of the t2gen package in ``root``; what each got, and the .pyc reads."""
    result = subprocess.run(
        [sys.executable, "-c", _DESCRIBE, mode],
        cwd=root,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
        env={**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"},
    )
    described = json.loads(result.stdout)
    return described["modules"], described["read"]


def test_every_module_loads_as_without_the_finder(tmp_path: Path) -> None:
    """A compiled copy of the package, so that every module takes the .pyc fast path."""
    shutil.copytree(
        ROOT / "t2gen", tmp_path / "t2gen", ignore=shutil.ignore_patterns("__pycache__")
    )
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(tmp_path / "t2gen")], check=True
    )
    (plain, _), (fast, read) = (
        _describe("plain", tmp_path),
        _describe("finder", tmp_path),
    )
    assert plain.keys() == fast.keys() and len(plain) > 100
    # Every submodule but t2gen.bytecode (imported before it) came through the finder,
    # from its .pyc.
    assert len(read) == len(plain) - 1 and all(read)
    loaders = {name: fast[name].pop("loader") for name in fast}
    for found in plain.values():
        found.pop("loader")
    assert fast == plain
    # The finder answered for every module but itself, imported before it existed.
    assert loaders.pop("t2gen.bytecode") == "SourceFileLoader"
    assert set(loaders.values()) == {"BytecodeLoader"}


def test_the_console_script_installs_it_for_a_command_and_not_for_version() -> None:
    code = (
        "import sys, atexit\n"
        "atexit.register(lambda: print("
        "type(sys.modules['t2gen.pipeline'].__loader__).__name__ "
        "if 't2gen.pipeline' in sys.modules else "
        "[type(f).__name__ for f in sys.meta_path].count('PackageFinder'), "
        "file=sys.stderr))\n"
        "sys.argv = ['t2gen', *sys.argv[1:]]\n"
        "from t2gen.cli.launch import main\n"
        "main()\n"
    )
    for argv, shown in (
        (["render", "examples/wordcount.yaml"], "BytecodeLoader"),
        (["--version"], "0"),
    ):
        result = subprocess.run(
            [sys.executable, "-c", code, *argv],
            cwd=ROOT,
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
        )
        assert (result.returncode, result.stderr) == (0, f"{shown}\n")


def test_install_is_idempotent() -> None:
    before = list(sys.meta_path)
    try:
        install("t2gen_test_package")
        install("t2gen_test_package")
        added = [f for f in sys.meta_path if f not in before]
        assert len(added) == 1 and sys.meta_path[0] is added[0]
    finally:
        sys.meta_path[:] = before


# --- cached_code: the .pyc rules ---------------------------------------------


@pytest.fixture
def module(tmp_path: Path) -> Path:
    source = tmp_path / "mod.py"
    source.write_text("VALUE = 1\n", encoding="utf-8")
    os.utime(source, (1_700_000_000, 1_700_000_000))
    return source


def _compile(
    source: Path,
    *,
    optimize: int = 0,
    invalidation_mode: py_compile.PycInvalidationMode = (
        py_compile.PycInvalidationMode.TIMESTAMP
    ),
) -> Path:
    """Write ``source``'s cache file as ``python [-O]`` would; return its path."""
    cached = importlib.util.cache_from_source(
        str(source), optimization=optimize if optimize else ""
    )
    py_compile.compile(
        str(source),
        cfile=cached,
        doraise=True,
        optimize=optimize,
        invalidation_mode=invalidation_mode,
    )
    return Path(cached)


def _value(code: object) -> object:
    namespace: dict[str, object] = {}
    exec(code, namespace)  # type: ignore[arg-type]
    return namespace["VALUE"]


def test_current_bytecode_is_read_with_the_source_as_its_filename(module: Path) -> None:
    _compile(module)
    code = cached_code(str(module))
    assert code is not None and code.co_filename == str(module)
    assert _value(code) == 1


@pytest.mark.parametrize(
    "change",
    [
        "no cache file",
        "source edited (size)",
        "source touched (mtime)",
        "checked hash-based",
        "unchecked hash-based",
        "other magic number",
        "truncated header",
        "not marshal data",
        "marshal data, not code",
        "not a .py file",
        "source gone",
    ],
)
def test_anything_but_current_timestamp_bytecode_is_left_to_python(
    module: Path, change: str
) -> None:
    source = str(module)
    if change != "no cache file":
        mode = (
            py_compile.PycInvalidationMode.CHECKED_HASH
            if change == "checked hash-based"
            else py_compile.PycInvalidationMode.UNCHECKED_HASH
            if change == "unchecked hash-based"
            else py_compile.PycInvalidationMode.TIMESTAMP
        )
        cached = _compile(module, invalidation_mode=mode)
        data = cached.read_bytes()
        if change == "source edited (size)":
            module.write_text("VALUE = 22\n", encoding="utf-8")
            os.utime(module, (1_700_000_000, 1_700_000_000))
        elif change == "source touched (mtime)":
            os.utime(module, (1_700_000_001, 1_700_000_001))
        elif change == "other magic number":
            cached.write_bytes(b"\x00\x00\r\n" + data[4:])
        elif change == "truncated header":
            cached.write_bytes(data[:12])
        elif change == "not marshal data":
            cached.write_bytes(data[:16] + b"\xff\xfe")
        elif change == "marshal data, not code":
            import marshal

            cached.write_bytes(data[:16] + marshal.dumps(42))
        elif change == "not a .py file":
            source = str(module.with_suffix(".pyw"))
        elif change == "source gone":
            module.unlink()
    assert cached_code(source) is None


def test_a_pycache_prefix_is_left_to_python(
    module: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _compile(module)
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "prefix"))
    assert cached_code(str(module)) is None


def test_optimized_interpreters_read_their_own_cache_files(module: Path) -> None:
    """Under ``-O`` CPython reads ``mod.cpython-3X.opt-1.pyc``; so does cached_code."""
    check = (
        "import sys; from t2gen.bytecode import cached_code\n"
        "print(cached_code(sys.argv[1]) is not None)\n"
    )

    def run(*flags: str) -> str:
        return subprocess.run(
            [sys.executable, *flags, "-c", check, str(module)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=True,
        ).stdout.strip()

    _compile(module)
    assert (run(), run("-O")) == ("True", "False")
    _compile(module, optimize=1)
    assert run("-O") == "True"


# --- PackageFinder: which modules it answers for ------------------------------


@pytest.fixture
def package(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A throw-away package ``t2gbc_<n>`` on sys.path, with the finder first; removed after."""
    name = f"t2gbc_{id(tmp_path) % 100_000}"
    root = tmp_path / name
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("", encoding="utf-8")
    (root / "plain.py").write_text("VALUE = 'plain'\n", encoding="utf-8")
    (root / "sub" / "__init__.py").write_text("VALUE = 'sub'\n", encoding="utf-8")
    (root / "sub" / "leaf.py").write_text("VALUE = 'leaf'\n", encoding="utf-8")
    (root / "namespace").mkdir()
    (root / "namespace" / "inner.py").write_text("VALUE = 'ns'\n", encoding="utf-8")
    finder = PackageFinder(name)
    sys.path.insert(0, str(tmp_path))
    sys.meta_path.insert(0, finder)
    try:
        yield name, root
    finally:
        sys.meta_path.remove(finder)
        sys.path.remove(str(tmp_path))
        for loaded in [m for m in sys.modules if m.split(".")[0] == name]:
            del sys.modules[loaded]


def test_modules_and_packages_load_through_the_finder(
    package: tuple[str, Path],
) -> None:
    name, root = package
    plain = importlib.import_module(f"{name}.plain")
    leaf = importlib.import_module(f"{name}.sub.leaf")
    sub = sys.modules[f"{name}.sub"]
    assert (plain.VALUE, sub.VALUE, leaf.VALUE) == ("plain", "sub", "leaf")
    assert type(leaf.__loader__).__name__ == "BytecodeLoader"
    assert sub.__path__ == [str(root / "sub")]
    assert sub.__file__ == str(root / "sub" / "__init__.py")
    assert leaf.__file__ == str(root / "sub" / "leaf.py")


def test_stale_bytecode_is_compiled_again(package: tuple[str, Path]) -> None:
    name, root = package
    source = root / "plain.py"
    cached = _compile(source)
    source.write_text("VALUE = 'edited'\n", encoding="utf-8")
    os.utime(source, (1_700_000_000, 1_700_000_000))
    assert cached_code(str(source)) is None
    assert importlib.import_module(f"{name}.plain").VALUE == "edited"
    assert cached.is_file()


def test_unusual_directories_are_left_to_python(package: tuple[str, Path]) -> None:
    name, root = package
    finder = PackageFinder(name)
    # A namespace package (no __init__.py): the path finder's business.
    assert finder.find_spec(f"{name}.namespace", [str(root)]) is None
    assert importlib.import_module(f"{name}.namespace.inner").VALUE == "ns"
    # Another package's modules, a non-list path and a missing module.
    assert finder.find_spec("json.decoder", [str(Path(json.__file__).parent)]) is None
    assert finder.find_spec(f"{name}.plain", None) is None
    assert finder.find_spec(f"{name}.plain", (str(root),)) is None
    assert finder.find_spec(f"{name}.missing", [str(root)]) is None
    # An extension module in the directory takes precedence: leave it all alone.
    extension = importlib.machinery.EXTENSION_SUFFIXES[0]
    (root / "sub" / f"other{extension}").write_bytes(b"")
    assert finder.find_spec(f"{name}.sub.leaf", [str(root / "sub")]) is None
    assert finder.find_spec(f"{name}.plain", [str(root)]) is not None


def test_new_modules_are_found_after_invalidate_caches(
    package: tuple[str, Path],
) -> None:
    name, root = package
    importlib.import_module(f"{name}.plain")  # the directory is listed
    (root / "late.py").write_text("VALUE = 'late'\n", encoding="utf-8")
    importlib.invalidate_caches()
    module = importlib.import_module(f"{name}.late")
    assert module.VALUE == "late"
    assert type(module.__loader__).__name__ == "BytecodeLoader"
