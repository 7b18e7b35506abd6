"""docs/untrusted-input.md's table of inputs maps one-to-one onto the modules of t2gen/inputs/."""

from __future__ import annotations

import re

from tests.conftest import ROOT


def test_the_table_of_inputs_names_each_module_of_the_package_once() -> None:
    text = (ROOT / "docs/untrusted-input.md").read_text(encoding="utf-8")
    section = text.split("## One module per input", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")][1:]
    named = [re.findall(r"`([\w/]+(?:\.py)?)`", row.split("|")[2])[0] for row in rows]
    package = ROOT / "t2gen/inputs"
    present = sorted(
        [p.name for p in package.glob("*.py") if p.name != "__init__.py"]
        + [f"{p.parent.name}/" for p in package.glob("*/__init__.py")]
    )
    assert sorted(named) == present
    assert len(named) == len(set(named))
