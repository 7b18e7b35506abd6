"""What t2gen's module layout costs a cold render: its modules' import overhead, without their code.

A cold ``t2gen render`` imports t2gen's modules one by one; each costs the
import system a lookup, a read of its bytecode and a module object, whatever
its code does. This script measures that overhead alone, so that a change of
layout (more, smaller modules; fewer, larger ones) can be weighed in
milliseconds rather than guessed:

1. it runs ``t2gen render examples/wordcount.yaml`` once and takes the t2gen
   modules in ``sys.modules`` when it ends;
2. it writes a mirror of them, the same packages and modules, each holding only
   a docstring, and compiles it as an installed wheel is compiled;
3. round-robin, one run of each per round: an interpreter that imports nothing
   of it, one that imports the whole mirror, one that imports a single empty
   module, and the real cold render.

The mirror minus nothing is the layout's overhead; minus the single module, the
most that merging every module into one could save. Both are reported in
milliseconds and as a share of the cold render measured in the same rounds.
``make bench`` appends the table to ``bench/results.md``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from report import appended_to

ROOT = Path(__file__).resolve().parent.parent
T2GEN = str(Path(sys.executable).with_name("t2gen"))
EXAMPLE = "examples/wordcount.yaml"


def _environment() -> dict[str, str]:
    """As a user's shell: bytecode may be read and written, no fast path switched off."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key != "PYTHONDONTWRITEBYTECODE" and not key.startswith("T2GEN_NO_")
    }
    env["KUBECONFIG"] = os.devnull
    return env


_LIST_MODULES = """
import atexit, sys
atexit.register(lambda: print(*(m for m in sys.modules if m.split(".")[0] == "t2gen"), file=sys.stderr))
sys.argv = ["t2gen", "render", sys.argv[1]]
from t2gen.cli.launch import main
main()
"""


def imported_modules() -> list[str]:
    """The t2gen modules a cold ``t2gen render`` of the example imports, in import order.

    Read from ``sys.modules`` when the render ends (t2gen's exit runs ``atexit``
    functions): this includes the precompiled templates, which are imported by
    :func:`importlib.import_module` and so are missing from ``-X importtime``.
    """
    result = subprocess.run(
        [sys.executable, "-c", _LIST_MODULES, EXAMPLE],
        cwd=ROOT,
        env=_environment(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
    )
    return result.stderr.split()


def write_mirror(modules: list[str], directory: Path) -> int:
    """Write ``modules`` under ``directory`` as empty modules; return how many are packages.

    A module is a package when another module's name starts with its name and a dot.
    """
    names = set(modules)
    packages = {name for name in names if any(m.startswith(name + ".") for m in names)}
    for name in names:
        parts = name.split(".")
        if name in packages:
            path = directory.joinpath(*parts, "__init__.py")
        else:
            path = directory.joinpath(*parts[:-1], parts[-1] + ".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text('"""Empty: the layout without the code."""\n', encoding="utf-8")
    directory.joinpath("single_module.py").write_text(
        '"""Empty."""\n', encoding="utf-8"
    )
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(directory)], check=True
    )
    return len(packages)


def main() -> None:
    """Measure, print (and append with ``--append``)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=21, help="rounds")
    parser.add_argument("--append", metavar="FILE", help="append the table to FILE")
    args = parser.parse_args()
    modules = imported_modules()
    env = _environment()
    with tempfile.TemporaryDirectory() as temporary:
        mirror = Path(temporary)
        packages = write_mirror(modules, mirror)
        # The same start as t2gen's console script: gc off before the imports.
        start = f"import gc, sys; gc.disable(); sys.path.insert(0, {str(mirror)!r})\n"
        scripts = {
            "nothing": start,
            "one": start + "import single_module\n",
            "mirror": start + "".join(f"import {name}\n" for name in modules),
        }
        commands: dict[str, list[str]] = {}
        for label, text in scripts.items():
            path = mirror / f"run_{label}.py"
            path.write_text(text, encoding="utf-8")
            commands[label] = [sys.executable, str(path)]
        commands["render"] = [T2GEN, "render", EXAMPLE]
        times: dict[str, list[float]] = {label: [] for label in commands}
        for index in range(args.runs + 2):  # two warm-up rounds
            for label, command in commands.items():
                begin = time.perf_counter()
                subprocess.run(
                    command,
                    cwd=ROOT,
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    check=True,
                )
                if index >= 2:
                    times[label].append(time.perf_counter() - begin)
    median = {
        label: statistics.median(values) * 1000 for label, values in times.items()
    }
    layout = median["mirror"] - median["nothing"]
    merged = median["mirror"] - median["one"]
    render = median["render"]
    with appended_to(args.append, "Module layout (bench/layout.py)"):
        print(
            f"modules a cold render imports: {len(modules)} t2gen modules in {packages} packages"
        )
        print(f"cold render of the example:      {render:7.1f} ms")
        print(
            f"their import overhead (empty):   {layout:7.1f} ms  "
            f"{layout / render:5.1%} of the render, {layout / len(modules) * 1000:.0f} us a module"
        )
        print(
            f"the most one module would save:  {merged:7.1f} ms  {merged / render:5.1%} of the render"
        )


if __name__ == "__main__":
    main()
