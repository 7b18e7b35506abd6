from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from t2gen.errors import OutputError
from t2gen.gangs import GROUP_KINDS
from t2gen.kube.order import (
    CUSTOM_RESOURCES,
    GANG_GROUPS,
    INSTALL_ORDER,
    install_order,
    kind_rank,
    sort_documents,
)
from t2gen.kube.yamlio import load_all_yaml
from t2gen.output.directory import FILE_MARKER, file_name, write_directory
from t2gen.output.stream import to_json, to_yaml_stream
from t2gen.render.engine import RenderedDocument


def doc(kind: str, name: str, **extra: Any) -> RenderedDocument:
    return RenderedDocument(
        "k8s/x.yaml.j2",
        {"apiVersion": "v1", "kind": kind, "metadata": {"name": name}, **extra},
    )


def test_install_order_then_natural_name_order() -> None:
    documents = [
        doc("StatefulSet", "wc-jm"), doc("StatefulSet", "wc-10"), doc("StatefulSet", "wc-2"), doc("Service", "wc-jm"),
        doc("NetworkPolicy", "np"), doc("Widget", "w"), doc("RoleBinding", "wc"), doc("Role", "wc"),
        doc("PersistentVolumeClaim", "wc"), doc("ConfigMap", "wc"), doc("Secret", "s"), doc("ServiceAccount", "wc"),
        doc("Service", "wc"), doc("AWidget", "a"),
    ]  # fmt: skip
    ordered = [(d.kind, d.name) for d in sort_documents(documents)]
    assert ordered == [
        ("NetworkPolicy", "np"), ("ServiceAccount", "wc"), ("Secret", "s"), ("ConfigMap", "wc"),
        ("PersistentVolumeClaim", "wc"), ("Role", "wc"), ("RoleBinding", "wc"), ("Service", "wc"),
        ("Service", "wc-jm"), ("AWidget", "a"), ("Widget", "w"), ("StatefulSet", "wc-2"),
        ("StatefulSet", "wc-10"), ("StatefulSet", "wc-jm"),
    ]  # fmt: skip
    assert INSTALL_ORDER.index("Role") < INSTALL_ORDER.index("RoleBinding")


# Helm's InstallOrder (helm/helm, pkg/release/util/kind_sorter.go), which t2gen keeps for known kinds.
HELM_INSTALL_ORDER = (
    "PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
    "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass",
    "PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole", "ClusterRoleList",
    "ClusterRoleBinding", "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList",
    "Service", "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
    "HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress", "APIService",
    "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
)  # fmt: skip
WORKLOADS = ("DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment", "StatefulSet", "Job", "CronJob")  # fmt: skip


def test_kinds_helm_knows_keep_helms_order() -> None:
    known = [kind for kind in INSTALL_ORDER if kind in HELM_INSTALL_ORDER]
    assert tuple(known) == HELM_INSTALL_ORDER
    assert set(INSTALL_ORDER) - set(HELM_INSTALL_ORDER) == {
        CUSTOM_RESOURCES,
        GANG_GROUPS,
    }
    assert set(install_order(GROUP_KINDS)) - set(HELM_INSTALL_ORDER) == {
        CUSTOM_RESOURCES,
        *GROUP_KINDS,
    }


@pytest.mark.parametrize("kind", GROUP_KINDS)
def test_scheduling_objects_come_after_custom_resources_and_before_every_workload(
    kind: str,
) -> None:
    assert all(
        kind_rank(kind, GROUP_KINDS) < kind_rank(workload, GROUP_KINDS)
        for workload in WORKLOADS
    )
    assert kind_rank("Widget", GROUP_KINDS) < kind_rank(kind, GROUP_KINDS)
    documents = [
        doc("StatefulSet", "wc-0"),
        doc("Pod", "p"),
        doc(kind, "wc"),
        doc("Service", "wc"),
    ]
    assert [d.kind for d in sort_documents(documents, GROUP_KINDS)] == [
        "Service",
        kind,
        "Pod",
        "StatefulSet",
    ]


def test_custom_resources_come_after_rbac_services_and_crds_before_workloads() -> None:
    for before in (
        "CustomResourceDefinition",
        "ServiceAccount",
        "ConfigMap",
        "RoleBinding",
        "Service",
    ):
        assert kind_rank(before) < kind_rank("Certificate")
    assert (
        kind_rank("Certificate")
        == kind_rank("Widget")
        == INSTALL_ORDER.index(CUSTOM_RESOURCES)
    )
    assert kind_rank("Certificate") < min(kind_rank(workload) for workload in WORKLOADS)


def test_yaml_stream_has_separator_and_source_per_object() -> None:
    text = to_yaml_stream(
        [doc("ConfigMap", "a", data={"k": "yes"}), doc("ConfigMap", "b")]
    )
    assert text.startswith("---\n# Source: k8s/x.yaml.j2\napiVersion: v1\n")
    assert text.count("\n---\n") == 1 and text.endswith("\n")
    assert load_all_yaml(text)[0]["data"] == {"k": "yes"}


def test_json_is_a_v1_list() -> None:
    listing = json.loads(to_json([doc("ConfigMap", "a")]))
    assert listing["apiVersion"] == "v1" and listing["kind"] == "List"
    assert listing["items"][0]["metadata"]["name"] == "a"


def test_file_names() -> None:
    assert file_name(doc("StatefulSet", "wc-0")) == "statefulset-wc-0.yaml"


def _documents() -> list[RenderedDocument]:
    return [doc("ConfigMap", "a"), doc("Service", "b")]


def test_write_directory_creates_files_and_kustomization(tmp_path: Path) -> None:
    out = tmp_path / "out"
    written = write_directory(_documents(), out, sources=["job.yaml"])
    assert [p.name for p in written] == [
        "configmap-a.yaml",
        "service-b.yaml",
        "kustomization.yaml",
    ]
    kustomization = (out / "kustomization.yaml").read_text(encoding="utf-8")
    assert kustomization.startswith("# Generated by t2gen from job.yaml")
    assert load_all_yaml(kustomization)[0]["resources"] == [
        "configmap-a.yaml",
        "service-b.yaml",
    ]
    assert (
        (out / "configmap-a.yaml")
        .read_text(encoding="utf-8")
        .startswith(f"{FILE_MARKER}# Source: k8s/x.yaml.j2\napiVersion: v1\n")
    )
    assert oct(out.stat().st_mode & 0o777) == oct(0o777 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_rewriting_replaces_only_t2gens_own_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_directory(_documents(), out, sources=["job.yaml"])
    write_directory([doc("ConfigMap", "a")], out, sources=["job.yaml"])
    assert sorted(p.name for p in out.iterdir()) == [
        "configmap-a.yaml",
        "kustomization.yaml",
    ]
    assert [p.name for p in tmp_path.iterdir()] == [
        "out"
    ]  # no staging directories left behind


def test_foreign_files_are_never_deleted(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_directory(_documents(), out, sources=["job.yaml"])
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(
        OutputError, match=r"holds files t2gen did not write \(notes.txt\)"
    ):
        write_directory(_documents(), out, sources=["job.yaml"])
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert (out / "service-b.yaml").exists()


def test_a_hand_edited_kustomization_names_only_the_user_s_files(
    tmp_path: Path,
) -> None:
    """The user's file is named as foreign; t2gen's own files (kustomization.yaml too) not at all."""
    out = tmp_path / "out"
    write_directory(_documents(), out, sources=["job.yaml"])
    ours = sorted(p.name for p in out.iterdir() if p.name != "kustomization.yaml")
    with (out / "kustomization.yaml").open("a", encoding="utf-8") as handle:
        handle.write("- mine.yaml\n")
    (out / "mine.yaml").write_text("a: 1\n", encoding="utf-8")
    with pytest.raises(OutputError) as caught:
        write_directory(_documents(), out, sources=["job.yaml"])
    message = str(caught.value)
    assert "holds files t2gen did not write (mine.yaml);" in message
    assert not any(name in message for name in ours)
    assert (out / "mine.yaml").read_text(encoding="utf-8") == "a: 1\n"


def test_a_file_without_the_marker_line_is_the_user_s(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_directory(_documents(), out, sources=["job.yaml"])
    (out / "service-b.yaml").write_text("edited\n", encoding="utf-8")
    with pytest.raises(
        OutputError, match=r"out: holds files t2gen did not write \(service-b.yaml\);"
    ):
        write_directory(_documents(), out, sources=["job.yaml"])
    assert (out / "service-b.yaml").read_text(encoding="utf-8") == "edited\n"


def test_an_existing_empty_directory_is_used(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    write_directory(_documents(), out, sources=["job.yaml"])
    assert (out / "kustomization.yaml").exists()


def test_a_file_in_the_way(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("x", encoding="utf-8")
    with pytest.raises(OutputError, match="is not a directory"):
        write_directory(_documents(), tmp_path / "out", sources=["job.yaml"])


def test_failure_mid_write_leaves_the_old_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    write_directory(_documents(), out, sources=["job.yaml"])
    before = {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()}
    calls = {"n": 0}
    real_fsync = os.fsync

    def failing_fsync(fd: int) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(28, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OutputError, match="No space left on device"):
        write_directory(
            [doc("ConfigMap", "z"), doc("Service", "y")], out, sources=["job.yaml"]
        )
    assert {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_two_objects_one_file(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match=r"both be written to configmap-a\.yaml"):
        write_directory(
            [doc("ConfigMap", "a"), doc("ConfigMap", "a")],
            tmp_path / "out",
            sources=["j"],
        )


def test_force_replaces_a_directory_with_foreign_and_edited_files(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    write_directory(_documents(), out, sources=["job.yaml"])
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    (out / "service-b.yaml").write_text("edited\n", encoding="utf-8")
    write_directory(_documents(), out, sources=["job.yaml"], force=True)
    assert not (out / "notes.txt").exists()
    assert (out / "service-b.yaml").read_text(encoding="utf-8").startswith(FILE_MARKER)


def test_the_marker_line_decides(tmp_path: Path) -> None:
    """A marked file is t2gen's even when edited (a checkout or a merge changes it too)."""
    out = tmp_path / "out"
    write_directory(_documents(), out, sources=["job.yaml"])
    edited = out / "service-b.yaml"
    edited.write_text(edited.read_text(encoding="utf-8") + "# note\n", encoding="utf-8")
    write_directory([doc("ConfigMap", "a", data={"k": "v"})], out, sources=["job.yaml"])
    assert not edited.exists()
    kept = out / "configmap-a.yaml"
    kept.write_text(
        kept.read_text(encoding="utf-8").removeprefix(FILE_MARKER), encoding="utf-8"
    )  # the user takes the file over
    with pytest.raises(
        OutputError, match=r"holds files t2gen did not write \(configmap-a.yaml\)"
    ):
        write_directory(_documents(), out, sources=["job.yaml"])


def test_a_directory_an_older_t2gen_wrote_is_replaced(tmp_path: Path) -> None:
    """The sha256 lines of an older kustomization.yaml still count as the record."""
    import hashlib

    out = tmp_path / "out"
    out.mkdir()
    body = "# Source: k8s/x.yaml.j2\napiVersion: v1\n"
    (out / "configmap-a.yaml").write_text(body, encoding="utf-8")
    text = (
        "# Generated by t2gen from job.yaml; `kubectl apply -k <dir>` applies it.\n"
        f"# sha256 {hashlib.sha256(body.encode()).hexdigest()} configmap-a.yaml\n"
        "resources:\n- configmap-a.yaml\n"
    )
    seal = hashlib.sha256(text.encode()).hexdigest()
    (out / "kustomization.yaml").write_text(
        f"{text}# sha256 {seal} kustomization.yaml\n", encoding="utf-8"
    )
    write_directory(_documents(), out, sources=["job.yaml"])
    assert (out / "service-b.yaml").exists()
