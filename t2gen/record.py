"""Immutable records without generated code: what ``@dataclass(frozen=True)`` gives, at no import cost.

``dataclasses`` writes and compiles Python source for every class it decorates
(``__init__``, ``__eq__``, ``__hash__``, ``__repr__``, ``__setattr__``...), at
every start, for each of the some 30 records a render defines; ``docs/development.md``
gives the measured cost. :class:`Record` gives the same behaviour with methods
shared by every record, and the type
checker sees each subclass as a frozen dataclass (PEP 681 ``dataclass_transform``).

A record's fields are its annotated class attributes, in order, after those of
its record bases; a class attribute value is the field's default. Records of the
same class are equal and hash alike when their fields are; ``order=True`` in the
class statement also orders them by their fields, as ``@dataclass(order=True)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_: Any) -> Any:
        """No-op at run time: only the type checker reads it."""
        return lambda cls: cls


__all__ = ["FrozenRecordError", "Record", "replace"]

_MISSING = object()


class FrozenRecordError(AttributeError):
    """A field of a record was assigned or deleted."""


@dataclass_transform(eq_default=True, order_default=False, frozen_default=True)
class Record:
    """Base class of t2gen's immutable records (see the module docstring)."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, Any]] = {}
    _required: ClassVar[tuple[str, ...]] = ()
    _ordered: ClassVar[bool] = False
    _names: ClassVar[frozenset[str]] = frozenset()
    _required_names: ClassVar[frozenset[str]] = frozenset()
    _plain: ClassVar[bool] = False

    def __init_subclass__(cls, *, order: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 - strings, never evaluated
        own = [
            name
            for name, annotation in annotations.items()
            if not str(annotation).startswith(("ClassVar", "typing.ClassVar"))
        ]
        cls._fields = tuple(dict.fromkeys([*cls._fields, *own]))
        defaults = dict(cls._defaults)
        for name in own:
            value = cls.__dict__.get(name, _MISSING)
            if value is not _MISSING:
                defaults[name] = value
        cls._defaults = defaults
        cls._ordered = order or cls._ordered
        required = [name for name in cls._fields if name not in defaults]
        if required and cls._fields.index(required[-1]) > len(required) - 1:
            raise TypeError(
                f"{cls.__name__}: a field without a default follows one with a default"
            )
        cls._required = tuple(required)
        cls._names = frozenset(cls._fields)
        cls._required_names = frozenset(required)
        # Instances keep their fields in a __dict__ unless a class declared
        # __slots__ all the way down, and no field is a descriptor of the class
        # (a property of that name): then __init__ may fill the __dict__ directly.
        cls._plain = cls.__dictoffset__ != 0 and not any(
            hasattr(type(getattr(cls, name, None)), "__set__") for name in cls._fields
        )
        for name, value in defaults.items():
            if name not in cls.__dict__:  # a default inherited from a record base
                setattr(cls, name, value)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = self.__class__
        # The common calls (by keyword or by position only, every required
        # field given, no unknown name, no more values than fields) fill the instance's
        # __dict__ in one C call instead of a setattr each: a render makes some
        # 40,000 records. Anything else, errors included, takes the checked
        # path, which raises as before.
        if cls._plain:
            if not args:
                keys = kwargs.keys()
                if keys == cls._names or (
                    keys <= cls._names and keys >= cls._required_names
                ):
                    self.__dict__.update(kwargs)
                    return
            elif not kwargs and len(cls._required) <= len(args) <= len(cls._fields):
                self.__dict__.update(zip(cls._fields, args, strict=False))
                return
        self._init_checked(args, kwargs)

    def _init_checked(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """Set the fields one by one, raising for a wrong call as a dataclass would."""
        fields = self._fields
        given = len(args)
        if given > len(fields):
            raise TypeError(
                f"{type(self).__name__}() takes {len(fields)} positional arguments but {given} were given"
            )
        setter = object.__setattr__
        for name, value in zip(fields, args, strict=False):
            setter(self, name, value)
        for name, value in kwargs.items():
            if name not in self._defaults and name not in fields:
                raise TypeError(
                    f"{type(self).__name__}() got an unexpected keyword argument {name!r}"
                )
            if name in fields[:given]:
                raise TypeError(
                    f"{type(self).__name__}() got multiple values for argument {name!r}"
                )
            setter(self, name, value)
        # A field left out reads its default from the class attribute it was declared with.
        for name in self._required[given:]:
            if name not in kwargs:
                raise TypeError(
                    f"{type(self).__name__}() missing required argument: {name!r}"
                )

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenRecordError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenRecordError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({shown})"

    if not TYPE_CHECKING:  # the type checker makes these for `order=True` classes only

        def _compare(
            self, other: object
        ) -> tuple[tuple[Any, ...], tuple[Any, ...]] | None:
            if other.__class__ is not self.__class__ or not self._ordered:
                return None
            return self._values(), other._values()

        def __lt__(self, other: object) -> bool:
            pair = self._compare(other)
            return NotImplemented if pair is None else pair[0] < pair[1]

        def __le__(self, other: object) -> bool:
            pair = self._compare(other)
            return NotImplemented if pair is None else pair[0] <= pair[1]

        def __gt__(self, other: object) -> bool:
            pair = self._compare(other)
            return NotImplemented if pair is None else pair[0] > pair[1]

        def __ge__(self, other: object) -> bool:
            pair = self._compare(other)
            return NotImplemented if pair is None else pair[0] >= pair[1]


_R = TypeVar("_R", bound=Record)


def replace(record: _R, /, **changes: Any) -> _R:
    """A copy of ``record`` with some fields changed (``dataclasses.replace`` for records).

    Raises:
        TypeError: a name in ``changes`` is not a field.
    """
    values = {name: getattr(record, name) for name in record._fields}
    values.update(changes)
    return type(record)(**values)
