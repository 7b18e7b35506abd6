"""Property tests over the whole job schema: valid input always gives valid output.

Job files are generated from ``schemas/twister2job.schema.json`` itself with
hypothesis-jsonschema. For each one, either t2gen rejects it with located
problems (``file:line:col``), or it renders and the output (a) passes
Kubernetes' schemas in strict mode, (b) passes t2gen's semantic checks,
(c) reads back through a real kubectl as the intended objects and (d) is the
same bytes when rendered again. ``make fuzz`` runs many more examples and
prints how many were generated and how many rendered.
"""

from __future__ import annotations

import copy
import functools
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from t2gen.checks import check_objects
from t2gen.checks.openapi import KubeSchemas
from t2gen.errors import SchemaError
from t2gen.jobfile.schema import load_schema
from t2gen.kube.yamlio import dump_yaml
from t2gen.output.stream import to_yaml_stream
from t2gen.pipeline.job import generate
from tests.conftest import (
    ROOT,
    SCHEMA_JOBS,
    WHOLE_JOBS,
    kubectl_objects,
    lazy_strategy,
)

STATS: Counter[str] = Counter()


def _plausible_schema() -> dict[str, Any]:
    """The job schema narrowed to realistic sizes, so that most generated jobs render.

    The full schema lets hypothesis-jsonschema pick any quantity and any count,
    and most such jobs break a semantic rule (count not a multiple of perPod,
    1e39 cores). Here counts are multiples of 4 with perPod 1, 2 or 4 and
    quantities come from a realistic list; every other key (names, labels,
    annotations, env, placement, network, storage...) stays fully random.
    """
    schema = copy.deepcopy(load_schema())
    defs = schema["$defs"]
    defs["cpu"] = {"enum": [1, 2, "250m", "500m", 0.5, 4]}
    defs["quantity"] = {
        "enum": [0, "0", "512Mi", "1Gi", "2Gi", "1.5Gi", 1073741824, "100M", "0.1Gi"]
    }
    group = defs["workerGroup"]["properties"]
    group["count"] = {**group["count"], "multipleOf": 4, "maximum": 400}
    group["perPod"] = {**group["perPod"], "enum": [1, 2, 4]}
    return schema


@functools.cache
def _plausible_jobs() -> SearchStrategy[dict[str, Any]]:
    from hypothesis_jsonschema import from_schema

    return from_schema(_plausible_schema())


# lazy: the schema is canonicalised when first drawn from, not at import, nor when
# `make test` validates the strategy of a test it runs only on its explicit example
JOBS = st.one_of(SCHEMA_JOBS, lazy_strategy(_plausible_jobs))

WORDCOUNT: dict[str, Any] = yaml.safe_load(
    (ROOT / "examples" / "wordcount.yaml").read_text(encoding="utf-8")
)
"""A job that renders, tried before the drawn ones (``make test`` draws two)."""
SCHEMAS = {version: KubeSchemas(version) for version in ("1.25", "1.37")}


@pytest.fixture(scope="module", autouse=True)
def report() -> Iterator[None]:
    yield
    print(
        f"\nproperty run: {STATS['generated']} job files generated, {STATS['rendered']} rendered "
        f"({STATS['objects']} objects checked), {STATS['rejected']} rejected with "
        f"{STATS['problems']} located problems"
    )


@WHOLE_JOBS
@given(job=JOBS)
@example(job=WORDCOUNT)
def test_generated_job_files(
    job: dict[str, Any], tmp_path_factory: pytest.TempPathFactory, kubectl: Any
) -> None:
    STATS["generated"] += 1
    directory = tmp_path_factory.mktemp("job")
    path = directory / "job.yaml"
    path.write_text(dump_yaml(job), encoding="utf-8")
    try:
        documents = generate([str(path)])
    except SchemaError as err:
        STATS["rejected"] += 1
        STATS["problems"] += len(err.problems)
        assert err.problems
        for problem in err.problems:
            assert (
                problem.path == str(path) and problem.line >= 1 and problem.col >= 1
            ), problem
            assert problem.message and "Traceback" not in problem.message
        return
    STATS["rendered"] += 1
    objects = [document.obj for document in documents]
    STATS["objects"] += len(objects)
    for version, schemas in SCHEMAS.items():
        findings, warnings = schemas.check(objects)
        assert (findings, warnings) == ([], []), version
    assert check_objects(objects) == []
    stream = to_yaml_stream(documents)
    manifest = directory / "out.yaml"
    manifest.write_text(stream, encoding="utf-8")
    # Read back by a real kubectl in the same test, so that no test depends on
    # another's state (make test spreads the tests over processes).
    assert kubectl_objects(kubectl, manifest) == objects
    assert to_yaml_stream(generate([str(path)])) == stream


@WHOLE_JOBS
@given(job=SCHEMA_JOBS, text=st.text(max_size=40))
@example(job=WORDCOUNT, text="  ]: \x00\u2028")
def test_yaml_text_never_crashes_the_loader(
    job: dict[str, Any], text: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Arbitrary text spliced into a valid file: a result or a located error, never a traceback."""
    source = dump_yaml(job)
    cut = len(source) // 2
    path = Path(tmp_path_factory.mktemp("spliced")) / "job.yaml"
    path.write_text(
        source[:cut] + text + source[cut:], encoding="utf-8", errors="surrogatepass"
    )
    try:
        generate([str(path)])
    except SchemaError as err:
        assert all(problem.path == str(path) for problem in err.problems)
