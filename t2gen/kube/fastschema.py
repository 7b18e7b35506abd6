"""Kubernetes schemas as Python code: generated once by fastjsonschema, kept in the user's cache.

``render --validate`` and ``check`` would otherwise import jsonschema and
referencing (~45 ms) and parse a 1.8 MB definitions file on every run. Here
each kind's schema is compiled once, on first use, to plain Python with
`fastjsonschema <https://github.com/horejsek/python-fastjsonschema>`_, and the
compiled code is kept in the user's cache directory; later runs load it in
about a millisecond. The generated code only answers "valid or not": an object
it rejects is checked again by jsonschema (:mod:`t2gen.checks.openapi`), which
writes today's messages, so an answer of the fast validator can only make a
run faster, never change what it prints. It is therefore built to be at least
as strict as jsonschema: a schema with a keyword or value it does not handle
exactly as JSON Schema 2020-12 does gets no fast validator (:class:`Unsupported`).

The cache is code that t2gen runs, so it is trusted only when nobody else can
write it:

* the directory is ``$T2GEN_CACHE_DIR``, else ``$XDG_CACHE_HOME/t2gen``, else
  ``~/.cache/t2gen``; t2gen creates it with mode 0700, and ignores it (slow
  path, same results, nothing read from it) unless it is a directory owned by
  the user and not writable by group or others;
* a file is read only if it is a regular file (not a symlink) owned by the
  user and not writable by group or others;
* a file's name holds a key (t2gen, kubernetes-validate, fastjsonschema and
  Python bytecode versions, and the SHA-256 of the kind's schema file) and the
  SHA-256 of the file's own content, checked before the content is loaded, so a
  truncated, corrupt or stale file is never run;
* files are written to a temporary name and renamed into place, so concurrent
  first uses each see either no file or a complete one.

The content hash is a check against damage, not against an attacker who can
write the directory (who could write a matching name too): the ownership and
mode checks are what keeps others out. Deleting the directory is always safe.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from t2gen import usercache

__all__ = [
    "CACHE_PREFIX",
    "Unsupported",
    "cache_key",
    "load_or_generate",
    "ref_resolver",
    "self_contained",
]

CACHE_PREFIX = "kubeschema-"
"""The start of every file name t2gen writes in the cache directory for these validators."""

_SUFFIX = ".marshal"

Validator = Callable[[Any], bool]
"""A compiled schema: True if the object is valid."""


class Unsupported(Exception):
    """The schema uses something the fast validator would not check exactly as jsonschema does."""


def _package_version(package: str, pattern: str) -> str | None:
    """An installed package's version read from its ``version.py``, without importing it (None: not installed)."""
    import importlib.util
    import re

    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "version.py"
    try:
        match = re.search(pattern, path.read_text(encoding="utf-8"))
    except OSError:
        return None
    return match[1] if match else None


def _versions() -> tuple[str, ...] | None:
    """The versions a generated file depends on; None when fastjsonschema is missing."""
    import importlib.util

    from t2gen.cli._help import VERSION

    fastjsonschema = _package_version(
        "fastjsonschema", r"VERSION\s*=\s*['\"]([^'\"]+)['\"]"
    )
    if fastjsonschema is None:
        return None
    kubernetes_validate = _package_version(
        "kubernetes_validate", r"__version__\s*=\s*['\"]([^'\"]+)['\"]"
    )
    return (
        f"t2gen={VERSION}",
        f"kubernetes-validate={kubernetes_validate}",
        f"fastjsonschema={fastjsonschema}",
        f"python={sys.implementation.cache_tag}:{importlib.util.MAGIC_NUMBER.hex()}",
    )


_VERSIONS: list[tuple[str, ...] | None] = []


def cache_key(*parts: str) -> str | None:
    """The key of one generated validator: a SHA-256 over the versions it depends on and ``parts``.

    Args:
        parts: what identifies the schema, e.g. the schema file's SHA-256 and
            the kind.

    Returns:
        64 hex digits, or None when fastjsonschema is not installed (no
        validator can be generated; the slow path runs).
    """
    if not _VERSIONS:
        _VERSIONS.append(_versions())
    versions = _VERSIONS[0]
    if versions is None:
        return None
    return hashlib.sha256("\n".join((*versions, *parts)).encode("utf-8")).hexdigest()


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
    import re

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
    one-value ``enum``; ``format`` is kept only
    for the names in ``formats`` (jsonschema checks no others here).

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


_HEADER = '''\
class JsonSchemaValueException(ValueError):
    """The data does not match the schema."""

    def __init__(self, message, value=None, name=None, definition=None, rule=None):
        super().__init__(message)


JsonSchemaValuesException = JsonSchemaValueException
'''


def _generate(
    schema: dict[str, Any], formats: dict[str, Callable[[Any], bool]]
) -> bytes:
    """The schema compiled to Python by fastjsonschema, as a marshalled code object."""
    import marshal

    import fastjsonschema

    source = fastjsonschema.compile_to_code(
        schema,
        formats=formats,
        use_default=False,
        use_formats=True,
        detailed_exceptions=False,
    )
    source = source.replace(
        "from fastjsonschema import JsonSchemaValueException, JsonSchemaValuesException\n",
        _HEADER,
    )
    if "import fastjsonschema" in source or "from fastjsonschema" in source:
        raise Unsupported("the generated code imports fastjsonschema")
    return marshal.dumps(compile(source, "<t2gen kubernetes schema>", "exec"))


def _from_code(data: bytes, formats: dict[str, Callable[[Any], bool]]) -> Validator:
    """A validator from marshalled generated code."""
    import marshal

    namespace: dict[str, Any] = {"__name__": "t2gen_kubernetes_schema"}
    exec(marshal.loads(data), namespace)
    validate = namespace["validate"]

    def valid(obj: Any) -> bool:
        try:
            validate(obj, formats)
        except (
            Exception
        ):  # JsonSchemaValueException, or anything unexpected: jsonschema decides
            return False
        return True

    return valid


def load_or_generate(
    key: str | None,
    schema: Callable[[], dict[str, Any]],
    formats: dict[str, Callable[[Any], bool]],
) -> Validator | None:
    """The fast validator of one schema: from the cache, else generated (and cached when it can be).

    Args:
        key: :func:`cache_key` of the schema; None: no fast validator.
        schema: builds the draft-07 document (:func:`self_contained`); called
            only when the cache has no valid file for the key.
        formats: the custom format checks the generated code calls, by name.

    Returns:
        A function telling whether an object is valid, or None when the schema
        is unsupported or fastjsonschema is missing.
    """
    if key is None:
        return None
    directory = usercache.cache_dir()
    if directory is not None:
        prefix = f"{CACHE_PREFIX}{key}-"
        for name in usercache.listing(directory):
            if name.startswith(prefix) and name.endswith(_SUFFIX):
                data = usercache.read_verified(
                    directory / name, name[len(prefix) : -len(_SUFFIX)]
                )
                if data is not None:
                    # Ours and intact, yet maybe not a validator: then make it again.
                    try:
                        return _from_code(data, formats)
                    except Exception:
                        pass
    try:
        data = _generate(schema(), formats)
    except Exception:  # Unsupported, no fastjsonschema, or a schema it cannot compile
        return None
    if directory is not None:
        usercache.write_verified(directory, f"{CACHE_PREFIX}{key}-", _SUFFIX, data)
    return _from_code(data, formats)
