"""What ``plan`` prints is inert (:func:`t2gen.errors.inert`)."""

from __future__ import annotations

from t2gen.errors import inert


def test_controls_and_bidi_marks_are_escaped_but_line_feeds_kept() -> None:
    text = "node a\x1b[2K\rb\x00\u202egnp\u2028c\x85\n  next row\tx\n"
    assert inert(text) == (
        "node a\\x1b[2K\\x0db\\x00\\u202egnp\\u2028c\\x85\n  next row\\x09x\n"
    )


def test_plain_text_is_unchanged() -> None:
    text = "wordcount-0  4 pods  fits on node-1 (zone=a, 日本)\n"
    assert inert(text) == text
