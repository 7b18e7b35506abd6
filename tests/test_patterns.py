"""Module-level regular expressions: each compiles, and the number prefilter holds.

t2gen keeps a pattern as a module-level string and calls ``re.fullmatch(PATTERN,
text)`` (and ``match``, ``search``...), so ``re`` compiles it on first use and
keeps it in its cache; a typo would then only show when rare input reaches it.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

from hypothesis import assume, given
from hypothesis import strategies as st

import t2gen

_FUNCTIONS = {"match", "fullmatch", "search", "finditer", "findall", "sub", "split"}
# A module whose text holds no `re.<function>` (spaces allowed around the dot) has no
# call for the syntax tree to find: most are not parsed (parsing and walking every
# module of t2gen, the 190 kB generated job schema among them, cost 1.2 s of CPU).
_CALL_TEXT = re.compile(rf"\bre\s*\.\s*(?:{'|'.join(sorted(_FUNCTIONS))})\b")


def _module_patterns() -> list[tuple[str, str, object]]:
    """Every module-level name passed as the pattern of a ``re`` function, with its value."""
    found = []
    for info in pkgutil.walk_packages(t2gen.__path__, "t2gen."):
        if info.name == "t2gen.__main__" or info.name.startswith(
            ("t2gen._generated.templates", "t2gen._generated.kubeschema")
        ):
            continue  # __main__ runs the CLI; generated code compiles its own
        module = importlib.import_module(info.name)
        if module.__file__ is None:
            continue
        source = Path(module.__file__).read_text(encoding="utf-8")
        if _CALL_TEXT.search(source) is None:
            continue
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re"
                and node.func.attr in _FUNCTIONS
                and node.args
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id in vars(module)
            ):
                name = node.args[0].id
                found.append((info.name, name, vars(module)[name]))
    return found


def test_every_module_level_pattern_compiles() -> None:
    patterns = _module_patterns()
    assert len(patterns) >= 20
    for module, name, pattern in patterns:
        assert isinstance(pattern, str), f"{module}.{name}"
        assert isinstance(re.compile(pattern), re.Pattern), f"{module}.{name}"


@given(st.data())
def test_yaml12_numbers_use_only_the_prefiltered_characters(
    data: st.DataObject,
) -> None:
    # plainscalars.scalar skips its number patterns for a scalar holding any
    # character outside _NUMBER_CHARACTERS: no scalar they match may hold one.
    from t2gen.inputs.yaml import plainscalars

    pattern = data.draw(st.sampled_from([plainscalars._FLOAT_12, plainscalars._INT_12]))
    text = data.draw(st.from_regex(re.compile(pattern)))
    assume(not text.endswith("\n"))  # `$` also matches before a final newline
    assert plainscalars._NUMBER_CHARACTERS.issuperset(text), text
