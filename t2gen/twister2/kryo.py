"""Kryo 4.0.2 bytes for the values a Twister2 ``JobConfig`` holds: String, Integer, Long, Double, Boolean, ArrayList.

``Twister2Job.serialize()`` puts every ``JobConfig`` entry into the job
description's ``config_byte_map``, each value serialized on its own with
``KryoSerializer.serialize`` (DSC-SPIDAL/twister2 at c6844d2,
``twister2/api/src/java/edu/iu/dsc/tws/api/Twister2Job.java:100-105``); every
worker and the job master deserialize them with ``KryoSerializer.deserialize``
into their ``Config`` (``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/
rsched/utils/JobUtils.java:122-138``), so ``config.get(key)`` returns the Java
object. ``KryoSerializer`` (``twister2/api/src/java/edu/iu/dsc/tws/api/util/
KryoSerializer.java:38-58``) is a plain ``new Kryo()`` with references off and
registration not required, calling ``writeClassAndObject``; Twister2 builds
against Kryo 4.0.2 (``t2_workspace_defs.bzl:132``). The wire format below is
that version's (EsotericSoftware/kryo, tag ``kryo-parent-4.0.2``, ``src/com/
esotericsoftware/kryo/``):

* The class (``util/DefaultClassResolver.java:91-125``): a registered class is
  ``varint(id + 2)``; the defaults (``Kryo.java:231-240``) give ``int`` 0,
  ``String`` 1, ``boolean`` 3, ``long`` 7, ``double`` 8, and a primitive's
  registration also serves its wrapper (``DefaultClassResolver.java:69``). An
  unregistered class (``java.util.ArrayList``) is ``varint(1)``, a name id
  ``varint(0)`` (ids restart with every top-level call, ``:178-184``) and its
  name as a string.
* The value (``serializers/DefaultSerializers.java``): Integer and Long as
  zig-zag variable-length integers (``writeInt(v, false)``, ``writeLong(v,
  false)``, ``io/Output.java:273-313,548-640``), Double as the 8 big-endian
  bytes of ``doubleToLongBits`` (``:529-540,658-660``), Boolean as one byte,
  String by ``Output.writeString`` (``:324-360,432-470``): 2-63 ASCII characters
  as bytes with the last one's high bit set, anything else as its UTF-16 length
  + 1 in Kryo's length encoding and each UTF-16 unit in modified UTF-8.
* ``ArrayList`` (``serializers/CollectionSerializer.java:82-101``): the size as
  ``varint``, then every element with its class.

A YAML integer becomes an ``Integer`` when it fits 32 bits and a ``Long``
otherwise, as Java's literal ``10`` or ``10000000000L`` would; a YAML float a
``Double``. :func:`decode` reads the same subset back (the golden ``.job``
text, and a ``twister2 submit`` package's simple values); anything else is
reported as a Kryo class it does not read.
"""

from __future__ import annotations

import math
import struct

__all__ = ["INT32", "INT64", "KryoError", "decode", "encode", "java_type"]

INT32 = (-(2**31), 2**31 - 1)
"""The range of a Java ``int`` (``Integer``)."""
INT64 = (-(2**63), 2**63 - 1)
"""The range of a Java ``long`` (``Long``)."""

_INTEGER, _STRING, _BOOLEAN, _LONG, _DOUBLE = 2, 3, 5, 9, 10
"""``varint(id + 2)`` of the default registrations int 0, String 1, boolean 3, long 7, double 8."""
_BY_NAME = 1
"""``varint(NAME + 2)``: an unregistered class written by name."""
_ARRAY_LIST = "java.util.ArrayList"

Value = str | int | float | bool | list["Value"]
"""What a ``spec.jobConfig`` value may be (lists hold scalars only)."""


class KryoError(ValueError):
    """Bytes that are not a Kryo 4 value of the supported classes."""


def java_type(value: Value) -> str:
    """The Java class a value becomes in the worker's ``Config``.

    Args:
        value: a ``spec.jobConfig`` value.

    Returns:
        ``java.lang.String``, ``java.lang.Integer``, ``java.lang.Long``,
        ``java.lang.Double``, ``java.lang.Boolean`` or ``java.util.ArrayList``.

    Raises:
        KryoError: an integer outside a Java ``long`` or another type.
    """
    if isinstance(value, bool):
        return "java.lang.Boolean"
    if isinstance(value, str):
        return "java.lang.String"
    if isinstance(value, int):
        if INT32[0] <= value <= INT32[1]:
            return "java.lang.Integer"
        if INT64[0] <= value <= INT64[1]:
            return "java.lang.Long"
        raise KryoError(f"{value} does not fit a Java long")
    if isinstance(value, float):
        return "java.lang.Double"
    if isinstance(value, list):
        return _ARRAY_LIST
    raise KryoError(f"a {type(value).__name__} has no Java JobConfig type")


def _varint(value: int) -> bytes:
    """Kryo's unsigned variable-length integer: 7 bits a byte, low first (at most 9 bytes)."""
    out = bytearray()
    for _ in range(8):
        if value >> 7 == 0:
            out.append(value)
            return bytes(out)
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(
        value & 0xFF
    )  # the ninth byte of a long keeps 8 bits (Output.java:630-640)
    return bytes(out)


def _zigzag(value: int, bits: int) -> int:
    """``(v << 1) ^ (v >> bits-1)`` as Java computes it, as an unsigned number."""
    return ((value << 1) ^ (value >> (bits - 1))) & ((1 << bits) - 1)


def _string(text: str) -> bytes:
    """``Output.writeString`` (Output.java:324-360): ASCII fast path, else length + modified UTF-8."""
    units = struct.unpack(
        f"<{len(text.encode('utf-16-le')) // 2}H", text.encode("utf-16-le")
    )
    count = len(units)
    if count == 0:
        return b"\x81"
    if 1 < count < 64 and all(unit <= 127 for unit in units):
        body = bytearray(units)
        body[-1] |= 0x80
        return bytes(body)
    return _utf8_length(count + 1) + b"".join(_unit(unit) for unit in units)


def _utf8_length(value: int) -> bytes:
    """``Output.writeUtf8Length`` (Output.java:432-470): bit 8 set on the first byte, bit 7 says more follow."""
    if value >> 6 == 0:
        return bytes([value | 0x80])
    out = bytearray([(value & 0x3F) | 0x40 | 0x80])
    value >>= 6
    while value >> 7:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _unit(unit: int) -> bytes:
    """One UTF-16 code unit as ``writeString_slow`` writes it (a surrogate on its own, 3 bytes)."""
    if unit <= 0x7F:
        return bytes([unit])
    if unit > 0x7FF:
        return bytes(
            [0xE0 | unit >> 12 & 0x0F, 0x80 | unit >> 6 & 0x3F, 0x80 | unit & 0x3F]
        )
    return bytes([0xC0 | unit >> 6 & 0x1F, 0x80 | unit & 0x3F])


def _object(value: Value, out: bytearray, names: dict[str, int]) -> None:
    """``Kryo.writeClassAndObject`` for one value; ``names`` are the class-name ids of this call."""
    kind = java_type(value)
    if isinstance(value, bool):
        out += bytes([_BOOLEAN, 1 if value else 0])
    elif isinstance(value, str):
        out.append(_STRING)
        out += _string(value)
    elif isinstance(value, int):
        if kind == "java.lang.Integer":
            out.append(_INTEGER)
            out += _varint(_zigzag(value, 32))
        else:
            out.append(_LONG)
            out += _varint(_zigzag(value, 64))
    elif isinstance(value, float):
        out.append(_DOUBLE)
        out += struct.pack(">d", math.nan if math.isnan(value) else value)
    else:
        out.append(_BY_NAME)
        if _ARRAY_LIST in names:
            out += _varint(names[_ARRAY_LIST])
        else:
            names[_ARRAY_LIST] = len(names)
            out += _varint(names[_ARRAY_LIST]) + _string(_ARRAY_LIST)
        out += _varint(len(value))
        for item in value:
            _object(item, out, names)


def encode(value: Value) -> bytes:
    """The bytes ``KryoSerializer.serialize(value)`` gives for the Java form of ``value``.

    Args:
        value: a string, integer (Integer within 32 bits, else Long), float
            (Double), boolean, or a list of those (ArrayList).

    Returns:
        The Kryo 4.0.2 bytes of ``writeClassAndObject``.

    Raises:
        KryoError: a value with no Java form (an integer outside a long, a dict, None).
    """
    out = bytearray()
    _object(value, out, {})
    return bytes(out)


class _Reader:
    """A cursor over Kryo bytes, refusing to read past their end."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0
        self.names: dict[int, str] = {}

    def byte(self) -> int:
        if self.at >= len(self.data):
            raise KryoError("ends in the middle of a value")
        self.at += 1
        return self.data[self.at - 1]

    def varint(self, most: int = 9) -> int:
        value = 0
        for shift in range(0, 7 * most, 7):
            part = self.byte()
            if shift == 56:
                return value | part << 56
            value |= (part & 0x7F) << shift
            if not part & 0x80:
                return value
        raise KryoError("has a variable-length integer that is too long")

    def string(self) -> str:
        first = self.byte()
        if not first & 0x80:  # ASCII: up to the byte with bit 8 set
            chars = [first]
            while not chars[-1] & 0x80:
                chars.append(self.byte())
            chars[-1] &= 0x7F
            return bytes(chars).decode("ascii")
        length = first & 0x3F
        if first & 0x40:
            shift = 6
            while True:
                part = self.byte()
                length |= (part & 0x7F) << shift
                shift += 7
                if not part & 0x80 or shift > 34:
                    break
        count = length - 1
        if count < 0:
            return ""
        if count > len(self.data):
            raise KryoError(
                f"names a string of {count} characters in {len(self.data)} bytes"
            )
        units = [self._unit() for _ in range(count)]
        return struct.pack(f"<{count}H", *units).decode("utf-16-le", "surrogatepass")

    def _unit(self) -> int:
        first = self.byte()
        if first >> 4 in (12, 13):
            return (first & 0x1F) << 6 | self.byte() & 0x3F
        if first >> 4 == 14:
            return (first & 0x0F) << 12 | (self.byte() & 0x3F) << 6 | self.byte() & 0x3F
        return first

    def value(self, depth: int = 0) -> Value:
        tag = self.varint(5)
        if tag == _STRING:
            return self.string()
        if tag in (_INTEGER, _LONG):
            raw = self.varint(5 if tag == _INTEGER else 9)
            return (raw >> 1) ^ -(raw & 1)
        if tag == _DOUBLE:
            if self.at + 8 > len(self.data):
                raise KryoError("ends in the middle of a Double")
            self.at += 8
            return float(struct.unpack(">d", self.data[self.at - 8 : self.at])[0])
        if tag == _BOOLEAN:
            return self.byte() != 0
        if tag == _BY_NAME and depth == 0:
            name_id = self.varint(5)
            name = self.names.get(name_id)
            if name is None:
                name = self.names[name_id] = self.string()
            if name != _ARRAY_LIST:
                raise KryoError(f"holds a {name}, which t2gen does not read")
            size = self.varint(5)
            if size > len(self.data) - self.at:
                raise KryoError(
                    f"names a list of {size} items in {len(self.data)} bytes"
                )
            return [self.value(depth + 1) for _ in range(size)]
        raise KryoError(f"holds Kryo class id {tag - 2}, which t2gen does not read")


def decode(data: bytes) -> Value:
    """Read back a value :func:`encode` writes (and Kryo 4 writes for the same Java objects).

    Args:
        data: the bytes of one ``config_byte_map`` entry.

    Returns:
        The value: str, int, float, bool or a list of them.

    Raises:
        KryoError: another class, a truncated value, or bytes left over.
    """
    reader = _Reader(data)
    value = reader.value()
    if reader.at != len(data):
        raise KryoError(f"has {len(data) - reader.at} bytes after its value")
    return value
