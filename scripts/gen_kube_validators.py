"""Generate t2gen/_generated/kubeschema/: Kubernetes' schemas of t2gen's kinds compiled to plain Python.

``render --validate`` and ``check`` would otherwise import jsonschema and
referencing and parse kubernetes-validate's 1.8 MB definitions file on every
run. For the default Kubernetes version (:data:`t2gen.kube.versions.DEFAULT_KUBE_VERSION`)
and the kinds t2gen renders (:data:`KINDS`, every gang-scheduling kind that
version serves (:data:`t2gen.gangs.GROUP_KINDS`), and every custom resource whose schema t2gen ships in
``schemas/kube/``), each kind's strict schema is rewritten as one draft-07
document (:func:`self_contained`) and compiled by
`fastjsonschema <https://github.com/horejsek/python-fastjsonschema>`_ into one
module of the package, shipped like ``t2gen/_generated/jobschema.py``. Other
versions, and other kinds, are checked by jsonschema alone.

The generated code only answers "valid or not": an object it rejects is
checked again by jsonschema (``t2gen/checks/openapi.py``), which writes the
messages, so the code can only make a run faster, never change what it
prints. It is built to be at least as strict as jsonschema: a schema with a
keyword or value it does not handle exactly as JSON Schema 2020-12 does gets
no module (:class:`Unsupported`), and is checked by jsonschema alone.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.gen_validator import _raising_the_rule_only  # noqa: E402

TARGET = ROOT / "t2gen" / "_generated" / "kubeschema"

KINDS: tuple[tuple[str, str], ...] = (
    ("networking.k8s.io/v1", "NetworkPolicy"),
    ("v1", "ServiceAccount"),
    ("v1", "Secret"),
    ("v1", "ConfigMap"),
    ("v1", "PersistentVolumeClaim"),
    ("rbac.authorization.k8s.io/v1", "Role"),
    ("rbac.authorization.k8s.io/v1", "RoleBinding"),
    ("v1", "Service"),
    ("apps/v1", "StatefulSet"),
)
"""The Kubernetes kinds t2gen renders (design: Objects), in install order."""


class Unsupported(Exception):
    """The schema uses something the generated code would not check exactly as jsonschema does."""


def ref_resolver(
    document: dict[str, Any], file: str
) -> Callable[[str], tuple[str, dict[str, Any]]]:
    """Follow a ``$ref`` to one of ``document``'s ``$defs``, for :func:`self_contained`.

    Args:
        document: the schema (or definitions file) holding ``$defs``.
        file: the name a ``$ref`` may give ``document`` before ``#``
            (``/api/_definitions.json`` in kubernetes-validate's bundled
            schemas; empty for a schema's references to itself).

    Returns:
        A function from ``$ref`` (``FILE#/$defs/NAME`` or ``#/$defs/NAME``) to
        ``(NAME, definition)``, raising :class:`Unsupported` for anything else.
    """
    table = document.get("$defs", {})
    prefix = f"(?:{re.escape(file)})?" if file else ""
    pattern = re.compile(prefix + r"#/\$defs/([^/~]+)")

    def resolve(ref: str) -> tuple[str, dict[str, Any]]:
        match = pattern.fullmatch(ref)
        if not match or match[1] not in table:
            raise Unsupported(f"$ref {ref!r}")
        return match[1], table[match[1]]

    return resolve


_ANNOTATIONS = frozenset(
    {"$schema", "$id", "$comment", "title", "description", "default", "examples"}
)
_KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "additionalProperties",
        "required",
        "items",
        "enum",
        "const",
        "oneOf",
        "anyOf",
        "allOf",
        "not",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
    }
)
"""Keywords fastjsonschema (as draft-07) checks exactly as JSON Schema 2020-12 does, or more strictly."""


def self_contained(
    schema: dict[str, Any],
    resolve: Callable[[str], tuple[str, dict[str, Any]]],
    *,
    formats: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """A 2020-12 schema rewritten as one draft-07 document fastjsonschema compiles.

    Annotations (descriptions, ``x-kubernetes-*``) are dropped; every ``$ref``
    becomes ``#/definitions/NAME`` with the referenced schemas copied under
    ``definitions``; a ``$ref`` with other keywords beside it (which 2020-12
    applies and draft-07 ignores) becomes an ``allOf``; ``const`` becomes a
    one-value ``enum``; ``format`` is kept only for the names in ``formats``
    (jsonschema checks no others here).

    Args:
        schema: the kind's schema.
        resolve: maps a ``$ref`` value to ``(NAME, schema)``; raises
            :class:`Unsupported` for a reference it cannot follow.
        formats: format names to keep.

    Returns:
        The rewritten schema.

    Raises:
        Unsupported: a keyword outside the supported set, an ``enum`` or
            ``const`` with a non-string value (Python's ``==`` says ``True == 1``,
            JSON Schema does not), or an array ``items``.
    """
    definitions: dict[str, Any] = {}

    def rewrite(node: Any) -> Any:
        if isinstance(node, bool):
            return node
        if not isinstance(node, dict):
            raise Unsupported(f"schema {node!r}")
        out: dict[str, Any] = {}
        ref = None
        for key, value in node.items():
            if key in _ANNOTATIONS or key == "$defs" or key.startswith("x-"):
                continue
            if key == "$ref":
                name, target = resolve(value)
                if name not in definitions:
                    definitions[name] = True  # placeholder: schemas may be recursive
                    definitions[name] = rewrite(target)
                ref = {"$ref": f"#/definitions/{name}"}
            elif key == "format":
                if value in formats:
                    out[key] = value
            elif key not in _KEYWORDS:
                raise Unsupported(f"keyword {key!r}")
            elif key == "properties":
                out[key] = {name: rewrite(sub) for name, sub in value.items()}
            elif key in ("additionalProperties", "items", "not"):
                out[key] = rewrite(value)
            elif key in ("oneOf", "anyOf", "allOf"):
                out[key] = [rewrite(sub) for sub in value]
            elif key in ("enum", "const"):
                values = value if key == "enum" else [value]
                if not all(isinstance(v, str) or v is None for v in values):
                    raise Unsupported(f"{key} {value!r}")
                # as an enum: fastjsonschema 2.22 cannot compile const without detailed exceptions
                out["enum"] = values
            else:
                out[key] = value
        if ref is None:
            return out
        return {"allOf": [ref, out]} if out else ref

    body = rewrite(schema)
    if not isinstance(body, dict):
        raise Unsupported("a boolean schema")
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        **body,
        "definitions": definitions,
    }


_EXCEPTION = '''\
class JsonSchemaValueException(ValueError):
    """The data does not match the schema; ``rule`` is the JSON Schema keyword that failed."""

    def __init__(self, rule=None):
        super().__init__(rule)
        self.rule = rule


JsonSchemaValuesException = JsonSchemaValueException
'''


def compile_schema(schema: dict[str, Any], formats: frozenset[str]) -> str:
    """A draft-07 document (:func:`self_contained`) compiled to a module by fastjsonschema.

    The module's ``validate(data, custom_formats)`` raises
    ``JsonSchemaValueException`` for invalid data; it imports nothing but ``re``.

    Raises:
        Unsupported: the generated code would need fastjsonschema at run time.
    """
    import fastjsonschema

    code = fastjsonschema.compile_to_code(
        schema,
        formats={name: lambda _: True for name in formats},
        use_default=False,
        use_formats=True,
        detailed_exceptions=False,
    )
    code = code.replace(
        "from fastjsonschema import JsonSchemaValueException, JsonSchemaValuesException\n",
        _EXCEPTION,
    )
    code = code.replace(f'VERSION = "{fastjsonschema.VERSION}"\n', "")
    if "import fastjsonschema" in code or "from fastjsonschema" in code:
        raise Unsupported("the generated code imports fastjsonschema")
    code = _raising_the_rule_only(code)
    return "\n".join(line.rstrip() for line in code.splitlines()).strip() + "\n"


def module_name(api_version: str, kind: str) -> str:
    """The generated module of a kind: ``statefulset_apps_v1``, ``podgroup_scheduling_volcano_sh_v1beta1``."""
    return re.sub(r"[^a-z0-9]+", "_", f"{kind}_{api_version}".lower()).strip("_")


def kinds(version: str) -> list[tuple[str, str]]:
    """Every kind compiled for ``version``: :data:`KINDS`, the served gang kinds, t2gen's custom resources."""
    from t2gen.checks.openapi import KubeSchemas
    from t2gen.gangs import GROUP_KINDS

    found = list(KINDS)
    schemas = KubeSchemas(version)
    for path in sorted(schemas._directory.glob("*-scheduling-*.json")):
        kind_part, _, api = path.stem.partition("-scheduling-")
        for kind in GROUP_KINDS:
            if kind.lower() == kind_part:
                found.append((f"scheduling.k8s.io/{api}", kind))
    # t2gen's own schemas: schemas/kube/<group>_<version>_<kind>.schema.json
    for path in sorted((ROOT / "schemas" / "kube").glob("*.schema.json")):
        group, version_part, kind_part = path.name.removesuffix(".schema.json").split(
            "_"
        )
        for kind in GROUP_KINDS:
            key = (f"{group}/{version_part}", kind)
            if kind.lower() == kind_part and key not in found:
                found.append(key)
    return found


def generate() -> dict[str, str]:
    """The package's files for the current schemas: ``{file name: text}``."""
    import fastjsonschema

    from t2gen.checks.openapi import KubeSchemas, installed_kubernetes_validate
    from t2gen.kube.versions import DEFAULT_KUBE_VERSION

    schemas = KubeSchemas(DEFAULT_KUBE_VERSION)
    validate_version = installed_kubernetes_validate()
    files: dict[str, str] = {}
    table: list[str] = []
    for api_version, kind in kinds(DEFAULT_KUBE_VERSION):
        found = schemas._schema(kind, api_version)
        if found is None:
            continue
        path, schema = found
        own = (kind, api_version) in schemas._own
        if own:
            source = f"schemas/kube/{path.name}"
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            document = self_contained(schema, ref_resolver(schema, ""))
            formats: frozenset[str] = frozenset()
        else:
            source = (
                f"kubernetes-validate {validate_version}, "
                f"v{DEFAULT_KUBE_VERSION}.0-local-strict/{path.name}"
            )
            digest = None
            document = self_contained(
                schema,
                ref_resolver(schemas._definitions, "/api/_definitions.json"),
                formats=frozenset({"byte"}),
            )
            formats = frozenset({"byte"})
        try:
            code = compile_schema(document, formats)
        except Unsupported as err:
            print(f"{api_version} {kind}: not compiled ({err})", file=sys.stderr)
            continue
        name = module_name(api_version, kind)
        files[f"{name}.py"] = (
            f"# Generated by scripts/gen_kube_validators.py (make generate) from {source}\n"
            f"# with fastjsonschema {fastjsonschema.VERSION}; do not edit.\n"
            "# ruff: noqa\n"
            "# mypy: ignore-errors\n"
            f"{code}"
        )
        table.append(f"    ({api_version!r}, {kind!r}): ({name!r}, {digest!r}),")
    files["__init__.py"] = "\n".join(
        [
            "# Generated by scripts/gen_kube_validators.py (make generate); do not edit.",
            '"""Kubernetes schemas of t2gen\'s kinds as code.',
            "",
            "See scripts/gen_kube_validators.py. Used by t2gen.checks.openapi only for",
            ":data:`KUBERNETES_VERSION`, while the installed kubernetes-validate is",
            ":data:`KUBERNETES_VALIDATE` (for Kubernetes' kinds) and t2gen's own schema",
            "file still has the SHA-256 recorded here (for the custom resources).",
            '"""',
            "",
            f"KUBERNETES_VERSION = {DEFAULT_KUBE_VERSION!r}",
            f"KUBERNETES_VALIDATE = {validate_version!r}",
            "",
            "VALIDATORS = {",
            "    # (apiVersion, kind): (module, SHA-256 of t2gen's schema file, or None: Kubernetes')",
            *table,
            "}",
            "",
        ]
    )
    return files


if __name__ == "__main__":
    shutil.rmtree(TARGET, ignore_errors=True)
    TARGET.mkdir(parents=True)
    for name, text in generate().items():
        (TARGET / name).write_text(text, encoding="utf-8", newline="\n")
    print(TARGET, file=sys.stderr)
