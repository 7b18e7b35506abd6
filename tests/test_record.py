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


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((), {}, "Point() missing required argument: 'x'"),
        ((1, 2, 3), {}, "Point() takes 2 positional arguments but 3 were given"),
        ((1,), {"x": 1}, "Point() got multiple values for argument 'x'"),
        ((1,), {"w": 1}, "Point() got an unexpected keyword argument 'w'"),
        ((), {"y": 1}, "Point() missing required argument: 'x'"),
        ((), {"x": 1, "w": 1}, "Point() got an unexpected keyword argument 'w'"),
    ],
)
def test_bad_arguments_say_what_is_wrong(
    args: tuple[int, ...], kwargs: dict[str, int], message: str
) -> None:
    with pytest.raises(TypeError) as raised:
        Point(*args, **kwargs)
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((1,), {}),
        ((1, 2), {}),
        ((), {"x": 1}),
        ((), {"y": 2, "x": 1}),
        ((1,), {"y": 2}),
    ],
)
def test_every_way_of_calling_sets_the_same_fields(
    args: tuple[int, ...], kwargs: dict[str, int]
) -> None:
    """The direct path (all positional or all keyword) and the checked one agree."""
    point = Point3(*args, **kwargs)
    values = {
        "x": 1,
        "y": 0,
        "z": 5,
        **dict(zip(("x", "y"), args, strict=False)),
        **kwargs,
    }
    assert (point.x, point.y, point.z) == (values["x"], values["y"], values["z"])
    assert point == Point3(**values) == Point3(values["x"], values["y"], values["z"])


class Slotted(Record):
    __slots__ = ("a", "b")
    a: int
    b: int


def test_a_record_with_slots_is_set_field_by_field() -> None:
    assert not Slotted._plain and Point._plain
    assert (Slotted(1, b=2).a, Slotted(a=1, b=2).b) == (1, 2)
    with pytest.raises(FrozenRecordError):
        Slotted(1, 2).a = 3  # type: ignore[misc]
