from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from t2gen.inputs.jobfile import read_job
from t2gen.jobfile.schema import apply_defaults, load_schema, suggest
from tests.conftest import EXAMPLES, ROOT
from tests.helpers import job_text, one_problem, problems


def test_schema_is_valid_2020_12() -> None:
    schema = load_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def _properties(node: object, path: str = "") -> list[tuple[str, dict[str, object]]]:
    found = []
    if isinstance(node, dict):
        for name, child in node.get("properties", {}).items():
            found.append((f"{path}.{name}", child))
        for key, child in node.items():
            if isinstance(child, (dict, list)):
                found += _properties(child, f"{path}/{key}")
    elif isinstance(node, list):
        for child in node:
            found += _properties(child, path)
    return found


def test_every_property_is_described_and_objects_are_closed() -> None:
    schema = load_schema()
    for path, child in _properties(schema):
        assert child.get("description"), f"{path} has no description"
    objects = [
        schema,
        *(
            c
            for _, c in _properties(schema)
            if c.get("type") == "object" and "properties" in c
        ),
    ]
    objects += [
        d
        for d in schema["$defs"].values()
        if d.get("type") == "object" and "properties" in d
    ]
    for node in objects:
        assert node.get("additionalProperties") is False


@pytest.mark.parametrize(
    "example",
    [*EXAMPLES, ROOT / "templates/init/twister2job.yaml"],
    ids=lambda p: p.name,
)
def test_examples_and_starter_validate_against_the_raw_schema(example: Path) -> None:
    Draft202012Validator(load_schema()).validate(read_job(str(example)).data)


def test_examples_carry_the_schema_modeline() -> None:
    for example in EXAMPLES:
        first = example.read_text(encoding="utf-8").splitlines()[0]
        assert (
            first
            == "# yaml-language-server: $schema=../schemas/twister2job.schema.json"
        )


def test_defaults_come_from_the_schema() -> None:
    data = apply_defaults({"spec": {"workers": [{"count": 2}], "env": [{"name": "A"}]}})
    assert data["spec"]["workers"] == [
        {
            "count": 2,
            "perPod": 1,
            "scalable": False,
            "cpu": 1,
            "memory": "1Gi",
            "memoryLimit": "request",
            "volatileDisk": 0,
            "extendedResources": {},
            "nodeSelector": {},
            "nodeAffinity": {"required": [], "preferred": []},
            "tolerations": [],
            "volumes": [],
            "envFrom": [],
            "env": [],
            "ephemeralStorageLimit": "none",
        }
    ]
    assert (
        data["spec"]["jobMaster"]["cpu"] == 0.2
        and data["spec"]["network"]["basePort"] == 9000
    )
    # no default value: an entry has `value` or `valueFrom` (env-value-or-value-from)
    assert data["spec"]["env"] == [{"name": "A"}]
    # cpuLimit depends on bindWorkersToCpu, memoryVolumeSize on jobPackage.maxSize: no schema default
    assert "memoryVolumeSize" not in data["spec"]["storage"]
    assert data["spec"]["jobPackage"]["maxSize"] == "64Mi"
    assert data["spec"]["jvmMemoryFraction"] == 0.8
    assert apply_defaults({"spec": "oops"}) == {
        "spec": "oops"
    }  # wrong types are left to the schema check


@pytest.mark.parametrize(
    "document",
    [
        {},
        {"spec": {"workers": [{}, {"count": 2}], "env": [{}], "scheduling": {}}},
        {
            "spec": {
                key: {} for key in load_schema()["properties"]["spec"]["properties"]
            }
        },
        *(read_job(str(example)).data for example in EXAMPLES),
    ],
    ids=[
        "empty",
        "empty-parts",
        "every-spec-section-empty",
        *(p.stem for p in EXAMPLES),
    ],
)
def test_the_generated_defaults_table_fills_what_the_schema_says(
    document: dict[str, object],
) -> None:
    """apply_defaults reads jobschema.DEFAULTS; the same walk over the schema itself agrees."""
    from t2gen.jobfile import defaults

    expected = defaults.copied(document)
    loaded = load_schema()
    defaults.fill_in_place(expected, defaults.plan_of_schema(loaded))
    assert apply_defaults(document) == expected
    assert json.dumps(apply_defaults(document)) == json.dumps(expected)  # key order too


def test_a_schema_edited_without_make_generate_takes_effect_at_once(
    tmp_path: Path,
) -> None:
    """The generated validator and defaults table are used only while they match the schema."""
    for part in ("t2gen", "schemas", "templates"):
        shutil.copytree(
            ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__")
        )
    schema = tmp_path / "schemas" / "twister2job.schema.json"
    text = schema.read_text(encoding="utf-8")
    assert text.count('"default": "IfNotPresent"') == 1
    schema.write_text(
        text.replace('"default": "IfNotPresent"', '"default": "Always"'),
        encoding="utf-8",
    )
    code = (
        "import sys\n"
        "sys.argv = ['t2gen', 'render', sys.argv[1]]\n"
        "from t2gen.cli.launch import main\n"
        "main()\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "examples" / "wordcount.yaml")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert "imagePullPolicy: Always" in result.stdout
    assert "IfNotPresent" not in result.stdout


def test_three_mistakes_three_located_problems() -> None:
    text = job_text("workers:\n  - count: 0\n    perPod: two\nbindWorkersToCpu: yes\n")
    assert problems(text) == [
        (8, 14, "spec.workers[0].count", "0 is out of range; use 1 to 100000"),
        (9, 15, "spec.workers[0].perPod", "'two' is a string; expected an integer"),
        (
            10,
            21,
            "spec.bindWorkersToCpu",
            "'yes' is a string; expected true or false (job files are YAML 1.2, where yes is not a boolean)",
        ),
    ]


def test_unknown_key_suggests_the_closest() -> None:
    where, path, message = one_problem(
        job_text("workers:\n  - count: 2\n    perpod: 1\n")
    )
    assert (where, path) == ((9, 7), "spec.workers[0]")
    assert (
        message
        == "unknown key 'perpod'; did you mean 'perPod'? (keys are case-sensitive)"
    )
    where, path, message = one_problem(
        job_text("workers:\n  - count: 2\nplacment: {}\n")
    )
    assert (where, message) == (
        (9, 3),
        "unknown key 'placment'; did you mean 'placement'?",
    )


def test_missing_required_key_points_at_the_parent() -> None:
    text = "apiVersion: t2gen/v1\nkind: Twister2Job\nmetadata:\n  name: j\nspec:\n  workers: [{count: 1}]\n"
    assert one_problem(text) == ((5, 1), "spec", "missing required key 'image'")


def test_enum_suggestion_and_case() -> None:
    _, _, message = one_problem(
        job_text("workers: [{count: 1}]\nimagePullPolicy: always\n")
    )
    assert message.endswith("did you mean 'Always'? (values are case-sensitive)")


def test_pattern_errors_explain_the_format() -> None:
    _, path, message = one_problem(job_text("workers: [{count: 1, memory: 2GB}]\n"))
    assert path == "spec.workers[0].memory"
    assert message.startswith(
        "'2GB' is not a valid quantity: expected a number with an optional suffix"
    )


def test_numbers_as_strings_and_floats_as_integers() -> None:
    assert (
        one_problem(job_text('workers: [{count: "8"}]\n'))[2]
        == "'8' is a string; expected an integer (remove the quotes)"
    )
    assert one_problem(job_text("workers: [{count: 8.0}]\n"))[2] == (
        "8.0 is a number; expected an integer (write 8 without a decimal point)"
    )


def test_long_values_are_shortened_in_messages() -> None:
    found = problems(f"{job_text()}  imagePullSecrets: ['{'x' * 500}']\n")
    assert found and all(
        len(message) < 250 and "x" * 100 not in message for *_, message in found
    )


def test_schema_command_output_equals_the_file() -> None:
    assert (
        json.loads(
            (ROOT / "schemas/twister2job.schema.json").read_text(encoding="utf-8")
        )
        == load_schema()
    )


def test_suggest() -> None:
    assert (
        suggest("Exist", ["In", "Exists"], noun="operator") == "did you mean 'Exists'?"
    )
    assert suggest("zzz", ["a", "b"], noun="value") == "valid values: a, b"


@pytest.mark.parametrize(
    "document",
    [
        {"spec": {"jvmMemoryFraction": float("nan")}},
        {"spec": {"workers": [{"count": 2, "cpu": float("-inf")}]}},
        {"x": [[1.5, {"y": float("inf")}]]},
        {"spec": {"workers": [{"count": 2, "cpu": 0.5}]}},
        {"spec": {"jobMaster": {"cpu": 1e308}}},
    ],
    ids=["nan", "minus-inf-in-a-group", "inf-deep-in-unknown-keys", "finite", "large"],
)
def test_defaults_and_finite_agrees_with_apply_defaults_and_first_non_finite(
    document: dict[str, object],
) -> None:
    """The one walk gives the defaulted copy and the non-finite verdict the two walks give."""
    from t2gen.jobfile import defaults
    from t2gen.jobfile.refused import first_non_finite
    from t2gen.jobfile.schema import defaults_and_finite

    data, finite = defaults_and_finite(document)
    expected = defaults.copied(document)
    loaded = load_schema()
    defaults.fill_in_place(expected, defaults.plan_of_schema(loaded))
    assert json.dumps(data) == json.dumps(expected)
    assert finite == (first_non_finite(document) is None)
    assert data is not document
