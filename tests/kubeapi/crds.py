"""Minimal CustomResourceDefinitions of the gang kinds t2gen renders, so the real API server validates them.

The names, group, version and scope of each are those of the project's published
CRD (volcano-sh/volcano ``config/crd/volcano/bases/scheduling.volcano.sh_podgroups.yaml``;
kubernetes-sigs/scheduler-plugins ``manifests/coscheduling/crd.yaml``); the
schema is t2gen's own ``schemas/kube/<group>_<version>_podgroup.schema.json``
(written from the same projects' Go types) turned into the structural OpenAPI
schema a CRD needs
(https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#specifying-a-structural-schema):
``$ref`` resolved, ``const`` an ``enum``, a quantity ``x-kubernetes-int-or-string``
as the published CRDs write it, ``additionalProperties: false`` left to the API
server's pruning and field validation (unknown fields are errors under
server-side apply). Kueue's gang is labels on the pods, and the Workload API is
built into Kubernetes, so neither needs one.
"""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import ROOT

GANG_KINDS = {
    ("scheduling.volcano.sh", "v1beta1"): {"status": False},
    ("scheduling.x-k8s.io", "v1alpha1"): {"status": True},
}
"""(group, version) of each PodGroup t2gen renders -> whether its CRD has the status subresource."""


def _structural(node: Any, defs: dict[str, Any]) -> Any:
    """One JSON Schema node as a structural OpenAPI v3 schema node."""
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _structural(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    types = {branch.get("type") for branch in node.get("anyOf", [])}
    if {"integer", "string"} <= types:  # a quantity, as controller-gen writes one
        pattern = next(
            b.get("pattern") for b in node["anyOf"] if b.get("type") == "string"
        )
        out = {
            "anyOf": [{"type": "integer"}, {"type": "string"}],
            "x-kubernetes-int-or-string": True,
        }
        return {**out, "pattern": pattern} if pattern else out
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("$schema", "$id", "title", "$defs", "const"):
            continue
        if key == "additionalProperties" and value is False:
            continue
        if key == "type" and isinstance(value, list):
            out["type"] = next(t for t in value if t != "null")
            out["nullable"] = "null" in value
        elif key == "properties":
            out[key] = {name: _structural(v, defs) for name, v in value.items()}
        elif key in ("items", "additionalProperties"):
            out[key] = _structural(value, defs)
        else:
            out[key] = value
    if "const" in node:
        out["enum"] = [node["const"]]
    if "type" not in out and "enum" in out:
        out["type"] = "string"
    return out


def definition(group: str, version: str) -> dict[str, Any]:
    """The CRD of ``PodGroup`` in ``group/version``, from t2gen's schema of it."""
    schema = json.loads(
        (
            ROOT / "schemas" / "kube" / f"{group}_{version}_podgroup.schema.json"
        ).read_text()
    )
    defs = schema.get("$defs", {})
    properties = {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        **{
            name: _structural(schema["properties"][name], defs)
            for name in ("spec", "status")
            if name in schema["properties"]
        },
    }
    subresources = {"status": {}} if GANG_KINDS[group, version]["status"] else {}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"podgroups.{group}"},
        "spec": {
            "group": group,
            "names": {
                "kind": "PodGroup",
                "listKind": "PodGroupList",
                "plural": "podgroups",
                "singular": "podgroup",
            },
            "scope": "Namespaced",
            "versions": [
                {
                    "name": version,
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {"type": "object", "properties": properties}
                    },
                    "subresources": subresources,
                }
            ],
        },
    }
