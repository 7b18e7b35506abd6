"""Helpers for building job files inline and reading their problems."""

from __future__ import annotations

import textwrap

import pytest

from t2gen.errors import SchemaError
from t2gen.jobfile.model import Job
from t2gen.jobfile.yaml import parse_job
from t2gen.pipeline import validate

BASE = """\
apiVersion: t2gen/v1
kind: Twister2Job
metadata:
  name: job
spec:
  image: twister2/twister2-k8s:0.8.0
"""


def job_text(spec: str = "workers:\n  - count: 2\n", *, metadata: str = "") -> str:
    """A job file: BASE plus ``spec`` (indented under spec:) and extra metadata lines."""
    text = BASE.replace(
        "  name: job\n",
        "  name: job\n" + textwrap.indent(textwrap.dedent(metadata), "  "),
    )
    return text + textwrap.indent(textwrap.dedent(spec), "  ")


def valid_job(text: str) -> Job:
    return validate(parse_job(text, path="job.yaml"))


def problems(text: str) -> list[tuple[int, int, str, str]]:
    """Every problem of a job file as (line, col, json_path, message)."""
    with pytest.raises(SchemaError) as info:
        validate(parse_job(text, path="job.yaml"))
    return [(p.line, p.col, p.json_path, p.message) for p in info.value.problems]


def one_problem(text: str) -> tuple[tuple[int, int], str, str]:
    (found,) = problems(text)
    return (found[0], found[1]), found[2], found[3]
