"""The rendered jobs the runtime contract is checked on, each loaded once per session.

A case is a job file and the objects t2gen renders from it:

- ``golden/<name>``: every golden whose command is ``render`` (its
  ``expected.stdout`` as it is checked in);
- ``example/<name>``: every ``examples/*.yaml``, rendered now;
- ``import/<name>``: the job file of every ``import`` golden, rendered now
  (what a Twister2 user gets from their configuration);
- ``job/<name>``: the job files of ``tests/contract/jobs/`` (settings no example
  has), rendered now.
"""

from __future__ import annotations

import functools
import json
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from t2gen.cli.app import app
from tests.conftest import EXAMPLES, GOLDEN, ROOT

JOBS = Path(__file__).resolve().parent / "jobs"
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Group:
    """One worker group of the job file (a Twister2 compute resource)."""

    count: int
    per_pod: int
    volatile: bool
    scalable: bool


@dataclass
class Case:
    """A job file and what t2gen rendered from it."""

    name: str
    job_file: dict[str, Any]
    objects: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""  # the render's message when it refused the job

    # --- the job file's settings, with the schema's defaults ---
    @property
    def spec(self) -> dict[str, Any]:
        return dict(self.job_file.get("spec") or {})

    @property
    def job(self) -> str:
        return str(self.job_file["metadata"]["name"])

    @property
    def groups(self) -> list[Group]:
        return [
            Group(
                count=int(g["count"]),
                per_pod=int(g.get("perPod", 1)),
                volatile=quantity(g.get("volatileDisk", 0)) > 0,
                scalable=bool(g.get("scalable", False)),
            )
            for g in self.spec["workers"]
        ]

    @property
    def mpi(self) -> bool:
        return bool((self.spec.get("mpi") or {}).get("enabled", False))

    @property
    def job_master(self) -> bool:
        return bool((self.spec.get("jobMaster") or {}).get("enabled", True))

    @property
    def bound(self) -> bool:
        return bool(self.spec.get("bindWorkersToCpu", False))

    @property
    def additional_ports(self) -> int:
        return len((self.spec.get("network") or {}).get("additionalPorts") or [])

    @property
    def upload_method(self) -> str:
        """The method the Twister2 containers run: with ``jobPackage.source`` an init container feeds ``client-to-pods``."""
        package = self.spec.get("jobPackage") or {}
        if "source" in package:
            return "client-to-pods"
        return str(package.get("uploadMethod", "webserver"))

    # --- the rendered objects ---
    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [obj for obj in self.objects if obj.get("kind") == kind]

    def named(self, kind: str, name: str) -> dict[str, Any] | None:
        for obj in self.of_kind(kind):
            if obj["metadata"]["name"] == name:
                return obj
        return None

    @property
    def job_master_statefulset(self) -> dict[str, Any] | None:
        return self.named("StatefulSet", f"{self.job}-jm")

    @property
    def worker_statefulsets(self) -> list[dict[str, Any]]:
        """Every StatefulSet but the job master's, in the order of their names' index."""
        sets = [
            obj
            for obj in self.of_kind("StatefulSet")
            if obj["metadata"]["name"] != f"{self.job}-jm"
        ]
        return sorted(sets, key=lambda obj: _index_or_none(obj["metadata"]["name"]))

    def pods(self) -> Iterator[tuple[dict[str, Any], str, dict[str, Any]]]:
        """Every pod the StatefulSets make: (StatefulSet, pod name, pod spec)."""
        for statefulset in self.of_kind("StatefulSet"):
            replicas = int(statefulset["spec"].get("replicas", 1))
            for ordinal in range(replicas):
                yield (
                    statefulset,
                    f"{statefulset['metadata']['name']}-{ordinal}",
                    statefulset["spec"]["template"]["spec"],
                )


def _index_or_none(name: str) -> tuple[int, str]:
    tail = name.rsplit("-", 1)[-1]
    return (int(tail), name) if tail.isdigit() else (1 << 30, name)


def quantity(value: Any) -> Decimal:
    """A Kubernetes quantity as a number (bytes or cores); a small reader, independent of t2gen's.

    Source: https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/
    """
    text = str(value).strip()
    suffixes = {
        "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
        "n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"),
        "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
    }  # fmt: skip
    for suffix in sorted(suffixes, key=len, reverse=True):
        if text.endswith(suffix) and text[: -len(suffix)]:
            return Decimal(text[: -len(suffix)]) * Decimal(suffixes[suffix])
    return Decimal(text)


def _objects(documents: list[Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for document in documents:
        if isinstance(document, dict) and document.get("kind") == "List":
            found += _objects(document.get("items") or [])
        elif isinstance(document, dict) and "apiVersion" in document:
            found.append(document)
    return found


def _render(
    args: list[str], text: str | None = None
) -> tuple[list[dict[str, Any]], str]:
    result = CliRunner().invoke(
        app, ["render", *args, "--format", "json"], input=text, catch_exceptions=False
    )
    if result.exit_code != 0:
        return [], result.output
    return _objects([json.loads(result.stdout)]), ""


def _golden_cases() -> Iterator[Case]:
    for directory in sorted(GOLDEN.iterdir()):
        args_file, stdout = directory / "args", directory / "expected.stdout"
        if not (args_file.is_file() and stdout.is_file()):
            continue
        args = shlex.split(args_file.read_text(encoding="utf-8"))
        text = stdout.read_text(encoding="utf-8")
        if args[0] == "render":
            job_path = ROOT / args[1].replace(
                "{case}", f"tests/golden/{directory.name}"
            )
            job_file = yaml.load(job_path.read_text(encoding="utf-8"), Loader=_Loader)
            for flag in ("--namespace", "-n"):
                if flag in args:
                    job_file["metadata"]["namespace"] = args[args.index(flag) + 1]
            documents = list(yaml.load_all(text, Loader=_Loader))
            yield Case(f"golden/{directory.name}", job_file, _objects(documents))
        elif args[0] == "import":
            job_file = yaml.load(text, Loader=_Loader)
            objects, error = _render(["-"], text)
            yield Case(f"import/{directory.name}", job_file, objects, error)


def _file_cases(paths: list[Path], prefix: str) -> Iterator[Case]:
    for path in paths:
        job_file = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
        objects, error = _render([str(path.relative_to(ROOT))])
        yield Case(f"{prefix}/{path.stem}", job_file, objects, error)


@functools.cache
def all_cases() -> tuple[Case, ...]:
    """Every case, rendered and parsed once per test session."""
    return (
        *_golden_cases(),
        *_file_cases(EXAMPLES, "example"),
        *_file_cases(sorted(JOBS.glob("*.yaml")), "job"),
    )


_REGISTERED: dict[str, Case] = {}


def register(extra: Case) -> None:
    """Make ``extra`` (e.g. a golden changed by a test) known to :func:`case` by its name."""
    _REGISTERED[extra.name] = extra


@functools.cache
def _by_name() -> dict[str, Case]:
    return {found.name: found for found in all_cases()}


def case(name: str) -> Case:
    """The case named ``name``: one of :func:`all_cases`, or one given to :func:`register`."""
    return _REGISTERED.get(name) or _by_name()[name]


def rendered() -> list[str]:
    """Names of the cases that rendered Kubernetes workloads (the contract's subjects)."""
    return [c.name for c in all_cases() if c.of_kind("StatefulSet")]


def secret_cases() -> list[str]:
    """Names of the cases whose output holds an SSH key Secret (``t2gen secret ssh``)."""
    return [
        directory.name
        for directory in sorted(GOLDEN.iterdir())
        if (directory / "args").is_file()
        and (directory / "args").read_text(encoding="utf-8").startswith("secret ssh")
    ]
