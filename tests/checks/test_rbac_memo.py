"""The remembered verdict of a Role rule (``rbac._rule_excess``) is the rule's own, whatever came before.

Every rule of a small space (groups, resources, verbs of strings and of look-alike
values: ``True``, ``1``, ``1.0``; with and without ``resourceNames``) is judged
for worker and job-master Roles, twice, in two orders; each answer must be what
:func:`t2gen.checks.rbac._excess` says of that rule alone.
"""

from __future__ import annotations

import itertools
from typing import Any

from t2gen.checks import rbac

VALUES: tuple[Any, ...] = (
    "",
    "apps",
    "*",
    "pods",
    "configmaps",
    "secrets",
    "get",
    "patch",
)
ODD: tuple[Any, ...] = (True, 1, 1.0, None, ["x"])
PAIRS = [
    (rbac._WORKER_READS, rbac._WORKER_WRITES),
    (None, rbac._JOB_MASTER_WRITES),
]


def _rules() -> list[dict[str, Any]]:
    rules = []
    for group, resource, verb in itertools.product(VALUES[:3], VALUES[3:6], VALUES[6:]):
        for names in (None, [], ["job"]):
            rule: dict[str, Any] = {
                "apiGroups": [group],
                "resources": [resource, "configmaps"],
                "verbs": [verb, "list"],
            }
            if names is not None:
                rule["resourceNames"] = names
            rules.append(rule)
    for odd in ODD:
        for field in ("apiGroups", "resources", "verbs"):
            rules.append(
                {
                    "apiGroups": [""],
                    "resources": ["pods"],
                    "verbs": ["get"],
                    field: [odd],
                }
            )
            rules.append(
                {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"], field: odd}
            )
    return rules


def test_each_rule_gets_its_own_verdict_warm_or_cold() -> None:
    rules = _rules()
    for order in (rules, rules[::-1], rules):
        for reads, writes in PAIRS:
            for rule in order:
                expected = tuple(rbac._excess(rule, reads, writes))
                assert rbac._rule_excess(rule, reads, writes) == expected, rule
