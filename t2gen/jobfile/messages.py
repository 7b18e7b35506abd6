"""Messages for schema violations: what is wrong, and what would be right.

:func:`t2gen.jobfile.schema.schema_problems` validates with jsonschema; this
module turns each of its errors into located :class:`~t2gen.errors.Problem`
records whose words a person can act on (the expected format, the allowed
range, the usual YAML pitfalls, the closest valid spelling).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from t2gen.errors import Problem, format_json_path
from t2gen.inputs.yaml.yaml12 import JsonPath
from t2gen.kube.validators import (
    DNS1123_LABEL_MAX,
    DNS1123_SUBDOMAIN_MAX,
    JOB_NAME_MAX,
    LABEL_VALUE_MAX,
    PORT_NAME_MAX,
)

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

    from t2gen.inputs.yaml import SourceDoc

__all__ = ["problems_for", "short_value", "suggest"]

# What each titled string format looks like, for messages about a `pattern` failure.
# The lengths are Kubernetes' own, from their one home in t2gen.kube.validators.
_FORMAT_HINTS = {
    "CIDR": "an address block such as 10.0.0.0/16 or fd00::/64",
    "job name": "lower-case letters, digits and '-', starting with a letter and ending with a "
    f"letter or digit, at most {JOB_NAME_MAX} characters (e.g. wordcount-1)",
    "DNS-1123 label": "lower-case letters, digits and '-', starting and ending with a letter or digit, "
    f"at most {DNS1123_LABEL_MAX} characters",
    "DNS-1123 subdomain": "lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, "
    f"at most {DNS1123_LABEL_MAX} characters between dots",
    "label or annotation key": f"an optional DNS prefix of at most {DNS1123_SUBDOMAIN_MAX} characters and '/', "
    f"then a name of letters, digits, '-', '_' and '.' of at most {LABEL_VALUE_MAX} characters "
    "(e.g. team or example.com/team)",
    "label value": f"at most {LABEL_VALUE_MAX} letters, digits, '-', '_' and '.', starting and ending with a "
    "letter or digit",
    "quantity": "a number with an optional suffix: 512Mi, 2Gi, 1.5G, 500m or 0 (binary Ki Mi Gi Ti Pi Ei, "
    "decimal m k M G T P E); no spaces, no 'B'",
    "CPU quantity": "cores as a number (2, 0.5) or millicores (500m)",
    "CPU limit": "cores as a number (2, 0.5) or millicores (1500m), request (the same as the request) "
    "or none (no limit)",
    "memory limit": "a quantity such as 2Gi or 512Mi, request (the same as the request) or none (no limit)",
    "port name": f"at most {PORT_NAME_MAX} lower-case letters, digits and '-', with at least one letter and "
    "no '--' (an IANA service name such as metrics)",
    "image reference": "an image name such as twister2/twister2-k8s:0.8.0, without spaces or control characters",
    "URI": "an absolute URI such as http://host/path/job.tar.gz, without spaces or control characters",
    "URL": "an http:// or https:// URL such as https://artifacts.example.com/twister2/job.tar.gz, "
    "without spaces or control characters",
    "SHA-256": "a SHA-256 digest, 64 lower-case hexadecimal digits (0-9, a-f), as t2gen package and "
    "sha256sum print it",
    "OCI reference": "an OCI artifact by digest, REGISTRY/REPOSITORY@sha256:<64 hex>, without spaces or "
    "control characters",
    "file name": "a file name of letters, digits, '.', '_', '+' and '-' (e.g. wordcount.jar)",
    "environment variable name": "letters, digits, '_', '-' and '.', not starting with a digit",
    "host name or IP address": "a host name or an IP address, e.g. 10.0.0.5",
    "environment variable value": "any text without the NUL character (\\0)",
    "ephemeral-storage limit": "a quantity such as 10Gi, request (the same as volatileDisk) or none (no limit)",
    "pod field path": "metadata.name, metadata.namespace, metadata.uid, metadata.labels['KEY'], "
    "metadata.annotations['KEY'], spec.nodeName, spec.serviceAccountName, status.hostIP, status.hostIPs, "
    "status.podIP or status.podIPs",
    "container resource": "limits.cpu, limits.memory, limits.ephemeral-storage, requests.cpu, requests.memory, "
    "requests.ephemeral-storage (or hugepages-SIZE)",
    "mount path": "an absolute path such as /data, without ':'",
    "sub path": "a relative path inside the volume, without ':'",
}
_YAML11_BOOLEANS = {"yes", "no", "on", "off", "y", "n"}
_SHA256 = re.compile(r"[0-9a-f]{64}", re.ASCII)
"""A SHA-256 as ``sha256sum`` prints it: the schema's ``jobPackage.source.sha256`` pattern."""


def problems_for(error: ValidationError, doc: SourceDoc) -> Iterator[Problem]:
    """Turn one jsonschema error into one or more located problems.

    Args:
        error: one error of jsonschema's ``iter_errors``; for ``anyOf`` and
            ``oneOf`` its most relevant branch is reported.
        doc: the parsed job file, for the positions of keys and values.

    Yields:
        One problem, or one per unknown key for ``additionalProperties``.
    """
    if error.context:  # anyOf / oneOf: report the most relevant branch
        from jsonschema.exceptions import best_match

        error = best_match(error.context)
    where: JsonPath = tuple(error.absolute_path)
    kind = error.validator
    schema = error.schema if isinstance(error.schema, dict) else {}
    instance = error.instance

    if kind == "additionalProperties" and isinstance(instance, dict):
        allowed = sorted(schema.get("properties", {}))
        for key in instance:
            if key in allowed:
                continue
            child = (*where, key)
            line, col = doc.position(child, key=True)
            hint = suggest(key, allowed, noun="key")
            home = None if hint.startswith("did you") else _nested_home(key, schema)
            if "extendedResources" in allowed and _is_gpu_key(key):
                hint = _gpu_hint(instance[key])
            elif home is not None:
                hint = f"it belongs under {home!r}: {format_json_path((*where, home, key))}"
            message = f"unknown key {key!r}; {hint}"
            yield Problem(doc.path, line, col, message, format_json_path(where))
        return
    if kind == "propertyNames":
        child = (*where, instance)
        line, col = doc.position(child, key=True)
        title = error.schema.get("title", "") if isinstance(error.schema, dict) else ""
        hint = _FORMAT_HINTS.get(title, "")
        message = f"key {short_value(instance)} is not a valid {title or 'key'}" + (
            f": {hint}" if hint else ""
        )
        yield Problem(doc.path, line, col, message, format_json_path(child))
        return

    line, col = doc.position(where, key=kind == "required")
    yield Problem(
        doc.path, line, col, _message(error, schema, instance), format_json_path(where)
    )


def _nested_home(key: str, schema: dict[str, Any]) -> str | None:
    """The property of ``schema`` whose own object has ``key``, or None.

    ``tolerations`` written in ``spec`` belongs under ``placement``
    (``spec.placement.tolerations``): a key one level too high is the usual
    misplacement, and no spelling suggestion finds it.
    """
    for name, sub in sorted(schema.get("properties", {}).items()):
        if isinstance(sub, dict) and isinstance(sub.get("$ref"), str):
            from t2gen.jobfile.schema import defined_keys

            if key in defined_keys(sub["$ref"].rsplit("/", 1)[-1]):
                return str(name)
        elif isinstance(sub, dict) and key in sub.get("properties", {}):
            return str(name)
    return None


def _message(error: ValidationError, schema: dict[str, Any], instance: Any) -> str:
    """Write what is wrong and what would be right, for one error."""
    kind = error.validator
    expected: Any = error.validator_value
    if kind == "required":
        missing = [name for name in expected if name not in instance]
        names = ", ".join(repr(name) for name in missing)
        return f"missing required key {names}"
    if kind == "enum":
        options = [str(option) for option in expected]
        return (
            f"{short_value(instance)} is not one of {', '.join(options)}; "
            + suggest(instance, options, noun="value")
        )
    if kind == "const":
        return f"must be {error.validator_value!r}, not {short_value(instance)}"
    if kind == "type":
        return _type_message(instance, expected)
    if kind == "pattern":
        title = schema.get("title", "")
        if (
            title == "SHA-256"
            and isinstance(instance, str)
            and _SHA256.fullmatch(instance.lower())
        ):
            # sha256sum prints lower case, and the init container compares the two strings
            # (templates/package/place-job-package.sh, wrong())
            return (
                "the SHA-256 is in upper case; write it in lower case, as t2gen package and "
                "sha256sum print it (the init container compares the two as text): "
                f"{instance.lower()!r}"
            )
        hint = _FORMAT_HINTS.get(title)
        if hint:
            return f"{short_value(instance)} is not a valid {title}: expected {hint}"
        return f"{short_value(instance)} does not match {error.validator_value!r}"
    if kind in ("maxLength", "minLength"):
        limit = error.validator_value
        if kind == "maxLength":
            shown = f"{instance[:40]!r}..." if len(instance) > 40 else repr(instance)
            return (
                f"{shown} is {len(instance)} characters long; at most {limit} allowed"
            )
        return (
            "must not be empty"
            if limit == 1
            else f"must be at least {limit} characters long"
        )
    if kind in ("maxItems", "minItems"):
        limit = error.validator_value
        relation = "at most" if kind == "maxItems" else "at least"
        return f"has {len(instance)} items; {relation} {limit} allowed"
    if kind == "maxProperties":
        return f"has {len(instance)} entries; at most {error.validator_value} allowed"
    if kind == "uniqueItems":
        return f"{short_value(instance)} has duplicate items; list each once"
    if kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return _range_message(kind, instance, error.validator_value, schema)
    return error.message


def _range_message(kind: str, instance: Any, limit: Any, schema: dict[str, Any]) -> str:
    """Describe a number outside its range, naming the whole allowed range when known."""
    low = schema.get("minimum")
    high = schema.get("maximum")
    if low is not None and high is not None:
        return f"{instance} is out of range; use {low} to {high}"
    relation = {
        "minimum": f"at least {limit}",
        "maximum": f"at most {limit}",
        "exclusiveMinimum": f"greater than {limit}",
        "exclusiveMaximum": f"less than {limit}",
    }[kind]
    return f"{instance} is too {'small' if 'inimum' in kind else 'large'}; must be {relation}"


def _type_message(instance: Any, expected: str | list[str]) -> str:
    """Explain a type mismatch, with the usual YAML pitfalls spelled out."""
    wanted = [expected] if isinstance(expected, str) else list(expected)
    names = {
        "string": "a string",
        "integer": "an integer",
        "number": "a number",
        "boolean": "true or false",
        "object": "a mapping",
        "array": "a list",
        "null": "null",
    }
    want = " or ".join(names.get(w, w) for w in wanted)
    got = _describe(instance)
    message = f"{short_value(instance)} is {got}; expected {want}"
    if instance is None:  # `count:` with nothing after it, or `count: null`
        message = f"no value (null); expected {want}"
    if (
        "boolean" in wanted
        and isinstance(instance, str)
        and instance.lower() in _YAML11_BOOLEANS
    ):
        message += f" (job files are YAML 1.2, where {instance} is not a boolean)"
    elif (
        "boolean" in wanted
        and isinstance(instance, str)
        and instance.lower() in ("true", "false")
    ):
        message += " (remove the quotes)"
    elif (
        "integer" in wanted
        and isinstance(instance, float)
        and instance.is_integer()
        and abs(instance) < 1e15  # 1e308 "without a decimal point" is 309 digits
    ):
        message += f" (write {int(instance)} without a decimal point)"
    elif (
        ("integer" in wanted or "number" in wanted)
        and isinstance(instance, str)
        and "_" in instance
        and _is_number(instance)
    ):
        message += f" (YAML 1.2 numbers have no underscores: write {instance.replace('_', '')})"
    elif (
        ("integer" in wanted or "number" in wanted)
        and isinstance(instance, str)
        and _is_number(instance)
    ):
        message += " (remove the quotes)"
    elif (
        "string" in wanted
        and isinstance(instance, (bool, int, float))
        and instance is not None
    ):
        message += " (quote it)"
    return message


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _describe(instance: Any) -> str:
    """Name the JSON type of a value, as a reader would."""
    if instance is None:
        return "null"
    if isinstance(instance, bool):
        return "a boolean"
    if isinstance(instance, int):
        return "an integer"
    if isinstance(instance, float):
        return "a number"
    if isinstance(instance, str):
        return "a string"
    if isinstance(instance, list):
        return "a list"
    return "a mapping"


def short_value(value: Any, limit: int = 60) -> str:
    """Show a value as it was written, cut to about ``limit`` characters so huge inputs stay readable.

    Every message that echoes a user's value goes through this, so no line
    grows with the input (a 4,000-digit quantity prints as its first
    ``limit`` characters and its length).

    Args:
        value: any decoded YAML value.
        limit: the most characters of the value to show.

    Returns:
        The value's ``repr`` (JSON for lists and mappings), cut to ``limit``.
    """
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}... ({len(value)} characters)"
    text = (
        json.dumps(value, ensure_ascii=False)
        if isinstance(value, (dict, list))
        else repr(value)
    )
    return text if len(text) <= limit else text[:limit] + "..."


def _is_gpu_key(key: str) -> bool:
    """Whether an unknown resource key asks for GPUs (``gpu``, ``gpus``, ``nvidia.com/gpu``...)."""
    return "gpu" in key.lower()


def _gpu_hint(value: Any) -> str:
    """Point a GPU request at ``extendedResources``, where Kubernetes' device plugins' resources go.

    A GPU is an extended resource named by its device plugin (``nvidia.com/gpu``,
    ``amd.com/gpu``), requested and limited by a whole count:
    https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/.
    """
    count = (
        value
        if isinstance(value, int) and not isinstance(value, bool) and value > 0
        else 1
    )
    return (
        f"a GPU is an extended resource: write extendedResources: {{nvidia.com/gpu: {count}}} "
        "(or your device plugin's resource name, e.g. amd.com/gpu)"
    )


def suggest(word: Any, options: list[str], *, noun: str) -> str:
    """Suggest the closest option to a misspelled word.

    Args:
        word: what the user wrote.
        options: the valid spellings.
        noun: what they are ("key", "value", "operator"), for the sentence.

    Returns:
        ``did you mean 'X'?`` for a close or case-insensitive match, otherwise
        the list of valid options.
    """
    if isinstance(word, str):
        folded = {option.lower(): option for option in options}
        if word.lower() in folded:
            return (
                f"did you mean {folded[word.lower()]!r}? ({noun}s are case-sensitive)"
            )
        import difflib

        close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
        if not close:
            lowered = difflib.get_close_matches(
                word.lower(), list(folded), n=1, cutoff=0.6
            )
            close = [folded[lowered[0]]] if lowered else []
        if close:
            return f"did you mean {close[0]!r}?"
    return f"valid {noun}s: {', '.join(options)}"
