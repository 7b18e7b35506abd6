"""YAML 1.1 line breaks (U+0085, U+2028, U+2029) that the fast reader can read as the full reader does.

libyaml (YAML 1.1) starts a new line at each; ruamel.yaml (YAML 1.2) does not, and
reads one between two ordinary characters of a plain or quoted scalar as a
character of the value (U+0085 folding into a space). :class:`LineBreakMasks`
lets :mod:`t2gen.jobfile.fastload` parse such a file with libyaml and still
give the full reader's data, or give up.
"""

from __future__ import annotations

import bisect
import re

import yaml

from t2gen.jobfile.plainscalars import GiveUp

__all__ = ["YAML11_BREAKS", "LineBreakMasks"]


# YAML 1.1 (libyaml) breaks lines at these; YAML 1.2 (ruamel.yaml) counts no line
# there, but its scanner still ends a scalar's line at them (see LineBreakMasks).
YAML11_BREAKS = re.compile("[\x85\u2028\u2029]")
# What a YAML 1.1 line break must sit between for the full reader to read it as
# part of a flow scalar: characters that are no space, break, indicator, escape or dot.
_BREAK_NEIGHBOUR = re.compile(
    "[^\\s\x85\u2028\u2029\ufeff\\-?:,\\[\\]{}#&*!|>'\"%@`\\\\.]"
)
# What the full reader makes of each, between two such characters in a plain or
# quoted scalar: U+0085 folds like a line feed, into a space; the others stay.
_BREAK_VALUE = {"\x85": " ", "\u2028": "\u2028", "\u2029": "\u2029"}


class LineBreakMasks:
    """YAML 1.1 line breaks in a flow scalar, each stood in for by a private-use character.

    libyaml (YAML 1.1) starts a new line at U+0085, U+2028 and U+2029; ruamel.yaml
    (YAML 1.2) does not count a line there, and reads one between two ordinary
    characters of a plain or quoted scalar as the character itself (U+0085 as
    a space). Where each sits between two ordinary characters, this reader
    parses the text with a stand-in character that libyaml reads as an
    ordinary one, puts the full reader's reading back into each scalar, and
    gives up unless every stand-in it passed was in such a scalar (not in a
    key, a comment, a tag or a block scalar).
    """

    def __init__(self, text: str) -> None:
        self.offsets: list[int] = []
        self.stand_ins: dict[str, str] = {}
        self.restore: dict[int, str] = {}
        self.restored = 0
        free = (chr(code) for code in range(0xE000, 0xF900) if chr(code) not in text)
        for match in YAML11_BREAKS.finditer(text):
            start = match.start()
            if not (
                0 < start < len(text) - 1
                and _BREAK_NEIGHBOUR.match(text, start - 1)
                and _BREAK_NEIGHBOUR.match(text, start + 1)
            ):
                raise GiveUp  # next to a space, a break or an indicator: left to the full reader
            self.offsets.append(start)
            if match[0] not in self.stand_ins:
                stand_in = next(free, None)
                if (
                    stand_in is None
                ):  # pragma: no cover - 6,400 private-use characters in a job file
                    raise GiveUp
                self.stand_ins[match[0]] = stand_in
                self.restore[ord(stand_in)] = _BREAK_VALUE[match[0]]
        self.pattern = re.compile("[" + "".join(self.stand_ins.values()) + "]")

    def mask(self, text: str) -> str:
        """The text with each break replaced by its stand-in (one character for one)."""
        return text.translate({ord(k): v for k, v in self.stand_ins.items()})

    def unmask(self, event: yaml.ScalarEvent, is_key: bool) -> yaml.ScalarEvent:
        """The scalar as the full reader reads it; GiveUp where that is not certain."""
        if event.tag is not None and self.pattern.search(event.tag):
            raise GiveUp
        count = len(self.pattern.findall(event.value))
        if not count:
            return event
        if is_key or event.style not in (None, "", "'", '"'):
            raise GiveUp
        self.restored += count
        return yaml.ScalarEvent(
            event.anchor,
            event.tag,
            event.implicit,
            event.value.translate(self.restore),
            event.start_mark,
            event.end_mark,
            event.style,
        )

    def read_before(self, index: int) -> bool:
        """Whether every break before ``index`` (0-based) was in a scalar read so far."""
        return self.restored == bisect.bisect_left(self.offsets, index)

    def check_before(self, index: int) -> None:
        """Give up unless every break before ``index`` was in a scalar read so far."""
        if not self.read_before(index):
            raise GiveUp
