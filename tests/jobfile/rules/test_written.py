"""The rules left out of a schema-valid job file (``UNWRITTEN_RULES``) would have found nothing.

:meth:`t2gen.jobfile.rules._written.RulePlan.rules_for` skips a rule none of
whose declared fields the file writes. Two things make that safe, and both are
checked here on every job file the project keeps (examples, the case tree,
the golden files) and on files generated from the schema:

- a rule left out finds nothing when run anyway;
- a rule's declared fields are what makes it speak: every file it speaks on,
  with those fields taken out (as far as the schema lets), is a file it is
  left out of and finds nothing in; a rule that spoke from a field it does not
  declare is caught by the first case where that field matters.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from t2gen.errors import InputError
from t2gen.inputs.jobfile import read_job
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules import REGISTRY, RuleOptions, _plan, run_rules
from t2gen.jobfile.rules._written import REMEMBERED, FieldTree, RulePlan
from t2gen.jobfile.schema import defaults_and_finite, schema_findings, schema_problems
from tests.conftest import EXAMPLES, GOLDEN, INPUT_CASES, ROOT, SCHEMA_JOBS

MINIMAL = {
    "apiVersion": "t2gen/v1",
    "kind": "Twister2Job",
    "metadata": {"name": "job"},
    "spec": {"image": "twister2/twister2-k8s:0.8.0", "workers": [{"count": 1}]},
}
"""The least job file the schema accepts."""

SPEAKING: dict[str, dict[str, Any]] = {
    "env-from-source": {
        "envFrom": [{"configMapRef": {"name": "a"}, "secretRef": {"name": "b"}}]
    },
    "env-value-or-value-from": {
        "env": [
            {
                "name": "A",
                "value": "1",
                "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}},
            }
        ]
    },
    "java-class-name": {"workerClass": "edu.iu.class.Worker"},
    "lifecycle-argo-cd-ttl": {
        "lifecycle": {
            "supervise": True,
            "argoCDHooks": True,
            "ttlSecondsAfterFinished": 60,
        }
    },
    "lifecycle-backoff-limit": {
        "lifecycle": {"supervise": True, "backoffLimit": 100, "maxWorkerRestarts": 3}
    },
    "lifecycle-job-master": {
        "lifecycle": {"supervise": True},
        "rbac": {"create": False},
    },
    "lifecycle-needs-supervise": {"lifecycle": {"backoffLimit": 1}},
    "lifecycle-suspend-gang": {
        "lifecycle": {"supervise": True, "suspend": True},
        "scheduling": {"gang": "volcano"},
    },
    "logs-settings-unused": {"logs": {"size": 0, "accessMode": "ReadWriteOnce"}},
    "manifest-size": {
        "env": [{"name": f"V{i}", "value": ""} for i in range(1000)],
        "workers": [{"count": 64, "perPod": 64}] * 2,
    },
    "network-policy-egress-open": {
        "network": {"policy": {"enabled": True, "egress": [{}]}}
    },
    "network-policy-package-port": {
        "network": {"policy": {"enabled": True}},
        "jobPackage": {"uri": "ftp://host/p.tar.gz"},
    },
    "network-policy-zookeeper-ports": {
        "network": {"policy": {"enabled": True}},
        "zooKeeper": {"serverAddresses": "zk:99999"},
    },
    "package-uploader-unused": {
        "jobPackage": {"uploader": "job-namespace", "uri": "http://h/p.tar.gz"}
    },
}
"""A ``spec`` (over :data:`MINIMAL`'s) that makes each rule speak which no kept
job file the schema accepts does: the corpus of the last test, completed."""


def _speaking(rule_id: str) -> SourceDoc:
    data = copy.deepcopy(MINIMAL)
    data["spec"].update(copy.deepcopy(SPEAKING[rule_id]))
    return SourceDoc(f"<{rule_id}>", data, {}, {}, "")


def _valid(data: Any) -> bool:
    """Whether the schema accepts ``data``, by jsonschema: the same verdict with every
    ``T2GEN_NO_*`` switch (the generated check answers False under ``T2GEN_NO_SCHEMA_CODE``)."""
    return not schema_problems(SourceDoc("<test>", data, {}, {}, ""))


OPTIONS = (RuleOptions(), RuleOptions(package=True), RuleOptions(kube_version=(1, 25)))


def _corpus() -> Iterator[Path]:
    yield from EXAMPLES
    for case in INPUT_CASES:
        yield from (p for p in case.iterdir() if p.stem == "config")
    for folder in sorted(GOLDEN.iterdir()):
        yield from sorted(folder.glob("*.yaml"))


def _valid_docs() -> list[SourceDoc]:
    """Every corpus file the schema accepts, and every other one without the values it refused."""
    docs = []
    for path in _corpus():
        try:
            doc = read_job(str(path))
        except InputError:
            continue
        if not isinstance(doc.data, dict):
            continue
        if _valid(doc.data):
            docs.append(doc)
            continue
        kept = copy.deepcopy(doc.data)
        for refused in sorted(schema_findings(doc)[1], reverse=True):
            _remove(kept, refused)
        if _valid(kept):
            docs.append(
                SourceDoc(doc.path, kept, doc.positions, doc.key_positions, doc.text)
            )
    return docs


def _remove(data: Any, path: tuple[str | int, ...]) -> None:
    """Remove the value at ``path`` (a JSON path) from ``data``, if it is there."""
    for step in path[:-1]:
        try:
            data = data[step]
        except (KeyError, IndexError, TypeError):
            return
    if path and isinstance(data, dict):
        data.pop(path[-1], None)
    elif (
        path
        and isinstance(data, list)
        and isinstance(path[-1], int)
        and path[-1] < len(data)
    ):
        del data[path[-1]]


DOCS = _valid_docs() + [_speaking(rule_id) for rule_id in SPEAKING]


def _findings(
    rule_id: str, data: Any, doc: SourceDoc, options: RuleOptions
) -> list[str]:
    return sorted(str(f) for f in REGISTRY[rule_id].run(data, doc, options))


@pytest.mark.parametrize("rule_id", SPEAKING)
def test_each_made_up_file_is_valid_and_its_rule_speaks(rule_id: str) -> None:
    doc = _speaking(rule_id)
    assert _valid(doc.data)
    data, _ = defaults_and_finite(doc.data)
    assert _findings(rule_id, data, doc, OPTIONS[0]) != []


def test_the_corpus_is_large_and_the_plan_leaves_rules_out() -> None:
    assert len(DOCS) > 150
    plan = _plan()
    left_out = [len(plan.rules) - len(plan.rules_for(doc.data)) for doc in DOCS]
    assert min(left_out) >= 0 and sum(left_out) > 20 * len(DOCS)
    # a rule that reads a command-line option, or every value, runs always
    wordcount = plan.rules_for(read_job(str(ROOT / "examples" / "wordcount.yaml")).data)
    chosen = set(wordcount)
    assert {
        "invisible-characters",
        "package-file-size",
        "workload-api-version",
    } <= chosen
    assert "env-reserved" not in chosen and "affinity-contradiction" not in chosen


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: Path(d.path).parent.name or d.path)
def test_a_rule_left_out_finds_nothing(doc: SourceDoc) -> None:
    data, _ = defaults_and_finite(doc.data)
    chosen = set(_plan().rules_for(doc.data))
    for options in OPTIONS:
        for rule_id in REGISTRY.keys() - chosen:
            assert _findings(rule_id, data, doc, options) == [], rule_id
        plain = run_rules(data, doc, options)
        assert run_rules(data, doc, options, schema_valid=True) == plain


def _stripped(written: Any, node: FieldTree, mask: int, root: Any) -> None:
    """Remove from ``written`` every field of ``mask`` the schema lets go (one at a time), in place.

    ``root``: the whole document, which must stay valid; a list of items the
    mask declares is emptied.
    """
    if isinstance(written, dict):
        for key in list(written):
            child = node.children.get(key)
            if child is None or not child.below & mask:
                continue
            if child.bit & mask:
                value = written.pop(key)
                if not _valid(root):
                    written[key] = value
                    _stripped(value, child, mask, root)
            else:
                _stripped(written[key], child, mask, root)
    elif isinstance(written, list):
        child = node.children.get("[]")
        if child is None or not child.below & mask:
            return
        if child.bit & mask:  # the items themselves
            items = written[:]
            written.clear()
            if _valid(root):
                return
            written.extend(items)
        for item in written:
            _stripped(item, child, mask, root)
        for item in [i for i in written if child.written(i) & mask]:
            at = written.index(item)
            del written[at]  # an item still writing the rule's fields (a required name)
            if not _valid(root):
                written.insert(at, item)


def test_a_rule_whose_fields_are_taken_out_of_a_file_it_speaks_on_is_silent() -> None:
    """The declared fields are what makes a rule speak, on every case where it does.

    Each file a rule finds something in, with that rule's fields taken out
    (those the schema lets go) and everything else left, is a file the plan
    leaves the rule out of; the rule must then find nothing. A rule that spoke
    from a field it does not declare would speak still.
    """
    plan = _plan()
    tested: set[str] = set()
    for doc in DOCS:
        data, _ = defaults_and_finite(doc.data)
        for listed, mask in zip(plan.rules, plan.masks, strict=True):
            if mask < 0 or not any(True for _ in listed.run(data, doc, OPTIONS[0])):
                continue
            stripped = copy.deepcopy(doc.data)
            _stripped(stripped, plan.root, mask, stripped)
            if listed.id in plan.rules_for(stripped):
                continue  # the schema needs a field the rule reads
            tested.add(listed.id)
            bare = SourceDoc(doc.path, stripped, {}, {}, doc.text)
            found = list(listed.run(defaults_and_finite(stripped)[0], bare, OPTIONS[0]))
            assert found == [], (listed.id, doc.path)
    # the corpus makes every rule the plan may leave out speak
    # (less those that read a field every job writes, which the plan never leaves out)
    every_job = plan.root.written(MINIMAL)
    skippable = {
        r.id
        for r, m in zip(plan.rules, plan.masks, strict=True)
        if m >= 0 and not m & every_job
    }
    assert skippable - tested == set()


# Repeats at length, on generated files, what the corpus tests above show; generating
# schema-valid job files costs some 20 s here, so it runs in `make fuzz`.
@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(job=SCHEMA_JOBS)
def test_generated_job_files_lose_no_finding(job: dict[str, Any]) -> None:
    if not _valid(job):
        return
    doc = SourceDoc("job.yaml", job, {}, {}, "")
    data, _ = defaults_and_finite(job)
    for options in OPTIONS[:2]:
        plain = run_rules(data, doc, options)
        assert run_rules(data, doc, options, schema_valid=True) == plain


def test_the_plan_reads_paths_and_remembers_a_bounded_number_of_answers() -> None:
    plan = RulePlan(REGISTRY.values())
    env = plan.root.children["spec"].children["env"]
    assert env.children["[]"].children["name"].bit & env.below
    # a scalar where the tree goes deeper writes everything below it
    spec = plan.root.children["spec"]
    placement = spec.children["placement"]
    assert spec.written({"placement": None}) & placement.below == placement.below
    assert plan.root.written({"spec": {"env": []}}) & env.children["[]"].bit == 0
    keys = sorted(plan.root.children["spec"].children)
    pairs = [(a, b) for a in keys for b in keys if a < b][: 2 * REMEMBERED]
    assert len(pairs) == 2 * REMEMBERED
    for a, b in pairs:
        chosen = plan.rules_for({"spec": {a: None, b: None}})
        assert len(plan._chosen) <= REMEMBERED
        assert plan.rules_for({"spec": {a: None, b: None}}) is chosen
