"""The gang-mechanism registry and the Protocol every registered mechanism implements.

Each test runs for every module of :data:`t2gen.gangs.REGISTRY`, so a new
mechanism is checked the moment its registry line exists: its names match the
job schema, it renders group objects that it owns, in its install order, that
its pods join, and its rules and checks are registered.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from t2gen.checks import ALL_CHECKS, CHECKS_BY_KIND
from t2gen.errors import SchemaError
from t2gen.gangs import GROUP_KINDS, REGISTRY, group_owner, merge_install_orders
from t2gen.gangs.base import Gang
from t2gen.jobfile.rules import REGISTRY as RULES
from t2gen.kube.order import install_order
from t2gen.kube.versions import NEWEST_KUBE_VERSION, OLDEST_KUBE_VERSION
from t2gen.pipeline.job import generate
from t2gen.plan.templates import min_members, workload_templates
from tests.conftest import ROOT
from tests.helpers import job_text

SCHEMA = json.loads(
    (ROOT / "schemas" / "twister2job.schema.json").read_text(encoding="utf-8")
)
SCHEDULING = SCHEMA["properties"]["spec"]["properties"]["scheduling"]["properties"]
VERSIONS = [
    f"{NEWEST_KUBE_VERSION[0]}.{minor}"
    for minor in range(OLDEST_KUBE_VERSION[1], NEWEST_KUBE_VERSION[1] + 1)
]
GANGS = sorted(REGISTRY)


def test_the_schema_enum_is_the_registry_in_order() -> None:
    assert SCHEDULING["gang"]["enum"] == list(REGISTRY)


@pytest.mark.parametrize("name", GANGS)
def test_module_implements_every_member_of_the_protocol(name: str) -> None:
    gang = REGISTRY[name]
    assert name == gang.NAME
    for attribute in Gang.__annotations__:
        assert hasattr(gang, attribute), f"{name} lacks {attribute}"
    for method, function in vars(Gang).items():
        if inspect.isfunction(function) and not method.startswith("_"):
            implemented = getattr(gang, method)
            wanted = list(inspect.signature(function).parameters)[1:]  # without self
            assert list(inspect.signature(implemented).parameters) == wanted, method
            assert inspect.getdoc(implemented), f"{name}.{method} has no docstring"
    assert "Source" in (inspect.getdoc(gang) or ""), "the module cites its sources"


@pytest.mark.parametrize("name", GANGS)
def test_settings_are_schema_fields(name: str) -> None:
    gang = REGISTRY[name]
    assert set(SCHEDULING) >= gang.SETTINGS
    assert set(gang.REQUIRED_SETTINGS) <= gang.SETTINGS


@pytest.mark.parametrize("name", GANGS)
def test_rules_and_checks_are_registered(name: str) -> None:
    gang = REGISTRY[name]
    for rule in gang.RULES:
        assert (
            RULES[rule.id].title
            == (inspect.getdoc(rule.check) or "").partition("\n")[0]
        )
    check_ids = {check.id for check in ALL_CHECKS}
    for group_check in gang.GROUP_CHECKS:
        assert group_check.id in check_ids
        assert inspect.getdoc(group_check.run)
    for workload_check in gang.WORKLOAD_CHECKS:
        assert workload_check.id in check_ids
        assert inspect.getdoc(workload_check.run)
    for kind in gang.INSTALL_ORDER:
        assert [c.id for c in CHECKS_BY_KIND[kind]][:2] == [
            "group-minimum",
            "group-members",
        ]


def test_group_kinds_keep_every_mechanisms_order_before_the_pods() -> None:
    order = install_order(GROUP_KINDS)
    for gang in REGISTRY.values():
        ranks = [order.index(kind) for kind in gang.INSTALL_ORDER]
        assert ranks == sorted(ranks), gang.NAME
        assert all(rank < order.index("StatefulSet") for rank in ranks)
        assert all(rank > order.index("Service") for rank in ranks)
    with pytest.raises(ValueError, match="both ways"):
        merge_install_orders([("A", "B"), ("B", "A")])
    assert merge_install_orders([("B",), ("A", "B"), ("C",)]) == ("A", "B", "C")


def _render(
    tmp_path: Path, name: str, version: str, extra: str = ""
) -> list[dict[str, Any]]:
    gang = REGISTRY[name]
    settings = (
        extra
        + "".join(  # a DNS-1123 name: what every required setting so far takes
            f"  {setting}: t2gen-test\n" for setting in sorted(gang.REQUIRED_SETTINGS)
        )
    )
    path = tmp_path / f"{name}-{version}.yaml"
    path.write_text(
        job_text(
            "workers:\n  - {name: a, count: 4, perPod: 2}\n  - {name: b, count: 3}\n"
            f"scheduling:\n  gang: {name}\n{settings}"
        ),
        encoding="utf-8",
    )
    return [document.obj for document in generate([str(path)], kube_version=version)]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", GANGS)
def test_rendered_group_is_owned_ordered_and_joined(
    tmp_path: Path, name: str, version: str
) -> None:
    gang = REGISTRY[name]
    try:
        objects = _render(tmp_path, name, version)
    except (
        SchemaError
    ) as error:  # a mechanism the version lacks: one of its own rules says so
        (problem,) = error.problems
        assert problem.json_path == "spec.scheduling.gang"
        with pytest.raises(ValueError, match="no"):
            gang.group_objects(None, tuple(map(int, version.split("."))), {})  # type: ignore[arg-type]
        return
    groups = [o for o in objects if o["kind"] in GROUP_KINDS]
    templates = [o["spec"]["template"] for o in objects if o["kind"] == "StatefulSet"]
    assert len(templates) == 3  # the job master and two worker groups
    kinds = [group["kind"] for group in groups]
    assert kinds == [k for k in gang.INSTALL_ORDER if k in kinds]  # in install order
    assert all(group["metadata"]["labels"]["t2-job"] == "job" for group in groups)
    assert all(group_owner(group) in (gang, None) for group in groups)
    owned = [group for group in groups if gang.owns(group)]
    assert bool(owned) == bool(
        groups
    )  # a group is what the pods join (1.36: not the Workload)
    for group in owned:
        path, minimum = gang.group_minimum(group)
        assert minimum == 2 + 3 + 1, path  # every pod of the job
        for template in templates:
            references = gang.template_references(
                template["metadata"], template["spec"]
            )
            assert gang.group_reference(group) in references
    plan_names = {gang.plan_group(t["metadata"], t["spec"]) for t in templates}
    assert len(plan_names) == 1 and None not in plan_names
    for group in owned:
        assert gang.plan_minimum(group) == (plan_names.pop(), 6)
    if gang.DEFAULT_SCHEDULER:
        assert {t["spec"]["schedulerName"] for t in templates} == {
            gang.DEFAULT_SCHEDULER
        }
    else:
        assert all("schedulerName" not in t["spec"] for t in templates)


@pytest.mark.parametrize("version", VERSIONS[-3:])
@pytest.mark.parametrize(
    "name", [name for name in GANGS if "minMember" in REGISTRY[name].SETTINGS]
)
def test_plan_reads_the_minimum_the_mechanism_renders(
    tmp_path: Path, name: str, version: str
) -> None:
    objects = _render(tmp_path, name, version, extra="  minMember: 3\n")
    templates = [o["spec"]["template"] for o in objects if o["kind"] == "StatefulSet"]
    gangs = {t.gang for t in workload_templates(objects)}
    assert len(gangs) == 1 and None not in gangs
    assert min_members(objects) == {gangs.pop(): 3}, templates[0]["spec"]
