"""Kryo bytes of JobConfig values: byte for byte what Kryo 4.0.2 writes, as Twister2's KryoSerializer.

The expected bytes were produced by Kryo 4.0.2 itself (EsotericSoftware/kryo at
tag kryo-parent-4.0.2, compiled with javac 17), configured as Twister2's
``KryoSerializer`` (``twister2/api/src/java/edu/iu/dsc/tws/api/util/KryoSerializer.java:38-53``:
``setReferences(false)``, ``setRegistrationRequired(false)``,
``writeClassAndObject``); the same Kryo read t2gen's bytes back as the Java class
in the third column. No Java runs in this suite: the vectors are the record.
"""

from __future__ import annotations

import pytest

from t2gen.twister2 import kryo

VECTORS = [
    ("input", "03696e7075f4", "java.lang.String"),
    ("a", "038261", "java.lang.String"),
    ("", "0381", "java.lang.String"),
    ("\u00e9", "0382c3a9", "java.lang.String"),
    (
        "x" * 70,
        "03c70178787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878",
        "java.lang.String",
    ),
    (100, "02c801", "java.lang.Integer"),
    (5, "020a", "java.lang.Integer"),
    (-1, "0201", "java.lang.Integer"),
    (1099511627776, "09808080808040", "java.lang.Long"),
    (1.5, "0a3ff8000000000000", "java.lang.Double"),
    (True, "0501", "java.lang.Boolean"),
    (False, "0500", "java.lang.Boolean"),
    (
        ["a", 3, 2.0],
        "01006a6176612e7574696c2e41727261794c6973f40303826102060a4000000000000000",
        "java.util.ArrayList",
    ),
    ("h\u00e9llo\U0001f600", "038868c3a96c6c6feda0bdedb880", "java.lang.String"),
    (-(2**31), "02ffffffff0f", "java.lang.Integer"),
    (-(2**63), "09ffffffffffffffffff", "java.lang.Long"),
    (1e300, "0a7e37e43c8800759c", "java.lang.Double"),
    (
        "y" * 64,
        "03c10179797979797979797979797979797979797979797979797979797979797979797979797979797979797979797979797979797979797979797979797979797979",
        "java.lang.String",
    ),
    ("z" * 10000, "03d19c01" + "7a" * 9999 + "7a", "java.lang.String"),
]


@pytest.mark.parametrize(("value", "expected", "java"), VECTORS)
def test_encode_is_kryo_4_0_2(value: kryo.Value, expected: str, java: str) -> None:
    assert kryo.encode(value).hex() == expected
    assert kryo.java_type(value) == java


@pytest.mark.parametrize(("value", "expected", "java"), VECTORS)
def test_decode_reads_kryo_bytes_back(
    value: kryo.Value, expected: str, java: str
) -> None:
    assert kryo.decode(bytes.fromhex(expected)) == value


def test_an_integer_beyond_a_long_has_no_java_form() -> None:
    with pytest.raises(kryo.KryoError, match="does not fit a Java long"):
        kryo.encode(2**63)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "ends in the middle"),
        (bytes.fromhex("0a3ff8"), "ends in the middle of a Double"),
        (bytes.fromhex("0201ff"), "bytes after its value"),
        (bytes.fromhex("0c00"), "class id 10"),
        (bytes.fromhex("0100") + b"java.util.HashMa\xf0", "java.util.HashMap"),
        (
            bytes.fromhex("0100")
            + b"java.util.ArrayLis\xf4"
            + bytes.fromhex("ffffffff0f"),
            "list of",
        ),
    ],
)
def test_decode_refuses_what_it_does_not_read(data: bytes, message: str) -> None:
    with pytest.raises(kryo.KryoError, match=message):
        kryo.decode(data)
