"""The rules' memos of pure answers are bounded and tell values apart by type."""

from __future__ import annotations

from t2gen.jobfile.rules import image
from t2gen.jobfile.rules._base import _remembered_quantity, quantity_of
from t2gen.jobfile.rules.quantities import _judged
from t2gen.kube.quantity import parse_quantity


def test_quantity_of_is_bounded_and_keeps_types_apart() -> None:
    assert _remembered_quantity.cache_info().maxsize == 1024
    assert str(quantity_of(-0.0).value) == str(parse_quantity(-0.0).value)
    assert str(quantity_of(0.0).value) == str(parse_quantity(0.0).value)
    for raw in (1, 1.0, True, "1", "1m", 0.5, "500m"):
        if isinstance(raw, bool):
            continue  # the rules never parse a bool (is_quantity_shaped)
        assert quantity_of(raw) == parse_quantity(raw)
        assert quantity_of(raw) == parse_quantity(raw)  # remembered: the same answer
    assert (
        quantity_of(1).value == quantity_of(1.0).value
    )  # both read, each its own entry
    assert _remembered_quantity.cache_info().currsize >= 2


def test_the_image_verdict_memo_is_bounded_and_answers_as_the_functions_do() -> None:
    from t2gen.kube.imageref import image_reference_error, upper_case_registry

    assert image._judged.cache_info().maxsize == 256
    for written in (
        "Twister2/twister2-k8s:0.8.0",
        "twister2/Twister2-k8s",
        "alpine",
        "a" * 64,
    ):
        for _ in range(2):
            reason, host = image._judged(written)
            assert reason == image_reference_error(written)
            assert host == (upper_case_registry(written) if reason is None else None)


def test_the_quantity_verdict_memo_is_bounded_and_answers_afresh_for_zero() -> None:
    from decimal import Decimal

    assert _judged.cache_info().maxsize == 1024
    for raw in ("0.5m", "1", 1, 1.0, "0", "9Ei", "100"):
        for name, fraction in (("cpu", None), ("memory", Decimal("0.8"))):
            assert _judged(raw, name, fraction) == _judged.__wrapped__(
                raw, name, fraction
            )
    assert _judged(1, "memory", Decimal("0.8")) != _judged(
        1.0, "memory", Decimal("0.8")
    )
