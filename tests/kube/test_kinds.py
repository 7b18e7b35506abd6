"""One table of the kinds t2gen renders or reads (t2gen.kube.kinds), and every user of it agrees."""

from __future__ import annotations

from t2gen.checks import CHECKS_BY_KIND, KIND_GROUPS
from t2gen.gangs import GROUP_KINDS
from t2gen.inputs.jobfile import read_job
from t2gen.kube.kinds import KINDS, kind_info
from t2gen.kube.order import CUSTOM_RESOURCES, install_order
from t2gen.pipeline.job import generate_loaded
from t2gen.pipeline.load import validate
from tests.conftest import ROOT


def test_every_object_t2gen_renders_has_its_row() -> None:
    """For every example, at each Kubernetes version whose Workload API differs."""
    seen = set()
    for path in sorted((ROOT / "examples").glob("*.yaml")):
        doc = read_job(str(path))
        job = validate(doc)
        for version in ("1.35", "1.36", "1.37"):  # the Workload API's three shapes
            for document in generate_loaded([(job, doc)], kube_version=version):
                obj = document.obj
                row = kind_info(obj["apiVersion"], obj["kind"])
                assert row.api_version == obj["apiVersion"], (path.name, version)
                seen.add(row)
    unrendered = {k.kind for k in set(KINDS) - seen}
    assert unrendered <= {
        "Pod",
        "Deployment",
        "ReplicaSet",
        "DaemonSet",
        "Secret",
        "Workload",
        "PodGroup",
    }


def test_every_kind_is_placed_in_the_install_order() -> None:
    order = install_order(GROUP_KINDS)
    for row in KINDS:
        assert row.kind in order and row.kind != CUSTOM_RESOURCES, row


def test_the_checks_apply_to_the_group_of_the_table() -> None:
    for kind, group in KIND_GROUPS.items():
        assert any(k.kind == kind and k.group == group for k in KINDS)
    assert set(KIND_GROUPS) == set(CHECKS_BY_KIND) - set(GROUP_KINDS)


def test_a_plural_is_not_the_kind_with_an_s() -> None:
    assert (
        kind_info("networking.k8s.io/v1", "NetworkPolicy").plural == "networkpolicies"
    )
    assert kind_info("apps/v1", "StatefulSet").ref("x-0") == "statefulsets.apps/x-0"
    assert kind_info("v1", "Secret").ref("x-ssh") == "secrets/x-ssh"
