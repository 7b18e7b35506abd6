"""Template overlays render in a sandbox: no code, no files outside the overlay, bounded work.

Each escape is an overlay (``render --templates DIR``) from the hostile corpus
of issue 23. All of them run in one subprocess with an audit hook
(https://docs.python.org/3/library/audit_events.html) that records every file
opened and every process started, so the test proves that nothing ran and that
no file of the test's tree outside the overlay being rendered (a secret beside
it, the other overlays) was opened, besides the error each escape must be.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from t2gen.cli.app import app
from t2gen.render import sandbox
from tests.conftest import ROOT

runner = CliRunner()

_HEAD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: "

ESCAPES: dict[str, tuple[str, str]] = {
    # name: (template text, what the error says)
    "cycler-globals": (
        _HEAD + '{{ cycler.__init__.__globals__.os.system("touch PWNED") }}\n',
        "x.yaml.j2:6: access to attribute '__init__'",
    ),
    "joiner-globals": (
        _HEAD + '{{ joiner.__init__.__globals__.os.system("touch PWNED") }}\n',
        "x.yaml.j2:6: access to attribute '__init__'",
    ),
    "namespace-globals": (
        _HEAD + '{{ namespace.__init__.__globals__.os.system("touch PWNED") }}\n',
        "x.yaml.j2:6: access to attribute '__init__'",
    ),
    "lipsum-globals": (
        _HEAD + '{{ lipsum.__globals__.os.system("touch PWNED") }}\n',
        "x.yaml.j2:6: 'lipsum' is undefined",
    ),
    "subclasses": (
        _HEAD + "{{ ''.__class__.__mro__[1].__subclasses__() }}\n",
        "x.yaml.j2:6: access to attribute '__class__'",
    ),
    "self-globals": (
        _HEAD + "{{ self._TemplateReference__context.environment }}\n",
        "x.yaml.j2:6: access to attribute '_TemplateReference__context'",
    ),
    "format-attribute": (
        _HEAD + "{{ '{0.__class__}'.format('') }}\n",
        "x.yaml.j2:6: access to attribute '__class__'",
    ),
    "str-method-outside-list": (
        _HEAD + "{{ 'a'.encode('utf-8') }}\n",
        "x.yaml.j2:6: access to attribute 'encode' of 'str' object is unsafe",
    ),
    "include-symlink": (
        _HEAD + '{% include "_passwd.j2" %}\n',
        "x.yaml.j2:6: {overlay}/_passwd.j2 is a symbolic link to {secret}, outside",
    ),
    "include-parent": (
        _HEAD + '{% include "../secret.txt" %}\n',
        "x.yaml.j2:6: no template '../secret.txt' in the template directories",
    ),
    "range": (
        _HEAD + "{% for i in range(10**9) %}{% endfor %}\n",
        "x.yaml.j2:6: range() of 1,000,000,000 items",
    ),
    "string-growth": (
        _HEAD + "{{ 'x' * 10**9 }}\n",
        "x.yaml.j2:6: '*' would make a value of 1,000,000,000",
    ),
    "list-growth": (
        _HEAD + "{{ [1] * 10**9 }}\n",
        "x.yaml.j2:6: '*' would make a value of 1,000,000,000",
    ),
    "power": (
        _HEAD + "{{ 2 ** (10**9) }}\n",
        "x.yaml.j2:6: '**' would make an integer",
    ),
    "center": (
        _HEAD + "{{ 'x'.center(10**9) }}\n",
        "x.yaml.j2:6: str.center would make a value of 1,000,000,000",
    ),
    "center-filter": (
        _HEAD + "{{ 'x'|center(10**9) }}\n",
        "x.yaml.j2:6: the center filter would make a value",
    ),
    "format-width": (
        _HEAD + "{{ '{:>1000000000}'.format(1) }}\n",
        "x.yaml.j2:6: str.format would make a value of 1,000,000,0",
    ),
    "printf-width": (
        _HEAD + "{{ '%1000000000d' % 1 }}\n",
        "x.yaml.j2:6: '%' formatting would make a value of 1,000,000,0",
    ),
    # Round 4 (issue 32): sizes judged before the value is built, str subclasses
    # held to str's methods, work charged by what a call reads.
    "format-fields": (
        "{% set s = 'x' * 4000000 %}\n" + _HEAD + "{{ ('{0}' * 400).format(s) }}\n",
        "x.yaml.j2:7: str.format would make a value of 1,600,000,000 characters",
    ),
    "join-generator": (
        "{% set s = 'x' * 4000000 %}\n"
        + _HEAD
        + "{{ s.join(range(1000)|map('string')) }}\n",
        "x.yaml.j2:7: str.join would make a value of 3,996,002,890 characters",
    ),
    "tojson-indent": (
        _HEAD + "{{ [1, 2, 3]|tojson(indent=10**8) }}\n",
        "x.yaml.j2:6: the tojson filter would make a value of",
    ),
    "markup-translate": (
        "{% set s = ('x' * 4000000)|safe %}\n"
        + _HEAD
        + "{{ s.translate({120: 'yyyyyyyyyy'}) }}\n",
        "x.yaml.j2:7: access to attribute 'translate' of 'Markup' object is unsafe",
    ),
    "markup-expandtabs": (
        _HEAD + "{{ ('\\t'|e).expandtabs(10**9) }}\n",
        "x.yaml.j2:6: access to attribute 'expandtabs' of 'Markup' object is unsafe",
    ),
    "escape-growth": (
        _HEAD + "{{ ('<' * 1000000)|e }}\n",
        "x.yaml.j2:6: the e filter would make a value of 5,000,000 characters",
    ),
    "string-to-list": (
        _HEAD + "{{ ('x' * 4000000)|sort|length }}\n",
        "x.yaml.j2:6: the sort filter on a string would make a value of 4,000,000 items",
    ),
    "quadratic-sum": (
        _HEAD + "{{ ([[0] * 1000] * 2000)|sum(start=[])|length }}\n",
        "x.yaml.j2:6: the templates did more than",
    ),
    "receiver-read": (
        "{% set s = '1' * 4000000 %}\n"
        + _HEAD
        + "{% for i in range(10000) %}{{ s.isdigit() }}{% endfor %}\n",
        "x.yaml.j2:7: the templates did more than",
    ),
    "macro-calls": (
        "{% macro f() %}{% endmacro %}\n"
        + _HEAD
        + "{% for i in range(10000) %}{% for j in range(10000) %}{{ f() }}"
        + "{% endfor %}{% endfor %}\n",
        "x.yaml.j2:7: the templates did more than",
    ),
    "replace-growth": (
        _HEAD + "{{ ('x' * 100000)|replace('', 'y' * 100000) }}\n",
        "x.yaml.j2:6: the replace filter would make a value",
    ),
    "doubling": (
        "{% set ns = namespace(s='x') %}{% for i in range(64) %}"
        "{% set ns.s = ns.s ~ ns.s %}{% endfor %}\n" + _HEAD + "{{ ns.s }}\n",
        "x.yaml.j2:1: '~' would make a value of 8,388,608",
    ),
    "nested-loops": (
        _HEAD
        + "{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}\n",
        "x.yaml.j2:6: the templates did more than",
    ),
    "shared-lists": (
        "{% set a = ['xxxxxxxxxxxxxxxx'] %}"
        + "".join("{% set a = [a, a, a, a, a, a, a, a, a, a] %}" for _ in range(12))
        + "\n"
        + _HEAD
        + "{{ a|tojson }}\n",
        "x.yaml.j2:7: the templates did more than",
    ),
    "exponential-macro": (
        "{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}\n"
        + _HEAD
        + "{{ f(60) }}\n",
        "x.yaml.j2:1: a call of f would make a value of",
    ),
    "output": (
        "{% for i in range(10000) %}{% for j in range(10000) %}"
        + "x" * 1000
        + "{% endfor %}{% endfor %}\n",
        "x.yaml.j2:1: the templates write more than 8,388,608 characters",
    ),
    "huge-file": ("", "is 1,073,741,824 bytes; a template may have at most"),
    "fifo": ("", "is not a regular file"),
}


def _make_overlay(root: Path, name: str, text: str, secret: Path) -> Path:
    overlay = root / name
    overlay.mkdir()
    if name == "huge-file":
        with (overlay / "x.yaml.j2").open("wb") as file:
            file.truncate(1024**3)  # a sparse file: no disk used
    elif name == "fifo":
        os.mkfifo(overlay / "x.yaml.j2")
    else:
        (overlay / "x.yaml.j2").write_text(text, encoding="utf-8")
    (overlay / "_passwd.j2").symlink_to(secret)
    return overlay


_RUNNER = """
import contextlib, io, json, os, sys
secret, cases, job = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
events = []
root = os.path.dirname(secret)
current = [root]
def hook(event, args):
    if event == "open" and isinstance(args[0], (str, bytes)):
        path = os.path.realpath(os.fsdecode(args[0]))
        inside = path.startswith(current[0] + os.sep)
        if path.startswith(root + os.sep) and not inside:  # another file of the tree
            events.append(("open", path))
    elif event in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.fork"):
        events.append((event, str(args)))
sys.addaudithook(hook)
import functools, typer.main
# Typer builds its click command again on every call: once serves all the cases
typer.main.get_command = functools.cache(typer.main.get_command)
from t2gen.cli.app import main
results = {}
for name, overlay in cases.items():
    current[0] = os.path.realpath(overlay)
    sys.argv = ["t2gen", "render", job, "--templates", overlay]
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main()
            code = 0
        except SystemExit as exit:
            code = exit.code
    text = [stream.buffer.getvalue().decode("utf-8") for stream in (out, err)]
    results[name] = [code, *text]
print(json.dumps({"results": results, "events": events}))
"""


@pytest.fixture(scope="module", params=["", "T2GEN_NO_PRECOMPILED"])
def escapes(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> dict[str, object]:
    """Every escape, run with the fast paths on and with the templates compiled from source."""
    root = tmp_path_factory.mktemp("escapes")
    secret = root / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT\n", encoding="utf-8")
    overlays = {
        name: str(_make_overlay(root, name, text, secret))
        for name, (text, _) in ESCAPES.items()
    }
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _RUNNER,
            str(secret.resolve()),
            json.dumps(overlays),
            str(ROOT / "examples" / "wordcount.yaml"),
        ],
        cwd=root.parent,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("T2GEN_NO_")},
            "PYTHONPATH": str(ROOT),
            **({request.param: "1"} if request.param else {}),
        },
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
        timeout=120,
    )
    report: dict[str, object] = json.loads(done.stdout)
    report["overlays"] = overlays
    report["secret"] = str(secret.resolve())
    report["cwd"] = str(root.parent)
    return report


@pytest.mark.parametrize("name", list(ESCAPES))
def test_an_escape_is_a_located_error_and_runs_nothing(
    name: str, escapes: dict[str, object]
) -> None:
    results = escapes["results"]
    assert isinstance(results, dict)
    code, stdout, stderr = results[name]
    overlay = escapes["overlays"][name]  # type: ignore[index]
    expected = (
        ESCAPES[name][1]
        .replace("{overlay}", overlay)
        .replace("{secret}", str(escapes["secret"]))
    )
    assert (code, stdout) == (1, "")
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
    assert stderr.startswith(f"{overlay}/"), stderr
    assert expected in stderr, stderr
    assert "TOP-SECRET" not in stderr
    assert not list(Path(str(escapes["cwd"])).rglob("PWNED"))


def test_no_escape_read_outside_its_overlay_or_started_a_process(
    escapes: dict[str, object],
) -> None:
    assert escapes["events"] == []


def test_templates_show_refuses_a_link_out_of_the_overlay(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT\n", encoding="utf-8")
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "_passwd.j2").symlink_to(secret)
    result = runner.invoke(
        app, ["templates", "show", "_passwd.j2", "--templates", str(overlay)]
    )
    assert (result.exit_code, result.stdout) == (1, "")
    assert "is a symbolic link to" in result.stderr
    assert "TOP-SECRET" not in result.stderr


def test_a_link_inside_the_overlay_is_followed(tmp_path: Path) -> None:
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "real.txt").write_text(_HEAD + "{{ 'inside' }}\n", encoding="utf-8")
    (overlay / "x.yaml.j2").symlink_to(overlay / "real.txt")
    result = runner.invoke(
        app,
        ["render", str(ROOT / "examples/wordcount.yaml"), "--templates", str(overlay)],
    )
    assert result.exit_code == 0, result.stderr
    assert "a: inside" in result.stdout


def test_an_ordinary_overlay_still_renders(tmp_path: Path) -> None:
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "extra.yaml.j2").write_text(
        "{% for group in workerGroups %}\n---\n"
        + "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
        + "  name: {{ job.name ~ '-' ~ group.index }}\ndata:\n"
        + "  num: {{ '%03d' % group.index }}\n"
        + "  upper: {{ job.name|upper|center(20) }}\n{% endfor %}\n",
        encoding="utf-8",
    )
    result = runner.invoke(
        app,
        ["render", str(ROOT / "examples/wordcount.yaml"), "--templates", str(overlay)],
    )
    assert result.exit_code == 0, result.stderr
    assert "name: wordcount-0" in result.stdout and 'num: "000"' in result.stdout


def test_the_built_in_templates_were_compiled_by_the_sandbox() -> None:
    from t2gen._generated import templates as precompiled_templates
    from t2gen.render.engine import make_environment

    environment = make_environment([])
    assert isinstance(environment, sandbox.T2genSandbox)
    assert f"T2genSandbox {sandbox.SANDBOX_VERSION}" in precompiled_templates.KEY
