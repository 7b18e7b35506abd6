"""Build t2gen's sdist and wheel, install the wheel into a fresh venv, and run it elsewhere.

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
    """Build, check, install and run."""
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
        print(run(t2gen, "--version", cwd=elsewhere).strip())
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
    print("wheel smoke test passed")


if __name__ == "__main__":
    main()
