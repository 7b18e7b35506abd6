"""The Workload API's objects are applied in an order every API server t2gen targets admits.

``kubectl apply -f`` creates objects in document order, so an object that admission
checks against another must come after it. The table states each admission dependency
per Kubernetes version, with the source it comes from; the test renders
``examples/workload-api-gang.yaml`` for every version with the Workload API and checks
the stream, in the order `t2gen render` prints it, puts the object admission needs first.
"""

from __future__ import annotations

import pytest

from t2gen.gangs import workload_api
from t2gen.kube.versions import NEWEST_KUBE_VERSION
from t2gen.pipeline.job import generate
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "workload-api-gang.yaml"

_PODGROUP_WORKLOAD_EXISTS = (
    "kubernetes/kubernetes plugin/pkg/admission/podgroup/admission.go: the "
    "PodGroupWorkloadExists admission plugin rejects creating a PodGroup whose "
    "spec.podGroupTemplateRef.workload names a Workload that does not exist "
    '("PodGroup rejected: Workload %q not found"); added by kubernetes/kubernetes#137464 '
    "(CHANGELOG/CHANGELOG-1.36.md, v1.36.0), on by default with the GenericWorkload gate "
    "(pkg/kubeapiserver/options/plugins.go)"
)

ADMISSION_NEEDS: dict[tuple[int, int], list[tuple[str, str, str]]] = {
    (
        1,
        35,
    ): [],  # a Workload only (scheduling.k8s.io/v1alpha1); the plugin came in 1.36
    (1, 36): [("PodGroup", "Workload", _PODGROUP_WORKLOAD_EXISTS)],
    # kubernetes/kubernetes#139008 removed the plugin (CHANGELOG/CHANGELOG-1.37.md, v1.37.0-alpha.1)
    (1, 37): [],
}
"""Per version: ``(kind, kind it needs to exist at admission, source)``."""

VERSIONS = [
    (1, minor)
    for minor in range(workload_api.FIRST_VERSION[1], NEWEST_KUBE_VERSION[1] + 1)
]


def test_every_version_with_the_workload_api_is_stated() -> None:
    assert sorted(ADMISSION_NEEDS) == VERSIONS


@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: f"{v[0]}.{v[1]}")
def test_what_admission_needs_is_applied_first(version: tuple[int, int]) -> None:
    documents = generate([str(EXAMPLE)], kube_version=f"{version[0]}.{version[1]}")
    kinds = [document.kind for document in documents]
    for kind, needed, source in ADMISSION_NEEDS[version]:
        assert needed in kinds and kind in kinds, source
        assert kinds.index(needed) < kinds.index(kind), source
    # Whatever admission checks, every group object refers only to objects before it
    # (the PodGroup to the Workload's template), and all come before the pods.
    groups = [kind for kind in kinds if kind in workload_api.INSTALL_ORDER]
    assert groups == sorted(groups, key=workload_api.INSTALL_ORDER.index)
    assert max(map(kinds.index, groups)) < kinds.index("StatefulSet")
