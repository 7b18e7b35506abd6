"""Every fast path of t2gen, and the one switch that turns each off.

A fast path is a second way through one stage that gives the same result as
the plain way in less time. Each lives in the module of the stage it speeds
up, asks :func:`enabled` here whether it may run, and is turned off by setting
``T2GEN_NO_<NAME>`` to any non-empty value (as pre-commit's
``PRE_COMMIT_NO_CONCURRENCY``). With every switch set t2gen takes only the
plain paths; ``tests/suites/test_golden.py`` and ``tests/suites/test_cases.py`` run once
each way and must give the same bytes, exit codes and files. What each fast
path buys is measured in ``make bench`` and listed in ``docs/performance.md``.

The switches are read on every call, never cached at import, so a test (or a
user chasing a suspected fast-path bug) can set one for part of a process.
"""

from __future__ import annotations

import os

__all__ = ["FAST_PATHS", "enabled", "switch_variable"]

FAST_PATHS: dict[str, str] = {
    "FAST_START": (
        "t2gen/cli/launch.py: `render|validate|check FILE...` (and `render --validate`) "
        "and `package JOB --jar FILE` (with at most `--output-file FILE` and `--conf DIR`) "
        "run the command without importing Typer or building the command tree. "
        "Must preserve: Typer's stdout, stderr, exit code and files for every such line; "
        "any other option, typo or missing argument goes to Typer."
    ),
    "SCHEMA_CODE": (
        "t2gen/jobfile/schema.py: a job file is checked by the validator generated "
        "into t2gen/_generated/jobschema.py instead of jsonschema. Must preserve: "
        "valid exactly when jsonschema finds no problem; an invalid file is always "
        "explained by jsonschema."
    ),
    "UNWRITTEN_RULES": (
        "t2gen/jobfile/rules/_written.py: in a job file the schema accepts, a rule "
        "none of whose declared fields the file writes is not run (those fields "
        "hold the schema's constant defaults, where the rule finds nothing). "
        "Must preserve: every problem and warning, their order and the exit code; "
        "a rule that reads an option or every value runs always."
    ),
    "FAST_YAML": (
        "t2gen/inputs/yaml/fastload.py: a job file is read from PyYAML's C parser "
        "events instead of ruamel.yaml. Must preserve: the data, every node's and "
        "key's line:col, and every refusal (tags, anchors, duplicate keys, long "
        "integers, YAML 1.1 line breaks) with the full reader's message; anything "
        "it is unsure of goes to ruamel.yaml."
    ),
    "SKELETON": (
        "t2gen/render/skeleton.py: a built-in template's output is built from the "
        "values its `{{ }}` wrote into a structure parsed once, instead of parsing "
        "the rendered text; with the built-in set alone, a job's templates share one "
        "merge of the Jinja2 variables, one template lookup and one unmetered block. "
        "Must preserve: the objects, equal in type, value and "
        "key order to parsing the text as kubectl does; overlays always parse."
    ),
    "PRECOMPILED": (
        "t2gen/render/precompiled.py: the built-in templates are imported from "
        "t2gen/_generated/templates/ (made by `make generate`) instead of compiled "
        "by Jinja2 at run time. Must preserve: the same code as compiling the "
        "source (used only while its SHA-256 and the Jinja2 settings match)."
    ),
    "KUBE_SCHEMA_CODE": (
        "t2gen/checks/openapi.py: objects of the kinds t2gen renders are checked "
        "against the default Kubernetes version by validators generated into "
        "t2gen/_generated/kubeschema/ (made by `make generate`) instead of jsonschema. "
        "Must preserve: an object passes only if jsonschema finds no error; one it "
        "rejects is checked again by jsonschema, which writes the messages."
    ),
    "TYPED_READER": (
        "t2gen/plan/typedread.py: `plan --nodes/--pods` decode the JSON lists with "
        "msgspec into records of only the fields the filters read, from the mapped "
        "file. Must preserve: the nodes and pods the plain reader (json, then YAML) "
        "makes, and its every message: anything not a well-formed kubectl list "
        "(YAML, other field types, deep nesting, long numbers, bad UTF-8, a "
        "malformed node or pod) goes to the plain reader; a list over 2 MiB is "
        "read item by item, each item the typed records refuse by the plain "
        "reader alone (with the switch, every item; the bounds stay)."
    ),
    "FUSED_CHECKS": (
        "t2gen/checks/fused.py: a pod's containers, and each object's metadata, are "
        "walked once to judge whether any container check (pods.CONTAINER_CHECKS), or "
        "any generic check (checks.GENERIC_CHECKS), would find anything; when none "
        "would, they do not run. Must preserve: every finding and its order: anything "
        "it is not sure of (a value not a plain string, int, list or map, a quantity, "
        "name or label with a finding, an extended resource, a repeat, a missing "
        "volume) is judged by the checks themselves."
    ),
    "PROCESSES": (
        "t2gen/pipeline/batch.py: many job files are rendered over the usable CPUs in "
        "forked processes. Must preserve: the output, warnings, errors and exit "
        "code of one process, byte for byte; any failure is redone in one process."
    ),
}
"""Switch name -> where the fast path lives, what it does, and what it must preserve."""


def switch_variable(name: str) -> str:
    """The environment variable that turns fast path ``name`` off: ``T2GEN_NO_<name>``."""
    return f"T2GEN_NO_{name}"


def enabled(name: str) -> bool:
    """Whether fast path ``name`` (a key of :data:`FAST_PATHS`) may run now.

    Args:
        name: the fast path, e.g. ``"SKELETON"``.

    Returns:
        False when ``T2GEN_NO_<name>`` is set to a non-empty value.

    Raises:
        KeyError: ``name`` is not a fast path (a typo would silently never switch).
    """
    if name not in FAST_PATHS:
        raise KeyError(name)
    return not os.environ.get(switch_variable(name))
