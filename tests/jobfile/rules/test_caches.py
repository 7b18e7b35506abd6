"""The rules' memos of pure answers are bounded and tell values apart by type."""

from __future__ import annotations

from t2gen.jobfile.rules import image
from t2gen.jobfile.rules._base import quantity_of
from t2gen.kube.quantity import parse_quantity


def test_quantity_of_is_bounded_and_keeps_types_apart() -> None:
    assert quantity_of.cache_info().maxsize == 1024
    for raw in (1, 1.0, True, "1", "1m", 0.5, "500m"):
        if isinstance(raw, bool):
            continue  # the rules never parse a bool (is_quantity_shaped)
        assert quantity_of(raw) == parse_quantity(raw)
        assert quantity_of(raw) == parse_quantity(raw)  # remembered: the same answer
    assert (
        quantity_of(1).value == quantity_of(1.0).value
    )  # both read, each its own entry
    assert quantity_of.cache_info().currsize >= 2


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
