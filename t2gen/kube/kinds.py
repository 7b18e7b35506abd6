"""The Kubernetes kinds t2gen renders or reads: group, version, plural, namespaced, in one table.

Every place that turns a kind into a resource name or an API group reads
:data:`KINDS`: the supervisor's Role and its clean-up list
(:mod:`t2gen.twister2.terminator`, :mod:`t2gen.render.context.supervisor_rbac`),
``t2gen status``'s ``kubectl get`` and its leftovers (:mod:`t2gen.status`), and
the API group each output check applies to (:data:`t2gen.checks.KIND_GROUPS`); ``tests/kube/test_kinds.py``
checks that every object t2gen renders has its row, and that the install order
(:mod:`t2gen.kube.order`) places every kind of the table. A plural is not
``kind.lower() + "s"`` (``NetworkPolicy`` is ``networkpolicies``), so it is
written out, as the API server serves it (``kubectl api-resources``; the
custom resources' CRDs).
"""

from __future__ import annotations

from t2gen.record import Record

__all__ = ["KINDS", "KindInfo", "kind_info"]


class KindInfo(Record):
    """One kind as the API server serves it.

    Attributes:
        kind: ``StatefulSet``.
        group: the API group (``apps``), ``""`` for the core group.
        version: the version t2gen writes or reads (``v1``).
        plural: the resource name (``statefulsets``).
        namespaced: whether its objects live in a namespace.
    """

    kind: str
    group: str
    version: str
    plural: str
    namespaced: bool

    @property
    def api_version(self) -> str:
        """``apps/v1``, or ``v1`` for the core group."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def resource(self) -> str:
        """The resource as kubectl names it unambiguously: ``statefulsets.apps``, ``pods``."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def ref(self, name: str) -> str:
        """``kubectl``'s ``TYPE/NAME`` of one object: ``statefulsets.apps/wordcount-0``."""
        return f"{self.resource}/{name}"


KINDS: tuple[KindInfo, ...] = (
    KindInfo("Pod", "", "v1", "pods", True),
    KindInfo("Service", "", "v1", "services", True),
    KindInfo("ConfigMap", "", "v1", "configmaps", True),
    KindInfo("Secret", "", "v1", "secrets", True),
    KindInfo("ServiceAccount", "", "v1", "serviceaccounts", True),
    KindInfo("PersistentVolumeClaim", "", "v1", "persistentvolumeclaims", True),
    KindInfo("Role", "rbac.authorization.k8s.io", "v1", "roles", True),
    KindInfo("RoleBinding", "rbac.authorization.k8s.io", "v1", "rolebindings", True),
    KindInfo("StatefulSet", "apps", "v1", "statefulsets", True),
    KindInfo("Deployment", "apps", "v1", "deployments", True),
    KindInfo("ReplicaSet", "apps", "v1", "replicasets", True),
    KindInfo("DaemonSet", "apps", "v1", "daemonsets", True),
    KindInfo("Job", "batch", "v1", "jobs", True),
    KindInfo("NetworkPolicy", "networking.k8s.io", "v1", "networkpolicies", True),
    # Volcano (volcano-sh/volcano config/crd/volcano/bases/scheduling.volcano.sh_podgroups.yaml)
    KindInfo("PodGroup", "scheduling.volcano.sh", "v1beta1", "podgroups", True),
    # coscheduling (kubernetes-sigs/scheduler-plugins manifests/crds/scheduling.x-k8s.io_podgroups.yaml)
    KindInfo("PodGroup", "scheduling.x-k8s.io", "v1alpha1", "podgroups", True),
    # the Workload API (kubernetes/api scheduling/v1alpha1, v1alpha2, v1beta1)
    KindInfo("Workload", "scheduling.k8s.io", "v1alpha1", "workloads", True),
    KindInfo("Workload", "scheduling.k8s.io", "v1alpha2", "workloads", True),
    KindInfo("PodGroup", "scheduling.k8s.io", "v1alpha2", "podgroups", True),
    KindInfo("Workload", "scheduling.k8s.io", "v1beta1", "workloads", True),
    KindInfo("PodGroup", "scheduling.k8s.io", "v1beta1", "podgroups", True),
)
"""Every kind t2gen renders, and those it reads: ``Pod`` (``status``) and the workloads
``t2gen check`` checks (Deployment, ReplicaSet, DaemonSet); a kind of two groups has two rows."""

_BY_VERSION = {(k.api_version, k.kind): k for k in KINDS}
_BY_GROUP = {(k.group, k.kind): k for k in KINDS}


def kind_info(api_version: str, kind: str) -> KindInfo:
    """The row of ``kind`` at ``api_version``, or in its group at another version (the plural is the same).

    Args:
        api_version: an object's ``apiVersion`` (``apps/v1``, ``v1``).
        kind: its ``kind``.

    Raises:
        KeyError: a kind t2gen neither renders nor reads (a t2gen bug when it
            comes from a render; ``tests/kube/test_kinds.py`` checks every one).
    """
    found = _BY_VERSION.get((api_version, kind))
    return (
        found if found is not None else _BY_GROUP[api_version.rpartition("/")[0], kind]
    )
