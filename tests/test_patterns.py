"""LazyPattern: compiled on first use, and then the compiled pattern's answers."""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import t2gen
from t2gen.patterns import LazyPattern


def test_nothing_is_compiled_before_first_use() -> None:
    pattern = LazyPattern("(unbalanced")  # an error only shows on use
    assert repr(pattern) == "LazyPattern('(unbalanced', 0)"
    with pytest.raises(re.error):
        pattern.search("x")


def test_each_method_answers_as_the_compiled_pattern() -> None:
    lazy = LazyPattern(r"^(a+)(b)?", re.M)
    real = re.compile(r"^(a+)(b)?", re.M)
    text = "aab\nxa\naaa"
    assert lazy.compiled is lazy.compiled  # compiled once
    assert lazy.compiled.pattern == real.pattern
    assert lazy.compiled.flags == real.flags
    for method in ("match", "fullmatch", "search"):
        for pos, endpos in ((0, len(text)), (4, 6), (7, 9)):
            got = getattr(lazy, method)(text, pos, endpos)
            want = getattr(real, method)(text, pos, endpos)
            assert (got and got.span(), got and got.groups()) == (
                want and want.span(),
                want and want.groups(),
            )
    assert [m.span() for m in lazy.finditer(text)] == [
        m.span() for m in real.finditer(text)
    ]
    assert lazy.sub("<\\1>", text) == real.sub("<\\1>", text)
    assert lazy.sub(lambda m: m[0].upper(), text, 1) == real.sub(
        lambda m: m[0].upper(), text, 1
    )


def _module_patterns() -> list[tuple[str, str, LazyPattern]]:
    found = []
    for info in pkgutil.walk_packages(t2gen.__path__, "t2gen."):
        if info.name == "t2gen.__main__" or info.name.startswith(
            "t2gen.render._precompiled"
        ):
            continue  # __main__ runs the CLI; the templates hold no patterns
        module = importlib.import_module(info.name)
        found += [
            (info.name, name, value)
            for name, value in vars(module).items()
            if isinstance(value, LazyPattern)
        ]
    return found


def test_every_module_level_pattern_compiles() -> None:
    # A typo in a pattern would otherwise only show when rare input reaches it.
    patterns = _module_patterns()
    assert len(patterns) >= 20
    for module, name, pattern in patterns:
        assert isinstance(pattern.compiled, re.Pattern), f"{module}.{name}"


@given(st.data())
def test_yaml12_numbers_use_only_the_prefiltered_characters(
    data: st.DataObject,
) -> None:
    # plainscalars.scalar skips its number patterns for a scalar holding any
    # character outside _NUMBER_CHARACTERS: no scalar they match may hold one.
    from t2gen.jobfile.yaml import plainscalars

    pattern = data.draw(st.sampled_from([plainscalars._FLOAT_12, plainscalars._INT_12]))
    text = data.draw(st.from_regex(pattern.compiled))
    assume(not text.endswith("\n"))  # `$` also matches before a final newline
    assert plainscalars._NUMBER_CHARACTERS.issuperset(text), text
