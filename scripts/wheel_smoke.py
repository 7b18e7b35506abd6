"""Build t2gen's sdist and wheel, install the wheel into a fresh venv, and run it elsewhere.

``make wheel-smoke`` builds into a temporary directory; ``make dist`` runs
``--outdir dist`` and keeps the sdist and wheel it has tested there.

What a user gets from ``pip install``: the wheel must carry ``templates/`` and
``schemas/``, a wheel built from the sdist must too, and the installed ``t2gen``
must validate and render every example from an unrelated directory, byte for
byte as the golden files say.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, cwd: Path | None = None) -> str:
    """Run a command, echoing it; return its stdout (fail on a non-zero exit)."""
    print("+", " ".join(args), flush=True)
    return subprocess.run(
        args, cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def check_wheel(wheel: Path) -> None:
    """Assert the wheel carries the templates, the schema and the typing marker."""
    names = zipfile.ZipFile(wheel).namelist()
    for required in ("t2gen/templates/k8s/statefulset-workers.yaml.j2", "t2gen/schemas/twister2job.schema.json",
                     "t2gen/templates/init/twister2job.yaml", "t2gen/py.typed"):  # fmt: skip
        assert required in names, f"{wheel.name} lacks {required}"


def main() -> None:
    """Build, check, install and run; with ``--outdir DIR``, keep the sdist and wheel in DIR."""
    import argparse
    import re
    import shutil

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--outdir", type=Path, help="keep the tested sdist and wheel here"
    )
    keep = parser.parse_args().outdir
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'^version = "([^"]+)"$', pyproject, re.MULTILINE)
    assert match is not None, "pyproject.toml has no version line"
    version = match[1]
    with tempfile.TemporaryDirectory(prefix="t2gen-smoke-") as scratch:
        work = Path(scratch)
        dist = work / "dist"
        run(
            sys.executable,
            "-m",
            "build",
            "--sdist",
            "--wheel",
            "--outdir",
            str(dist),
            str(ROOT),
        )
        (wheel,) = dist.glob("*.whl")
        (sdist,) = dist.glob("*.tar.gz")
        check_wheel(wheel)
        # A wheel built from the sdist must be just as complete.
        from_sdist = work / "from-sdist"
        run(
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--quiet",
            "-w",
            str(from_sdist),
            str(sdist),
        )
        check_wheel(next(from_sdist.glob("*.whl")))

        env = work / "venv"
        venv.create(env, with_pip=True)
        python = env / "bin" / "python"
        run(
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            str(wheel),
        )
        t2gen = str(env / "bin" / "t2gen")
        elsewhere = work / "elsewhere"
        elsewhere.mkdir()
        reported = run(t2gen, "--version", cwd=elsewhere).strip()
        print(reported)
        assert reported == f"t2gen {version}", f"{reported!r}, not t2gen {version}"
        for script in ("kubectl-t2gen", "kubectl_complete-t2gen", "t2gen-kustomize"):
            assert (env / "bin" / script).is_file(), f"the wheel installs no {script}"
        examples = sorted((ROOT / "examples").glob("*.yaml"))
        run(t2gen, "validate", *map(str, examples), cwd=elsewhere)
        for example in examples:
            rendered = run(t2gen, "render", str(example), cwd=elsewhere)
            golden = (
                ROOT / "tests/golden" / example.stem / "expected.stdout"
            ).read_text(encoding="utf-8")
            assert rendered == golden, (
                f"installed t2gen renders {example.name} differently from its golden file"
            )
        starter = run(t2gen, "init", cwd=elsewhere)
        (elsewhere / "job.yaml").write_text(starter, encoding="utf-8")
        run(t2gen, "render", "job.yaml", cwd=elsewhere)
        run(str(python), "-m", "t2gen", "schema", cwd=elsewhere)
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            for built in (wheel, sdist):
                shutil.copy2(built, keep / built.name)
                print(f"{keep / built.name}")
    print("wheel smoke test passed")


if __name__ == "__main__":
    main()
