"""t2gen's own modules loaded straight from their compiled bytecode, for a short-lived CLI.

A render imports about 90 of t2gen's small modules, and Python's import
system spends about 90 us on each even when its ``.pyc`` is current (measured
on an empty module). Part of that is finding it: the path finder tries
extension modules, packages, sources and bytecode in turn, and
``SourceFileLoader`` works out, reads and checks the cache file through layers
of Python code. This module cuts that part, about a fifth, some 2 ms of a
render; the rest (module locks, spec and module set-up) is the import system's
own and stays.

:class:`PackageFinder` answers only for submodules of one package directory
(``t2gen.*``) in the simple case: a ``.py`` file or a package with an
``__init__.py``, from a directory listing read once per directory. Its loader
is ``SourceFileLoader`` itself, whose ``get_code`` first tries
:func:`cached_code`, which reads the ``__pycache__`` file and accepts it
exactly when CPython would: the same name (cache tag and optimization level),
the same magic number and a timestamp header matching the source's mtime and
size (PEP 3147, PEP 552). Anything else (no or stale bytecode, a hash-based
``.pyc``, ``sys.pycache_prefix``, an extension module or a namespace package
in the directory) is left to Python's own machinery, which also writes the
bytecode when it may. Modules get the same ``__file__``, ``__cached__``,
``__spec__.origin``, ``__path__`` and source as without the finder
(``tests/test_bytecode.py`` compares all of them).

Only the console script installs it (:func:`install`): importing t2gen as a
library leaves ``sys.meta_path`` alone.
"""

from __future__ import annotations

import io
import marshal
import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES, ModuleSpec, SourceFileLoader
from importlib.util import MAGIC_NUMBER
from types import CodeType

TYPE_CHECKING = False  # only the type checker needs typing here
if TYPE_CHECKING:
    from typing import Any

__all__ = ["BytecodeLoader", "PackageFinder", "cached_code", "install"]

_EXTENSIONS = tuple(EXTENSION_SUFFIXES)


def cached_code(source: str) -> CodeType | None:
    """Return the code in ``source``'s current ``__pycache__`` file, or None.

    Current means what CPython's ``SourceFileLoader`` requires of a
    timestamp-based ``.pyc`` (PEP 552, flags 0): the interpreter's magic
    number, and the source's mtime (whole seconds) and size, both modulo 2**32.

    Args:
        source: path of a ``.py`` file.

    Returns:
        The module's code object with ``co_filename`` set to ``source``; None
        when the bytecode is missing, stale, hash-based, kept under
        ``sys.pycache_prefix`` or unreadable, and the caller should load the
        module the usual way (which recompiles and may write the cache).
    """
    head, tail = os.path.split(source)
    if sys.pycache_prefix is not None or not tail.endswith(".py"):
        return None
    optimize = sys.flags.optimize
    level = f".opt-{optimize}" if optimize else ""
    cached = os.path.join(
        head, "__pycache__", f"{tail[:-3]}.{sys.implementation.cache_tag}{level}.pyc"
    )
    try:
        with io.open_code(cached) as file:  # as CPython reads it (PEP 578 hooks)
            data = file.read()
        stat = os.stat(source)
    except OSError:
        return None
    if (
        len(data) < 16
        or data[:4] != MAGIC_NUMBER
        or data[4:8] != b"\0\0\0\0"
        or int.from_bytes(data[8:12], "little") != int(stat.st_mtime) & 0xFFFFFFFF
        or int.from_bytes(data[12:16], "little") != stat.st_size & 0xFFFFFFFF
    ):
        return None
    try:
        code = marshal.loads(memoryview(data)[16:])
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(code, CodeType):
        return None
    import _imp

    _imp._fix_co_filename(code, source)  # type: ignore[attr-defined]
    if sys.flags.verbose:  # what `python -v` prints for a module read from its cache
        print(f"# {cached} matches {source}", file=sys.stderr)
        print(f"# code object from {cached!r}", file=sys.stderr)
    return code


class BytecodeLoader(SourceFileLoader):
    """``SourceFileLoader`` that takes current bytecode through :func:`cached_code`.

    Args:
        fullname: the module's name.
        path: its ``.py`` file.
    """

    def get_code(self, fullname: str) -> CodeType | None:
        """The module's code: its current bytecode, else whatever ``SourceFileLoader`` does."""
        code = cached_code(self.path)
        return code if code is not None else super().get_code(fullname)


class _Listing:
    """One directory's entries: sub-directories and files, read once."""

    __slots__ = ("directories", "files", "usable")

    def __init__(self, directory: str) -> None:
        self.directories: set[str] = set()
        self.files: set[str] = set()
        with os.scandir(directory) as entries:
            for entry in entries:
                if entry.is_dir():
                    self.directories.add(entry.name)
                else:
                    self.files.add(entry.name)
        # An extension module takes precedence over a source of the same name.
        self.usable = not any(name.endswith(_EXTENSIONS) for name in self.files)


class PackageFinder:
    """A meta path finder for the submodules of one package (see the module docstring).

    Args:
        package: the package's name (``t2gen``).
    """

    def __init__(self, package: str) -> None:
        self._prefix = package + "."
        self._listings: dict[str, _Listing | None] = {}

    def _listing(self, directory: str) -> _Listing | None:
        try:
            return self._listings[directory]
        except KeyError:
            pass
        try:
            listing: _Listing | None = _Listing(directory)
        except OSError:
            listing = None
        self._listings[directory] = listing
        return listing

    def find_spec(
        self, fullname: str, path: Any = None, target: Any = None
    ) -> ModuleSpec | None:
        """A spec for ``fullname`` when it is a plain module or package of ours, else None.

        Args:
            fullname: the module's full name, e.g. ``t2gen.render.engine``.
            path: the parent package's ``__path__``.
            target: unused (only ``importlib.reload`` passes it).
        """
        if (
            not fullname.startswith(self._prefix)
            or type(path) is not list
            or len(path) != 1
        ):
            return None
        directory = path[0]
        listing = self._listing(directory)
        if listing is None or not listing.usable:
            return None
        leaf = fullname.rpartition(".")[2]
        if leaf in listing.directories:
            base = os.path.join(directory, leaf)
            inner = self._listing(base)
            if inner is None or not inner.usable or "__init__.py" not in inner.files:
                return None  # a namespace package, or something unusual
            origin = os.path.join(base, "__init__.py")
            spec = ModuleSpec(
                fullname,
                BytecodeLoader(fullname, origin),
                origin=origin,
                is_package=True,
            )
            spec.submodule_search_locations = [base]
        elif leaf + ".py" in listing.files:
            origin = os.path.join(directory, leaf + ".py")
            spec = ModuleSpec(fullname, BytecodeLoader(fullname, origin), origin=origin)
        else:
            return None
        spec.has_location = True
        return spec

    def invalidate_caches(self) -> None:
        """Forget the directory listings (``importlib.invalidate_caches()`` calls this)."""
        self._listings.clear()


def install(package: str = "t2gen") -> None:
    """Put a :class:`PackageFinder` for ``package`` first on ``sys.meta_path``, once.

    Called by the console script only, before it imports the command's modules.
    """
    if not any(
        isinstance(finder, PackageFinder) and finder._prefix == package + "."
        for finder in sys.meta_path
    ):
        sys.meta_path.insert(0, PackageFinder(package))
