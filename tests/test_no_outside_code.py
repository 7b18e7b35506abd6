"""No executable code is read from outside the installed package (and the Python it runs on).

t2gen generates code at build time (``make generate``: the job-schema and
Kubernetes-schema validators, the precompiled templates) and ships it; it keeps
no cache of code in ``$HOME``. A real process, with an audit hook (PEP 578),
records every file it opens and every code object it ``exec``s while it
renders, validates against Kubernetes' schemas and checks manifests; each must
come from t2gen's package or the Python installation, and ``$HOME`` stays empty.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

_HOOK = """
import json, os, sys
seen = {"opened": [], "executed": []}
def hook(event, args):
    if event == "open" and isinstance(args[0], str):
        seen["opened"].append(os.path.abspath(args[0]))
    elif event == "exec":
        seen["executed"].append(getattr(args[0], "co_filename", "?"))
sys.addaudithook(hook)
import atexit
atexit.register(lambda: print(json.dumps(seen), file=sys.stderr))
sys.argv = ["t2gen", *ARGV]
from t2gen.cli.launch import main
main()
"""

_CODE = (".py", ".pyc", ".so", ".marshal", ".pyd")


def _run(argv: list[str], home: Path) -> dict[str, list[str]]:
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / "xdg")}
    result = subprocess.run(
        [sys.executable, "-c", _HOOK.replace("ARGV", repr(argv))],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    assert result.returncode == 0, result.stderr
    seen: dict[str, list[str]] = json.loads(result.stderr.strip().splitlines()[-1])
    return seen


def test_code_comes_only_from_the_package_and_python(tmp_path: Path) -> None:
    import t2gen

    home = tmp_path / "home"
    home.mkdir()
    manifest = tmp_path / "manifest.yaml"
    manifest.write_text(
        (ROOT / "tests/golden/wordcount/expected.stdout").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    allowed = [
        Path(path).resolve()
        for path in {
            Path(t2gen.__file__).parent,
            sys.prefix,
            sys.base_prefix,
            sys.exec_prefix,
            sys.base_exec_prefix,
        }
    ]

    def inside(path: str) -> bool:
        return any(Path(path).resolve().is_relative_to(root) for root in allowed)

    for argv in (
        ["render", "--validate", "examples/wordcount.yaml"],
        ["check", str(manifest)],
    ):
        seen = _run(argv, home)
        code_files = [p for p in seen["opened"] if p.endswith(_CODE)]
        assert [p for p in code_files if not inside(p)] == [], argv
        executed = [
            p for p in seen["executed"] if Path(p).is_absolute() and Path(p).exists()
        ]
        assert [p for p in executed if not inside(p)] == [], argv
        assert [p for p in seen["opened"] if p.startswith(str(home))] == [], argv
    assert list(home.iterdir()) == []
