"""Text a reviewer reads as something else: invisible and bidirectional characters, look-alike letters."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.inputs.yaml import JsonPath, SourceDoc
from t2gen.jobfile.rules._base import Rule, as_dict, problem, rule

_INVISIBLE_CATEGORIES = frozenset({"Cf", "Co", "Cn"})
"""Unicode categories a reader cannot see: format characters (bidirectional
controls U+202A-U+202E and U+2066-U+2069, zero-width U+200B-U+200D, marks
U+200E/U+200F, the BOM U+FEFF, the soft hyphen), private use and unassigned.
Line and paragraph separators (U+2028, U+2029) are kept: t2gen writes them
escaped, so a reader sees them (``tests/cases/line-break-escapes``)."""


def invisible_character(text: str) -> tuple[int, str] | None:
    """The first invisible or bidirectional-control character of ``text``, as (index, ``U+XXXX NAME``).

    ASCII text has none (checked first, so the common case costs one call).
    """
    if text.isascii():
        return None
    for index, char in enumerate(text):
        if ord(char) < 0x80:
            continue
        category = unicodedata.category(char)
        if category in _INVISIBLE_CATEGORIES:
            name = unicodedata.name(char, "unnamed")
            return index, f"U+{ord(char):04X} {name}"
    return None


def _strings(value: Any, path: JsonPath) -> Iterator[tuple[JsonPath, str, bool]]:
    """Every string of a document as ``(path, text, is_key)``."""
    stack: list[tuple[JsonPath, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            yield where, item, False
        elif isinstance(item, dict):
            for key, child in item.items():
                if isinstance(key, str):
                    yield (*where, key), key, True
                stack.append(((*where, key), child))
        elif isinstance(item, list):
            stack.extend(((*where, index), child) for index, child in enumerate(item))


@rule("invisible-characters", fields=("(every key and string value)",))
def check_invisible_characters(
    data: dict[str, Any], doc: SourceDoc
) -> Iterator[Problem]:
    """No string holds an invisible or bidirectional-control character.

    A right-to-left override (U+202E), a zero-width space (U+200B), a BOM or a
    no-break space inside ``spec.image``, a name, a label or an annotation
    makes the text a reviewer reads differ from the bytes Kubernetes gets: the
    "Trojan Source" attack on code review (CVE-2021-42574,
    https://trojansource.codes/). Kubernetes itself passes annotation values
    and most strings through unchecked, so t2gen refuses these characters in
    every key and value of a job file: Unicode's format (Cf), private-use
    and unassigned code points (``spec.image`` admits no space at all: the
    schema refuses it).
    """
    source = doc.text
    if isinstance(source, str) and source.isascii() and "\\" not in source:
        # ASCII text with no escape: every key and value is ASCII (the schema's
        # defaults are too), so none holds such a character; no walk needed.
        return
    for path, text, is_key in _strings(data, ()):
        found = invisible_character(text)
        if found is not None:
            index, name = found
            what = "key" if is_key else "value"
            yield problem(
                doc,
                path,
                f"the {what} holds {name} at character {index + 1}, which a reader cannot see "
                "(or which reorders the text shown); remove it",
                key=is_key,
            )


@rule("image-mixed-scripts", fields=("spec.image",))
def check_image_scripts(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``spec.image`` is written in ASCII: a look-alike letter from another script is no image name.

    An image reference (registry, repository, tag) is ASCII by the OCI
    distribution grammar (https://github.com/distribution/reference,
    ``reference.go``); a Cyrillic a (U+0430) where a Latin a is expected reads
    the same in a pull request, but the kubelet parses every image with that
    grammar before it pulls (kubernetes/kubernetes
    ``pkg/kubelet/images/image_manager.go``, ``applyDefaultImageTag``), so
    every pod of the job would wait as ``InvalidImageName``. t2gen refuses
    the job and names the first such letter (the other image-name faults are
    ``image-reference``'s).
    """
    image = as_dict(data.get("spec")).get("image")
    if not isinstance(image, str) or image.isascii():
        return
    for index, char in enumerate(image):
        if ord(char) >= 0x80 and char.isprintable():
            name = unicodedata.name(char, "unnamed")
            yield problem(
                doc,
                ("spec", "image"),
                f"the image reference holds U+{ord(char):04X} {name} at character "
                f"{index + 1}; image references are ASCII (a letter from another script "
                "that looks like a Latin one is no image name: the pods would wait as "
                "InvalidImageName); write the Latin letter",
            )
            return


RULES: tuple[Rule, ...] = (check_invisible_characters, check_image_scripts)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
