"""Kubernetes' OpenAPI schemas, offline: validate manifests the way kubeconform does.

Uses the JSON schemas bundled in the ``kubernetes-validate`` package (1.25 to
1.37, strict flavour: unknown fields are errors) through ``jsonschema``
directly, because the library's own ``validate()`` re-reads a 1.4 MB
definitions file on every call and stops at the first error. Here each file is
read once per run, each kind's validator is built once, and every error of
every object is reported. ``byte`` fields (Secret ``data``) are checked to be
base64, which the library skips. Code generated at build time from the same
schemas passes valid objects of t2gen's kinds first (``t2gen/_generated/kubeschema/``).
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import importlib
import importlib.util
import json
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from t2gen import fastpaths
from t2gen._generated import kubeschema
from t2gen.checks.schemawork import SchemaWork, describe
from t2gen.errors import T2genError
from t2gen.kube.intformats import INTEGER_FORMATS, has_wide_numbers, integer_format
from t2gen.kube.validators import is_api_version, is_kind

__all__ = [
    "KubeSchemas",
    "installed_kubernetes_validate",
    "latest_schema_version",
    "schema_versions",
]

_INSTALL_HINT = (
    "install it with `pip install kubernetes-validate` (the `validate` extra of t2gen)"
)


def _schema_root() -> Path:
    """The directory of kubernetes-validate's bundled schemas (found without importing the package)."""
    try:
        spec = importlib.util.find_spec("kubernetes_validate")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise T2genError(
            f"Kubernetes schema validation needs kubernetes-validate; {_INSTALL_HINT}"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "kubernetes-json-schema"


def installed_kubernetes_validate() -> str:
    """kubernetes-validate's version, read from its ``version.py`` without importing it."""
    text = (_schema_root().parent / "version.py").read_text(encoding="utf-8")
    return str(re.findall(r"__version__\s*=\s*['\"]([^'\"]+)['\"]", text)[0])


def schema_versions() -> list[str]:
    """Kubernetes minor versions with bundled schemas, oldest first (``["1.25", ..., "1.37"]``).

    Raises:
        T2genError: kubernetes-validate is not installed.
    """
    found = []
    for entry in _schema_root().iterdir():
        match = re.fullmatch(r"v(\d+)\.(\d+)\.0-local-strict", entry.name)
        if match:
            found.append((int(match[1]), int(match[2])))
    return [f"{major}.{minor}" for major, minor in sorted(found)]


def latest_schema_version() -> str:
    """The newest Kubernetes minor version with bundled schemas, e.g. ``"1.37"``.

    Raises:
        T2genError: kubernetes-validate is not installed.
    """
    return schema_versions()[-1]


def _schema_file(kind: str, api_version: str) -> str:
    """The bundled file that would hold ``kind``'s schema, e.g. ``rolebinding-rbac-v1.json``.

    The files (yannh/kubernetes-json-schema's layout) are named by the kind and
    the first dot-separated segment of the API group only
    (``rbac.authorization.k8s.io/v1`` -> ``rbac-v1``), so one file name may
    stand for several groups; :func:`_is_group_of` tells them apart.
    """
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    return f"{kind.lower()}-{group_version}.json"


def _is_group_of(schema: dict[str, Any], api_version: str) -> bool:
    """Whether a kind's schema belongs to the full API group of ``api_version``.

    Each bundled kind's schema lists its ``x-kubernetes-group-version-kind``;
    a Volcano ``scheduling.volcano.sh/v1beta1`` PodGroup shares the file name of
    Kubernetes' ``scheduling.k8s.io/v1beta1`` PodGroup but not its group, so it
    is a custom resource. A schema that lists no group is taken as matching.
    """
    group = api_version.rpartition("/")[0]
    listed = schema.get("x-kubernetes-group-version-kind")
    if not isinstance(listed, list) or not listed:
        return True
    return any(isinstance(gvk, dict) and gvk.get("group") == group for gvk in listed)


def _is_kubernetes_group(group: str) -> bool:
    """Whether an API group is Kubernetes' own: core (``""``), a one-word group (``apps``) or ``*.k8s.io``.

    ``*.x-k8s.io`` groups belong to Kubernetes SIG projects installed as custom
    resources (e.g. scheduler-plugins' ``scheduling.x-k8s.io``), not to Kubernetes.
    """
    return "." not in group or (group.endswith(".k8s.io") and "x-k8s.io" not in group)


def _is_base64(value: object) -> bool:
    """The OpenAPI ``byte`` format: standard base64 (Secret ``data`` values)."""
    if not isinstance(value, str):
        return True
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _passes(module_name: str, formats: dict[str, Any]) -> Callable[[Any], bool]:
    """Whether an object passes a generated module's ``validate`` (anything it raises: no)."""
    module = importlib.import_module(module_name)

    def passes(obj: Any) -> bool:
        try:
            module.validate(obj, formats)
        except (
            Exception
        ):  # JsonSchemaValueException, or anything unexpected: jsonschema decides
            return False
        return True

    return passes


class KubeSchemas:
    """The strict OpenAPI schemas of one Kubernetes version, loaded once.

    Args:
        version: a minor version such as ``1.37`` (``v1.37`` and ``1.37.2`` work too).

    Raises:
        T2genError: kubernetes-validate is missing, or the version is not bundled
            (the message lists the versions that are).
    """

    def __init__(self, version: str) -> None:
        match = re.fullmatch(r"v?(\d+)\.(\d+)(?:\.\d+)?", version.strip())
        versions = schema_versions()
        wanted = f"{match[1]}.{int(match[2])}" if match else version
        if wanted not in versions:
            raise T2genError(
                f"Kubernetes {version} has no bundled schema; use one of {versions[0]} to {versions[-1]}"
            )
        self.version = wanted
        self._directory = _schema_root() / f"v{wanted}.0-local-strict"
        self._schemas: dict[tuple[str, str], tuple[Path, dict[str, Any]] | None] = {}
        self._validators: dict[tuple[str, str], Any] = {}
        self._fast: dict[tuple[str, str], Any] = {}
        self._own: set[tuple[str, str]] = set()
        self.work = SchemaWork()

    @functools.cached_property
    def _definitions(self) -> dict[str, Any]:
        """The version's ``_definitions.json`` (1.8 MB), read when a validator is built."""
        loaded: dict[str, Any] = json.loads(
            (self._directory / "_definitions.json").read_text(encoding="utf-8")
        )
        return loaded

    @functools.cached_property
    def _registry(self) -> Any:
        from referencing import Registry, Resource

        return Resource.from_contents(self._definitions) @ Registry()

    def _schema(
        self, kind: str, api_version: str
    ) -> tuple[Path, dict[str, Any]] | None:
        """The schema file and schema of one kind (None if none: a custom resource t2gen knows nothing of).

        Kubernetes' own groups are checked against the bundled schemas of this
        version; a kind they lack, and every other group, against the schema t2gen
        ships for it (:func:`t2gen.resources.custom_resource_schema_path`), if any.
        """
        if not is_kind(kind) or not is_api_version(api_version):
            return None  # names, never paths: nothing is read for them
        if (key := (kind, api_version)) not in self._schemas:
            from t2gen.resources import custom_resource_schema_path

            group = api_version.rpartition("/")[0]
            path = self._directory / _schema_file(kind, api_version)
            schema = (
                json.loads(path.read_text(encoding="utf-8"))
                if _is_kubernetes_group(group) and path.is_file()
                else None
            )
            found = custom_resource_schema_path(api_version, kind)
            own = Path(found) if found is not None else None
            if (schema is None or not _is_group_of(schema, api_version)) and own:
                self._own.add(key)
                self._schemas[key] = (own, json.loads(own.read_text(encoding="utf-8")))
            elif schema is None or not _is_group_of(schema, api_version):
                self._schemas[key] = None
            else:
                self._schemas[key] = (path, schema)
        return self._schemas[key]

    def _validator(self, kind: str, api_version: str) -> Any | None:
        """The jsonschema validator of one kind (None if no schema); it writes the messages."""
        key = (kind, api_version)
        if key not in self._validators:
            from jsonschema import Draft202012Validator, FormatChecker
            from referencing import Resource

            found = self._schema(kind, api_version)
            if found is None:
                self._validators[key] = None
            elif key in self._own:
                self._validators[key] = Draft202012Validator(
                    found[1], format_checker=FormatChecker(formats=())
                )
            else:
                registry = Resource.from_contents(found[1]) @ self._registry
                checker = FormatChecker(formats=())
                checker.checks("byte")(_is_base64)
                for name, bound in INTEGER_FORMATS.items():
                    checker.checks(name)(integer_format(bound))
                self._validators[key] = Draft202012Validator(
                    found[1], registry=registry, format_checker=checker
                )
        return self._validators[key]

    def _fast_validator(self, kind: str, api_version: str) -> Any | None:
        """Generated code for the kind, current and not switched off (``KUBE_SCHEMA_CODE``), or None.

        Only to pass objects: :meth:`_validator` checks what it rejects and writes the messages.
        """
        key = (kind, api_version)
        if key not in self._fast:
            found = self._schema(kind, api_version)
            module, digest = kubeschema.VALIDATORS.get((api_version, kind), ("", ""))
            own = key in self._own
            current = (
                fastpaths.enabled("KUBE_SCHEMA_CODE")
                and self.version == kubeschema.KUBERNETES_VERSION
                and found is not None
                and own == (digest is not None)
                and (  # t2gen's schema file, maybe edited since `make generate`
                    hashlib.sha256(found[0].read_bytes()).hexdigest() == digest
                    if own
                    else installed_kubernetes_validate()
                    == kubeschema.KUBERNETES_VALIDATE
                )
            )
            name = f"{kubeschema.__name__}.{module}"
            formats = {} if own else {"byte": _is_base64}
            self._fast[key] = _passes(name, formats) if current else None
        return self._fast[key]

    def errors(self, obj: dict[str, Any]) -> tuple[list[str], bool]:
        """Validate one object against its kind's schema.

        Args:
            obj: a parsed manifest.

        Returns:
            ``(findings, known)``: every error as ``field.path: message`` (the
            field path is ``.`` for the object itself), and whether a schema for
            the object's kind exists.
        """
        kind, api_version = obj.get("kind"), obj.get("apiVersion")
        if not is_kind(kind) or not is_api_version(api_version):  # names, never paths
            return ["apiVersion and kind must be names (apps/v1 Pod)"], True
        if self._schema(kind, api_version) is None:
            return [], False
        fast = self._fast_validator(kind, api_version)
        if fast is not None and not has_wide_numbers(obj) and fast(obj):
            return [], True
        validator = self._validator(kind, api_version)
        assert validator is not None  # the kind has a schema
        self.work.charge(
            obj
        )  # bounded: jsonschema is the slow path (t2gen.checks.schemawork)
        findings = [describe(error) for error in validator.iter_errors(obj)]
        return [
            f"{f.path}: {f.message}"
            for f in sorted(findings, key=lambda f: (f.path, f.message))
        ], True

    def check(
        self,
        objects: Iterable[dict[str, Any]],
        origins: Sequence[str] | None = None,
    ) -> tuple[list[str], list[str]]:
        """Validate objects; return ``(findings, warnings)`` prefixed with ``Kind/name``.

        An object of one of Kubernetes' own API groups (core, ``apps``,
        ``batch``..., ``*.k8s.io``) whose kind and version this Kubernetes does
        not serve, and for which t2gen ships no schema, is a finding: that API
        server would reject it. Warnings name objects of other groups whose kind
        has no schema (custom resources; not checked), and Kubernetes objects
        this version does not serve but t2gen's own schema checked.

        Args:
            objects: parsed manifests.
            origins: one per object, e.g. ``a.yaml:12`` (``t2gen check``): put
                before ``Kind/name`` as ``a.yaml:12: Kind/name``; None: no prefix.
        """
        findings: list[str] = []
        warnings: list[str] = []
        for index, obj in enumerate(objects):
            name = (
                obj.get("metadata", {}).get("name", "?")
                if isinstance(obj.get("metadata"), dict)
                else "?"
            )
            where = f"{obj.get('kind', '?')}/{name}"
            if origins is not None:
                where = f"{origins[index]}: {where}"
            errors, known = self.errors(obj)
            what = f"{obj.get('apiVersion')} {obj.get('kind')}"
            if not known and _is_kubernetes_group(
                str(obj.get("apiVersion")).rpartition("/")[0]
            ):
                findings.append(
                    f"{where}: Kubernetes {self.version} does not serve {what}, so its API server "
                    "would reject it (check with the --kube-version that serves it)"
                )
            elif not known:
                warnings.append(
                    f"{where}: no Kubernetes {self.version} schema for {what} "
                    "(a custom resource?); not checked"
                )
            elif self._served_elsewhere(obj):
                warnings.append(
                    f"{where}: Kubernetes {self.version} does not serve {what}; "
                    "checked against t2gen's own schema of it (check with the --kube-version that serves it)"
                )
            findings += [f"{where}: {error}" for error in errors]
        return findings, warnings

    def _served_elsewhere(self, obj: dict[str, Any]) -> bool:
        """Whether a Kubernetes-group object was checked with t2gen's schema: this version does not serve it."""
        key = (str(obj.get("kind")), str(obj.get("apiVersion")))
        return key in self._own and _is_kubernetes_group(key[1].rpartition("/")[0])
