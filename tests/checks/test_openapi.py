from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from t2gen.checks.openapi import KubeSchemas, latest_schema_version, schema_versions
from t2gen.cli.app import app
from t2gen.errors import T2genError
from tests.conftest import EXAMPLES, KUBE_VERSIONS, ROOT

runner = CliRunner()

THREE_ERRORS = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: s}
spec:
  replica: 3
  serviceName: 7
  selector: {matchLabels: {a: b}}
  template:
    metadata: {labels: {a: b}}
    spec:
      containers:
      - name: c
        image: x
        resourcez: {}
"""


def test_the_supported_range_is_the_bundled_one() -> None:
    # t2gen.kube.versions writes the range down so that --kube-version is checked
    # without kubernetes-validate; it must be exactly what that package bundles.
    from t2gen.kube.versions import DEFAULT_KUBE_VERSION, supported_kube_versions

    assert supported_kube_versions() == schema_versions()
    assert latest_schema_version() == DEFAULT_KUBE_VERSION


def test_no_kube_version_is_the_default_one() -> None:
    # require_kube_version(None) answers without parsing DEFAULT_KUBE_VERSION.
    from t2gen.kube.versions import (
        DEFAULT_KUBE_VERSION,
        NEWEST_KUBE_VERSION,
        parse_kube_version,
        require_kube_version,
    )

    assert parse_kube_version(DEFAULT_KUBE_VERSION) == NEWEST_KUBE_VERSION
    assert require_kube_version(None) == require_kube_version(DEFAULT_KUBE_VERSION)


def test_versions() -> None:
    versions = schema_versions()
    assert versions[0] == "1.25" and versions[-1] == "1.37"
    assert KubeSchemas("v1.30.4").version == "1.30"
    with pytest.raises(T2genError, match=r"use one of 1\.25 to 1\.37"):
        KubeSchemas("1.20")


def test_every_error_of_an_object_is_reported(tmp_path: Path) -> None:
    manifest = tmp_path / "bad.yaml"
    manifest.write_text(THREE_ERRORS, encoding="utf-8")
    result = runner.invoke(app, ["check", str(manifest)])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"{manifest}:1: StatefulSet/s: spec: unknown field 'replica'",
        f"{manifest}:1: StatefulSet/s: spec.serviceName: 7 is not of type ['string', 'null']",
        f"{manifest}:1: StatefulSet/s: spec.template.spec.containers[0]: unknown field 'resourcez'",
    ]


def test_secret_data_must_be_base64(tmp_path: Path) -> None:
    manifest = tmp_path / "secret.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {k: 'not base64!'}\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["check", str(manifest)])
    assert (
        result.exit_code == 1
        and "Secret/s: data.k: not valid byte (base64 expected)" in result.stderr
    )


def test_custom_resources_are_named_not_checked(tmp_path: Path) -> None:
    manifest = tmp_path / "cr.yaml"
    manifest.write_text(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["check", str(manifest)])
    assert result.exit_code == 0
    assert (
        f"warning: {manifest}:1: Widget/w: no Kubernetes 1.37 schema for example.com/v1 Widget"
        in result.stderr
    )


def test_check_reads_stdin_json_lists_and_runs_semantic_checks() -> None:
    rendered = runner.invoke(
        app, ["render", str(ROOT / "examples/wordcount.yaml"), "--format", "json"]
    ).stdout
    assert (
        runner.invoke(app, ["check", "-"], input=rendered).stdout
        == "11 objects valid for Kubernetes 1.37 (strict)\n"
    )
    broken = rendered.replace(
        '"t2-worker-group": "0"', '"t2-worker-group": "1"', 1
    )  # the selector now misses its pods
    result = runner.invoke(app, ["check", "-"], input=broken)
    assert (
        result.exit_code == 1
        and "spec.selector: does not match the pod template's labels" in result.stderr
    )


def test_check_findings_name_the_file_and_line_of_their_object(tmp_path: Path) -> None:
    # Two files may hold objects of one Kind/name: each finding says which one.
    group = (
        "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\n"
        "metadata: {name: x}\nspec: {minMember: 1, bogus: 1}\n"
    )
    first, second = tmp_path / "a.yaml", tmp_path / "b.json"
    first.write_text("# a comment\n---\n" + group, encoding="utf-8")
    second.write_text(
        '{"apiVersion": "v1", "kind": "List", "items": [\n'
        '  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},\n'
        '  {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",\n'
        '   "metadata": {"name": "x"}, "spec": {"minMember": 1, "bogus": 1}},\n'
        '  {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "Bad"},\n'
        '   "spec": {"ports": [{"port": 80}]}}]}\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["check", str(first), str(second)])
    assert result.exit_code == 1 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert f"{first}:3: PodGroup/x: spec: unknown field 'bogus'" in lines
    assert f"{second}:3: PodGroup/x: spec: unknown field 'bogus'" in lines
    assert any(
        line.startswith(f"{second}:5: Service/Bad: metadata.name: ") for line in lines
    ), lines
    assert all(line.startswith((f"{first}:", f"{second}:")) for line in lines), lines


def test_check_reports_yaml_errors_with_positions(tmp_path: Path) -> None:
    manifest = tmp_path / "broken.yaml"
    manifest.write_text("a: [1\n", encoding="utf-8")
    result = runner.invoke(app, ["check", str(manifest)])
    assert result.exit_code == 1 and result.stderr.startswith(
        f"{manifest}:2:1: not valid YAML"
    )


@pytest.mark.parametrize("version", KUBE_VERSIONS)
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_render_validate_passes_for_every_example(example: Path, version: str) -> None:
    result = runner.invoke(
        app, ["render", str(example), "--validate", "--kube-version", version]
    )
    if "gang: kubernetes" in example.read_text(encoding="utf-8") and version < "1.35":
        # The Workload API exists from Kubernetes 1.35: a located error, not a render.
        assert result.exit_code == 1 and "spec.scheduling.gang" in result.stderr
        assert result.stdout == ""
        return
    if (
        re.search(r"^ +oci: ", example.read_text(encoding="utf-8"), re.M)
        and version < "1.35"
    ):
        # image volumes are on by default from Kubernetes 1.35: a located error, not a render
        assert result.exit_code == 1 and "spec.jobPackage.source.oci" in result.stderr
        assert result.stdout == ""
        return
    assert result.exit_code == 0, result.stderr
    # Kubernetes' schemas say nothing; the one warning an example may carry is the
    # client-to-pods one (rule client-to-pods-hangs), which every such job gets.
    assert all(
        ": warning: spec.jobPackage.uploadMethod: client-to-pods:" in line
        for line in result.stderr.splitlines()
    ), result.stderr


def test_render_validate_fails_before_printing(tmp_path: Path) -> None:
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "extra.yaml.j2").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\ndata: {a: b}\nbogus: 1\n",
        encoding="utf-8",
    )
    args = [
        "render",
        str(ROOT / "examples/wordcount.yaml"),
        "--templates",
        str(templates),
        "--validate",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == "ConfigMap/extra: .: unknown field 'bogus'\n"


def test_schemas_are_loaded_once_per_run() -> None:
    schemas = KubeSchemas("1.37")
    objects = [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}"}}
        for i in range(50)
    ]
    assert schemas.check(objects) == ([], [])
    assert list(schemas._fast) == [("ConfigMap", "v1")]
    assert schemas._validators == {}  # valid objects never build a jsonschema validator


VOLCANO_POD_GROUP = """\
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: wordcount}
spec: {minMember: 4, queue: default}
"""


def test_a_volcano_pod_group_is_a_custom_resource_not_kubernetes_own(
    tmp_path: Path,
) -> None:
    # Kubernetes' scheduling.k8s.io/v1beta1 PodGroup shares the schema file name
    # (podgroup-scheduling-v1beta1.json) but not the API group.
    schemas = KubeSchemas("1.37")
    volcano = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "wordcount"},
        "spec": {"minMember": 4, "queue": "default"},
    }
    # Checked against t2gen's own schema (schemas/kube/), not Kubernetes' PodGroup.
    assert schemas.errors(volcano) == ([], True)
    assert schemas.errors({**volcano, "spec": {"minMember": "4", "queues": "a"}}) == (
        [
            "spec: unknown field 'queues'",
            "spec.minMember: '4' is not of type 'integer'",
        ],
        True,
    )
    kubernetes_own = {**volcano, "apiVersion": "scheduling.k8s.io/v1beta1"}
    errors, known = schemas.errors(kubernetes_own)
    assert known and errors  # Kubernetes' PodGroup has no minMember or queue
    manifest = tmp_path / "podgroup.yaml"
    manifest.write_text(VOLCANO_POD_GROUP, encoding="utf-8")
    result = runner.invoke(app, ["check", str(manifest)])
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout == "1 object valid for Kubernetes 1.37 (strict)\n"


def test_full_api_groups_still_find_kubernetes_kinds() -> None:
    schemas = KubeSchemas("1.37")
    for api_version, kind in [
        ("v1", "Service"),
        ("apps/v1", "StatefulSet"),
        ("rbac.authorization.k8s.io/v1", "RoleBinding"),
        ("scheduling.k8s.io/v1", "PriorityClass"),
    ]:
        obj = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}}
        assert schemas.errors(obj)[1], (api_version, kind)
    other = {"apiVersion": "rbac.example.com/v1", "kind": "RoleBinding"}
    assert schemas.errors(other) == ([], False)


def test_latest_schema_version() -> None:
    assert latest_schema_version() == schema_versions()[-1] == KUBE_VERSIONS[-1]


def test_a_kubernetes_kind_the_version_does_not_serve_is_an_error() -> None:
    # scheduling.k8s.io is Kubernetes' own group: a PodGroup of a version 1.35 does
    # not serve would be rejected by its API server; it is no custom resource.
    schemas = KubeSchemas("1.35")
    pod_group = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "x"},
        "spec": {},
    }
    deployment = {
        "apiVersion": "apps/v9",
        "kind": "Deployment",
        "metadata": {"name": "d"},
    }
    custom = {"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "f"}}
    findings, warnings = schemas.check([pod_group, deployment, custom])
    assert findings == [
        "PodGroup/x: Kubernetes 1.35 does not serve scheduling.k8s.io/v1beta1 PodGroup, so its "
        "API server would reject it (check with the --kube-version that serves it)",
        "Deployment/d: Kubernetes 1.35 does not serve apps/v9 Deployment, so its "
        "API server would reject it (check with the --kube-version that serves it)",
    ]
    assert warnings == [
        "Foo/f: no Kubernetes 1.35 schema for example.com/v1 Foo (a custom resource?); not checked"
    ]
    # The same PodGroup at a version that serves it is checked against its schema.
    findings, _ = KubeSchemas("1.37").check([pod_group])
    assert findings == ["PodGroup/x: spec: 'schedulingPolicy' is a required property"]
