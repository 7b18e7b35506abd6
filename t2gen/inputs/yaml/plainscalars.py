"""Plain YAML scalars read exactly as t2gen's full reader (ruamel.yaml, YAML 1.2) reads them.

:mod:`t2gen.inputs.yaml.fastload` builds a job file from PyYAML's C parser events;
this module gives each plain scalar the value ruamel.yaml's YAML 1.2 implicit
resolvers (ruamel/yaml/resolver.py) and t2gen's own integer rules
(:mod:`t2gen.inputs.yaml.yaml12`) give it, or raises :class:`GiveUp` where it
cannot be sure, so that the caller falls back to the full reader.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

import yaml

from t2gen.inputs.yaml.source import MAX_INT_DIGITS
from t2gen.inputs.yaml.yaml12 import key_tag_message, tag_mismatch_message

__all__ = [
    "CORE_TAG",
    "LOCAL_TAG",
    "MAP_TAG",
    "SEQ_TAG",
    "SET_TAG",
    "GiveUp",
    "Mismatch",
    "NotAllowed",
    "TooLong",
    "is_key_tag",
    "scalar",
    "short_tag",
    "tag_message",
    "tagged_key_message",
    "tagged_scalar",
]

CORE_TAG = "tag:yaml.org,2002:"
"""The prefix of YAML's own tags: ``!!str`` is ``tag:yaml.org,2002:str``."""


# ruamel.yaml's YAML 1.2 implicit resolvers (ruamel/yaml/resolver.py), for
# plain scalars: a scalar they match is not a string there.
_BOOL_12 = frozenset({"true", "True", "TRUE", "false", "False", "FALSE"})
_FLOAT_12 = r"""(?x)^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
    |[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$"""
_INT_12 = r"^(?:[-+]?0b[0-1_]+|[-+]?0o?[0-7_]+|[-+]?[0-9_]+|[-+]?0x[0-9a-fA-F_]+)$"
_NULL_12 = frozenset({"~", "null", "Null", "NULL", ""})
# A superset of the characters _FLOAT_12 or _INT_12 can match: a scalar with any
# other (the quantity 2Gi) is a string without compiling them.
_NUMBER_CHARACTERS = frozenset("0123456789_+-.eExXoObBabcdefABCDEFinfINFnaNA")
_OTHER_12 = frozenset({"<<", "="})  # merge key and value: never in a job file
# (Sets where ruamel.yaml has a `^(?:...)$` pattern: a plain scalar never ends
# in a line break, so matching one is being one of these spellings.)

# The spellings both readers give the same value, by construction.
_SIMPLE_INT = r"^-?(?:0|[1-9][0-9]*)$"
_SIMPLE_FLOAT = r"^-?(?:0|[1-9][0-9]*)\.[0-9]+$"
_SIMPLE = {"true": True, "false": False, "null": None, "~": None, "": None}
_SIMPLE_START = frozenset("-0123456789")


class GiveUp(Exception):
    """The fast reader cannot be sure to read the file as the full reader would."""


class TooLong(Exception):
    """An integer of more than ``MAX_INT_DIGITS`` digits (the full reader refuses it where it is)."""

    def __init__(self, digits: int) -> None:
        self.digits = digits
        super().__init__(digits)


class Mismatch(Exception):
    """A core-schema tag on a scalar it cannot read (``!!int x``); the full reader refuses it where it is."""


class NotAllowed(Exception):
    """A value of a YAML type a job file cannot hold (``!!binary``); the full reader refuses it where it is."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        super().__init__(kind)


def _too_long(value: str) -> None:
    """Refuse an integer as the full reader's ``construct_int`` does (sign not counted)."""
    digits = len(value.lstrip("+-"))
    if digits > MAX_INT_DIGITS:
        raise TooLong(digits)


_DECIMAL_12 = r"^[-+]?[0-9]+$"
_BASED_INT_12 = r"^([-+]?)0(?:x([0-9a-fA-F]+)|o([0-7]+)|b([01]+))$"
_INF_12 = r"^([-+]?)\.(?:inf|Inf|INF)$"


def scalar(event: yaml.ScalarEvent) -> Any:
    """The value of one scalar event, as the full reader gives it.

    Raises:
        GiveUp: a tag, a merge key or a spelling whose meaning is not certain.
        TooLong: an integer of more than ``MAX_INT_DIGITS`` digits.
    """
    if event.tag is not None:
        raise GiveUp
    value: str = event.value
    if (
        event.style
    ):  # quoted or block (plain is None or "", by parser): a string in both readers
        return value
    if value in _SIMPLE:
        return _SIMPLE[value]
    if value[:1] in _SIMPLE_START:
        if re.match(_SIMPLE_INT, value):
            _too_long(value)
            return int(value)
        if re.match(_SIMPLE_FLOAT, value):
            return float(value)
    if value == "=":
        return value  # YAML 1.2: a string (the full reader reads it so too)
    if value in _OTHER_12:
        raise GiveUp  # "<<": a merge key where it is a key
    if value in _BOOL_12:
        return value.lower() == "true"
    if value in _NULL_12:
        return None
    if (
        value[:1] in "-+.0123456789"
        and _NUMBER_CHARACTERS.issuperset(value)
        and (re.match(_FLOAT_12, value) or re.match(_INT_12, value))
    ):
        return _number(value)
    return value  # a string, or a timestamp, which t2gen keeps as the string written


# Scalars of ASCII letters only (or none) that a core tag cannot read, but for
# these spellings (ruamel/yaml/constructor.py: construct_yaml_int, _float, _bool).
_LETTERS = r"^[A-Za-z]*$"
_MISMATCH = {
    "int": ("an integer", frozenset()),
    "float": ("a number", frozenset({"nan", "inf", "infinity"})),
    "bool": ("true or false", frozenset({"true", "false"})),  # YAML 1.2: no yes/on
}


def tagged_scalar(event: yaml.ScalarEvent) -> Any:
    """The value of a scalar with one of YAML's own tags (``!!str 5``), as the full reader gives it.

    ``!!str`` is the text as written (any style); ``!!int``, ``!!float``,
    ``!!bool`` and ``!!null`` are read only in the spellings whose value both
    readers agree on (``!!int "5"`` is 5, ``!!float 1`` is 1.0); a ``!!binary``
    value that is valid base64 is refused (:class:`NotAllowed`), as the full
    reader refuses the bytes it reads.

    Raises:
        GiveUp: any other tag or spelling (``!!int 0x1F``, ``!!timestamp``, ``!!set``).
        TooLong: an ``!!int`` of more than ``MAX_INT_DIGITS`` digits.
        NotAllowed: a ``!!binary`` value.
        Mismatch: ``!!int``, ``!!float`` or ``!!bool`` on letters that are no such value (``!!int x``).
    """
    tag: str = event.tag or ""
    value: str = event.value
    kind = tag.removeprefix(CORE_TAG) if tag.startswith(CORE_TAG) else ""
    if kind == "str":
        return value
    if kind == "int" and re.match(_SIMPLE_INT, value):
        _too_long(value)
        return int(value)
    if kind == "float" and (
        re.match(_SIMPLE_INT, value) or re.match(_SIMPLE_FLOAT, value)
    ):
        return float(value)
    if kind == "bool" and value in ("true", "false"):
        return value == "true"
    if kind == "null" and value in ("", "null", "~"):
        return None
    if kind in _MISMATCH and re.match(_LETTERS, value):
        expected, readable = _MISMATCH[kind]
        if value.lower() not in readable:
            raise Mismatch(tag_mismatch_message("!!" + kind, value, expected))
    if kind == "binary":
        try:
            base64.decodebytes(value.encode("ascii"))
        except (UnicodeEncodeError, binascii.Error):
            raise GiveUp from None  # the full reader says why, in its own words
        raise NotAllowed("!!binary")
    raise GiveUp


def _number(value: str) -> Any:
    """A plain scalar YAML 1.2 reads as a number, read as t2gen's full reader reads it.

    Underscores make it the string written (see :func:`t2gen.inputs.yaml.yaml12.construct_int`);
    ``0x``, ``0o`` and ``0b`` integers, signs, leading zeros, ``.inf`` and
    ``.nan`` are read as ruamel.yaml reads them; an integer of more than
    ``MAX_INT_DIGITS`` digits raises :class:`TooLong`, as the full reader refuses it.
    """
    if "_" in value:
        return value
    if re.match(_DECIMAL_12, value):
        _too_long(value)
        return int(value)
    based = re.match(_BASED_INT_12, value)
    if based:
        sign = -1 if based[1] == "-" else 1
        digits, base = next(
            (part, base)
            for part, base in ((based[2], 16), (based[3], 8), (based[4], 2))
            if part
        )
        _too_long(value)
        return sign * int(digits, base)
    infinity = re.match(_INF_12, value)
    if infinity:
        return float("-inf") if infinity[1] == "-" else float("inf")
    if re.match(_FLOAT_12, value):
        return float("nan") if "nan" in value.lower() else float(value)
    raise GiveUp


# A local tag (``!custom``), which both readers name as written, or one of YAML's
# own the full reader has no constructor for (``!!foo``, ``!!python/object:x``),
# which it names in short form; it refuses either where it is
# (``t2gen.inputs.yaml.loader``), and so does this reader.
LOCAL_TAG = (
    r"^(?:![A-Za-z0-9_.-]+|tag:yaml\.org,2002:(?!(?:binary|bool|float|int|map|null|omap|pairs"
    r"|seq|set|str|timestamp)$)[A-Za-z0-9_./:-]+)$"
)


def tag_message(tag: str) -> str:
    """The full reader's message for a local tag (``!custom``) or an unknown ``!!`` tag on a value."""
    return f"YAML tag {short_tag(tag)} is not allowed here; remove it"


def short_tag(tag: str) -> str:
    """A tag as the full reader names it: ``!!str`` for ``tag:yaml.org,2002:str``."""
    return "!!" + tag.removeprefix(CORE_TAG) if tag.startswith(CORE_TAG) else tag


def tagged_key_message(tag: str) -> str:
    """The full reader's message for a tag on a mapping key (``!!str a: 1``)."""
    return key_tag_message(short_tag(tag))


MAP_TAG = CORE_TAG + "map"
SEQ_TAG = CORE_TAG + "seq"
SET_TAG = CORE_TAG + "set"


def is_key_tag(tag: str) -> bool:
    """Whether the full reader reads a key with this tag as a tagged scalar (not a string).

    It refuses such a key with :func:`t2gen.inputs.yaml.yaml12.key_tag_message`.
    """
    return tag == CORE_TAG + "str" or re.match(LOCAL_TAG, tag) is not None
