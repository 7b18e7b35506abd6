"""No input value can change a manifest's structure (docs/security.md, "Bad input, hostile input, limits").

Arbitrary Unicode (newlines, `---`, `: `, `#`, quotes, `{{ }}`, `{% %}`, tabs,
NUL, right-to-left marks, 10 kB strings) in every free-text field is either
refused by the schema with a located message, or comes back unchanged in what
a real kubectl reads, with the same objects and keys as without it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from t2gen.errors import SchemaError
from t2gen.fastpaths import switch_variable
from t2gen.kube.yamlio import dump_yaml
from t2gen.output.stream import to_yaml_stream
from t2gen.pipeline.job import generate
from tests.conftest import kubectl_objects, kubectl_read_files, read_objects

HOSTILE = [
    "a\nb", "x\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: stolen}", "key: value", "# comment",
    "'quoted'", '"double"', "{{ .Values.x }}", "{% if true %}x{% endif %}", "\ttab", "\x00nul", "\u202eevil",
    "\u200fright-to-left", "x" * 10_000, "yes", "0400", "1e3", "~", "null", "- item", "&anchor *alias", "!!python/object",
    "\ufeffbom", "\u2028\u2029", "😀 emoji", "\r\n", "\\", "%YAML 1.1", "...",
]  # fmt: skip


def _job(**fields: Any) -> dict[str, Any]:
    return {
        "apiVersion": "t2gen/v1",
        "kind": "Twister2Job",
        "metadata": {"name": "inject", "annotations": {"a": fields.get("annotation", "x")}},
        "spec": {
            "image": fields.get("image", "twister2/twister2-k8s:0.8.0"),
            "workers": [{"count": 2}],
            "env": [{"name": "FREE", "value": fields.get("env", "x")}],
            # spec.env is the workers'; the job master's own carries the value too
            "jobMaster": {"env": [{"name": "FREE", "value": fields.get("env", "x")}]},
            "jobPackage": {"uri": "http://host/" + fields.get("uri", "job.tar.gz"), "jarFile": fields.get("jar", "job.jar")},
            "placement": {"nodeAffinity": {"required": [{"key": "k", "operator": "In", "values": [fields.get("value", "v")]}]}},
        },
    }  # fmt: skip


def _containers(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        c
        for o in objects
        if o["kind"] == "StatefulSet"
        for c in o["spec"]["template"]["spec"]["containers"]
    ]


def _env(container: dict[str, Any], name: str) -> Any:
    return next(e.get("value") for e in container["env"] if e["name"] == name)


# Where each field's value must come back, in the objects kubectl reads.
READ_BACK: dict[str, Callable[[list[dict[str, Any]]], list[Any]]] = {
    "annotation": lambda objects: [o["metadata"]["annotations"]["a"] for o in objects],
    "image": lambda objects: [c["image"] for c in _containers(objects)],
    "env": lambda objects: [_env(c, "FREE") for c in _containers(objects)],
    "uri": lambda objects: [
        _env(c, "JOB_PACKAGE_URI").removeprefix("http://host/")
        for c in _containers(objects)
    ],
    "jar": lambda objects: [_env(c, "USER_JOB_JAR_FILE") for c in _containers(objects)],
    "value": lambda objects: [
        o["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"
        ]["nodeSelectorTerms"][0]["matchExpressions"][0]["values"][0]
        for o in objects
        if o["kind"] == "StatefulSet" and o["metadata"]["name"] == "inject-0"
    ],
}


def _shape(objects: list[dict[str, Any]]) -> list[tuple[str, str, tuple[str, ...]]]:
    """Kinds, names and top-level keys: what an injection would change."""
    return [(o["kind"], o["metadata"]["name"], tuple(sorted(o))) for o in objects]


@pytest.fixture(scope="module")
def baseline_shape(
    tmp_path_factory: pytest.TempPathFactory,
) -> list[tuple[str, str, tuple[str, ...]]]:
    path = tmp_path_factory.mktemp("baseline") / "job.yaml"
    path.write_text(dump_yaml(_job()), encoding="utf-8")
    return _shape([d.obj for d in generate([str(path)])])


def _render(field: str, value: str, directory: Path) -> tuple[Path, int] | None:
    """Render the job with ``value`` in ``field`` into ``directory``/out.yaml.

    Returns the manifest and its number of objects, or None when the schema
    refused the value (every problem located).
    """
    path = directory / "job.yaml"
    path.write_text(dump_yaml(_job(**{field: value})), encoding="utf-8")
    try:
        documents = generate([str(path)])
    except SchemaError as err:
        for problem in err.problems:
            assert problem.line >= 1 and problem.message, problem
        return None
    manifest = directory / "out.yaml"
    manifest.write_text(to_yaml_stream(documents), encoding="utf-8")
    return manifest, len(documents)


def _compare(
    field: str, value: str, objects: list[dict[str, Any]], baseline: list[Any]
) -> None:
    assert _shape(objects) == baseline
    values = READ_BACK[field](objects)
    assert values and all(found == value for found in values), (field, value)


def _check(
    field: str, value: str, directory: Path, kubectl: Any, baseline: list[Any]
) -> None:
    rendered = _render(field, value, directory)
    if rendered is not None:
        _compare(field, value, kubectl_objects(kubectl, rendered[0]), baseline)


CASES = [(field, value) for value in HOSTILE for field in sorted(READ_BACK)]


@pytest.fixture(scope="module")
def read_by_kubectl(
    tmp_path_factory: pytest.TempPathFactory, kubectl: Any
) -> dict[tuple[str, str], list[dict[str, Any]] | None]:
    """Every hostile case rendered, and read back by one kubectl process.

    A kubectl process costs some 0.1 s of CPU to start; one reads all the
    manifests (``-f`` each, their objects in order), and each case's objects
    are its own manifest's count. A refused value maps to None. When kubectl
    refuses the batch, the mapping is empty and each test reads its own
    manifest, so the failure is the case's.
    """
    rendered: dict[tuple[str, str], tuple[Path, int] | None] = {}
    for index, (field, value) in enumerate(CASES):
        directory = tmp_path_factory.mktemp(f"case{index}")
        rendered[field, value] = _render(field, value, directory)
        if rendered[field, value] is not None:
            # The same bytes without the skeleton fast path, whose values are never
            # written by the flow writer (t2gen/render/skeleton.py): a value written
            # raw there would change the plain render's text.
            plain = tmp_path_factory.mktemp(f"plain{index}")
            with pytest.MonkeyPatch.context() as patch:
                patch.setenv(switch_variable("SKELETON"), "1")
                assert _render(field, value, plain) is not None
            assert (plain / "out.yaml").read_bytes() == (
                directory / "out.yaml"
            ).read_bytes(), (field, value)
    manifests = [found for found in rendered.values() if found is not None]
    result = kubectl_read_files(kubectl, *(path for path, _ in manifests))
    if result.returncode != 0:
        return {}
    objects = read_objects(result.stdout)
    assert len(objects) == sum(count for _, count in manifests)
    read: dict[tuple[str, str], list[dict[str, Any]] | None] = {}
    for case, found in rendered.items():
        if found is None:
            read[case] = None
        else:
            read[case], objects = objects[: found[1]], objects[found[1] :]
    return read


@pytest.mark.parametrize("field", sorted(READ_BACK))
@pytest.mark.parametrize("value", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_values(
    field: str,
    value: str,
    tmp_path: Path,
    kubectl: Any,
    baseline_shape: list[Any],
    read_by_kubectl: dict[tuple[str, str], list[dict[str, Any]] | None],
) -> None:
    if (field, value) not in read_by_kubectl:  # kubectl refused the batch
        _check(field, value, tmp_path, kubectl, baseline_shape)
        return
    objects = read_by_kubectl[field, value]
    if objects is not None:
        _compare(field, value, objects, baseline_shape)


def test_free_text_fields_really_accept_hostile_text(
    tmp_path: Path, kubectl: Any, baseline_shape: list[Any]
) -> None:
    # Not everything may be refused: env values and annotations take any text but NUL.
    for field in ("env", "annotation"):
        for value in ("x\n---\nkind: Secret", "{{ x }}", "key: value # c", "yes"):
            path = tmp_path / f"{field}.yaml"
            path.write_text(dump_yaml(_job(**{field: value})), encoding="utf-8")
            assert generate([str(path)])


@given(field=st.sampled_from(sorted(READ_BACK)), value=st.text(max_size=200))
@example(field="env", value="\x85\u2028")
def test_any_text_in_any_free_field(
    field: str,
    value: str,
    tmp_path_factory: pytest.TempPathFactory,
    kubectl: Any,
    baseline_shape: list[Any],
) -> None:
    _check(field, value, tmp_path_factory.mktemp("t"), kubectl, baseline_shape)
