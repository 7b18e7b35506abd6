"""t2gen.record.Record behaves as a frozen dataclass."""

from __future__ import annotations

import pytest

from t2gen.errors import Problem, Warning_
from t2gen.record import FrozenRecordError, Record, replace


class Point(Record):
    x: int
    y: int = 0


class Point3(Point):
    z: int = 5


def test_fields_defaults_equality_hash_and_repr() -> None:
    assert Point(1) == Point(1, 0) == Point(x=1, y=0)
    assert Point(1) != Point(2) and Point(1) != (1, 0)
    assert hash(Point(1, 2)) == hash(Point(1, 2))
    assert len({Point(1), Point(1, 0), Point(2)}) == 2
    assert repr(Point3(1, 2)) == "Point3(x=1, y=2, z=5)"
    assert Point3(1) != Point(1)  # another class is never equal, as with dataclasses


def test_immutable() -> None:
    point = Point(1)
    with pytest.raises(FrozenRecordError):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del point.y  # type: ignore[misc]


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [((), {}), ((1, 2, 3), {}), ((1,), {"x": 1}), ((1,), {"w": 1})],
)
def test_bad_arguments_are_type_errors(
    args: tuple[int, ...], kwargs: dict[str, int]
) -> None:
    with pytest.raises(TypeError):
        Point(*args, **kwargs)


def test_order_true_sorts_by_fields_and_only_within_a_class() -> None:
    a, b = Problem("f", 1, 2, "m"), Problem("f", 1, 10, "a")
    assert sorted([b, a]) == [a, b] and a < b and b >= a
    with pytest.raises(TypeError):
        _ = Point(1) < Point(2)  # type: ignore[operator]
    assert sorted({Warning_("f", 2, 1, "w"), Warning_("f", 1, 1, "w")})[0].line == 1


def test_a_required_field_after_a_default_is_refused() -> None:
    with pytest.raises(TypeError):

        class Bad(Record):
            a: int = 0
            b: int


def test_replace() -> None:
    assert replace(Point3(1, 2), z=7) == Point3(1, 2, 7)
    with pytest.raises(TypeError):
        replace(Point(1), w=2)
