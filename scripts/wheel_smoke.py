"""Build t2gen's sdist and wheel, install the wheel into a fresh venv, and run it elsewhere.

``make wheel-smoke`` builds into a temporary directory; ``make dist`` runs
``--outdir dist`` and keeps the sdist and wheel it has tested there.

What a user gets from ``pip install``: the wheel must carry ``templates/`` and
``schemas/``, a wheel built from the sdist must too, and the installed ``t2gen``
must validate and render every example from an unrelated directory, byte for
byte as the golden files say.

The Containerfile's steps, where no container engine runs (``docker build`` needs
one): its build stage's ``COPY`` sources, and only those, make the wheel with the
stage's own ``pip wheel`` line; that wheel goes into a fresh venv as the install
stage installs it, and both images' entrypoints run there (``t2gen`` of the
``cli`` stage, ``t2gen-kustomize`` of the ``krm-function`` stage, twice over its
own answer) as the image's non-root user (uid 65532, no home,
``PYTHONDONTWRITEBYTECODE=1``) and as ``nobody`` (uid 65534, as kpt runs a
function) when this runs as root. The images themselves are not built.
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


# The Containerfile's RUN lines this script reproduces: change both together.
CONTAINERFILE_RUN = (
    "python -m pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .",
    'python -m venv /opt/t2gen && wheel="$(ls /wheels/t2gen-*.whl)" && '
    '/opt/t2gen/bin/pip install --no-cache-dir "${wheel}${EXTRAS:+[$EXTRAS]}" && '
    "rm -rf /wheels && useradd --uid 65532 --user-group --no-create-home "
    "--shell /usr/sbin/nologin t2gen",
)


IMAGE_USER = 65532
"""The Containerfile's ``USER`` (docs/security.md says why 65532)."""

NOBODY = 65534
"""Debian's ``nobody`` and ``nogroup``: kpt runs a function container as ``--user nobody``."""

ENTRYPOINTS = {"krm-function": ["t2gen-kustomize"], "cli": ["t2gen"]}
"""Each image's stage and its entrypoint; the last stage (the default image) is ``cli``."""


def _stage_entrypoints(text: str) -> dict[str | None, list[str]]:
    """Each stage of the Containerfile that has an ENTRYPOINT, by its name, in order."""
    import json
    import re

    found: dict[str | None, list[str]] = {}
    for stage in re.split(r"^FROM ", text, flags=re.MULTILINE)[1:]:
        head = stage.split("\n", 1)[0].split(" AS ")
        entrypoint = re.search(r"^ENTRYPOINT (\[.*\])$", stage, re.MULTILINE)
        if entrypoint:
            found[head[1].strip() if len(head) > 1 else None] = json.loads(
                entrypoint[1]
            )
    return found


def _resource_list() -> str:
    """A ResourceList as kpt gives a function: the wordcount job as functionConfig, one object."""
    import json

    import yaml

    job = yaml.safe_load((ROOT / "examples" / "wordcount.yaml").read_text("utf-8"))
    mine = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "mine"}}
    return json.dumps(
        {
            "apiVersion": "config.kubernetes.io/v1",
            "kind": "ResourceList",
            "items": [mine],
            "functionConfig": job,
        }
    )


def _run_entrypoints(opt: Path, job: Path, user: int | None) -> None:
    """Run both images' entrypoints from ``opt`` as ``user`` (None: this user)."""
    import json
    import os

    import yaml

    env = {"PATH": f"{opt / 'bin'}:/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}

    def as_user() -> None:
        assert user is not None
        os.setgroups([])
        os.setgid(user)
        os.setuid(user)

    def entrypoint(
        stage: str, args: list[str], stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [*ENTRYPOINTS[stage], *args], cwd=job, env=env, input=stdin,
            preexec_fn=as_user if user is not None else None,
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert done.returncode == 0, (stage, args, done.stderr)
        return done

    who = f"uid {user}" if user is not None else "this user"
    print(f"+ ({who}) t2gen --version; t2gen render job.yaml", flush=True)
    entrypoint("cli", ["--version"])
    rendered = entrypoint("cli", ["render", "job.yaml"]).stdout
    golden = ROOT / "tests/golden/wordcount/expected.stdout"
    assert rendered == golden.read_text(encoding="utf-8"), (
        "the image's t2gen renders differently"
    )
    print(f"+ ({who}) t2gen-kustomize < ResourceList, twice", flush=True)
    first = entrypoint("krm-function", [], _resource_list()).stdout
    answer = yaml.safe_load(first)
    objects = rendered.count("\n---\n") + rendered.startswith("---\n")
    assert len(answer["items"]) == 1 + objects, (
        "the KRM function adds the job's objects"
    )
    again = json.dumps({**json.loads(_resource_list()), "items": answer["items"]})
    assert entrypoint("krm-function", [], again).stdout == first, (
        "the KRM function changes its own output when run again"
    )


def containerfile_steps(work: Path) -> None:
    """Run the Containerfile's build and install steps in ``work``, without an engine.

    Raises:
        AssertionError: the Containerfile's RUN lines or stages are not the ones
            reproduced here, a file the wheel needs is not copied, or an
            installed entrypoint does not run as the image's user or as nobody.
    """
    import os
    import re
    import shutil

    text = (ROOT / "Containerfile").read_text(encoding="utf-8")
    runs = tuple(
        " ".join(part.strip() for part in block.replace("\\\n", " ").split())
        for block in re.findall(r"^RUN ((?:.*\\\n)*.*)", text, re.MULTILINE)
    )
    assert runs == CONTAINERFILE_RUN, f"the Containerfile's RUN lines changed: {runs}"
    stages = _stage_entrypoints(text)
    assert stages == ENTRYPOINTS and list(stages)[-1] == "cli", (
        f"the Containerfile's images changed: {stages}"
    )
    assert re.search(rf"^USER {IMAGE_USER}:{IMAGE_USER}$", text, re.MULTILINE)
    build_stage = text.split("\nFROM ", 2)[1]
    source = work / "src"
    source.mkdir(parents=True)
    for line in re.findall(r"^COPY (?!--from)(.*)$", build_stage, re.MULTILINE):
        *names, _dest = line.split()
        for name in names:
            origin = ROOT / name
            if origin.is_dir():
                shutil.copytree(
                    origin, source / name, ignore=shutil.ignore_patterns("__pycache__")
                )
            else:
                shutil.copy2(origin, source / name)
    wheels = work / "wheels"
    run(sys.executable, "-m", "pip", "wheel", "--no-cache-dir", "--no-deps",
        "--quiet", "--wheel-dir", str(wheels), ".", cwd=source)  # fmt: skip
    (wheel,) = wheels.glob("t2gen-*.whl")
    check_wheel(wheel)
    # The image's user must reach the interpreter: a system Python, as the image's
    # /usr/local/bin/python, rather than one under root's home.
    as_root = os.geteuid() == 0
    base = shutil.which("python3", path="/usr/local/bin:/usr/bin") if as_root else None
    opt = work / "opt-t2gen"
    run(base or sys.executable, "-m", "venv", str(opt))
    run(str(opt / "bin" / "pip"), "install", "--no-cache-dir", "--quiet",
        "--disable-pip-version-check", str(wheel))  # fmt: skip
    job = work / "job"
    job.mkdir()
    shutil.copy2(ROOT / "examples" / "wordcount.yaml", job / "job.yaml")
    if not (as_root and base is not None):
        _run_entrypoints(opt, job, None)
        return
    temp = Path(tempfile.gettempdir())
    for path in (*work.parents, work, *work.rglob("*")):
        if path.is_relative_to(temp) and path != temp:
            readable = 0o555 if path.is_dir() else 0o444
            path.chmod(path.stat().st_mode | readable)
    for user in (IMAGE_USER, NOBODY):  # USER 65532:65532, and kpt's --user nobody
        _run_entrypoints(opt, job, user)


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
        for script in (
            "kubectl-t2gen",
            "kubectl_complete-t2gen",
            "t2gen-kustomize",
            "t2gen-post-renderer",
        ):
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
        containerfile_steps(work / "containerfile")
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            for built in (wheel, sdist):
                shutil.copy2(built, keep / built.name)
                print(f"{keep / built.name}")
    print("wheel smoke test passed")


if __name__ == "__main__":
    main()
