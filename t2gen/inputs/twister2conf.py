"""Twister2 configuration: its files in the runtime's load order, each read as SnakeYAML reads it, located.

The one reader of Twister2 configuration, for ``t2gen import`` (files and
directories), ``t2gen package --conf DIR`` and a package's own configuration
(``render|validate|plan --package``). Every worker and the job master load
``common/`` then ``kubernetes/``, in each the files of
:data:`t2gen.twister2.confkeys.LOAD_ORDER`, a later top-level key replacing an
earlier one (DSC-SPIDAL/twister2 at c6844d2,
``twister2/common/src/java/edu/iu/dsc/tws/common/config/ConfigLoader.java:70-138``),
and read each file with SnakeYAML (``new Yaml()``,
``twister2/common/src/java/edu/iu/dsc/tws/common/config/ConfigReader.java:74,99``;
SnakeYAML 1.15, ``t2_workspace_defs.bzl:126``), whose resolver makes a plain
(unquoted) ``yes``, ``no``, ``on`` or ``off`` a boolean (``Resolver.BOOL``,
snakeyaml/snakeyaml ``src/main/java/org/yaml/snakeyaml/resolver/Resolver.java``).
t2gen reads a file first as it reads YAML (the positioned reader, bounded and
located) and then gives those plain scalars the meaning SnakeYAML gives them;
a quoted ``"yes"`` stays a string, as in SnakeYAML (and Twister2's
``TypeUtils.getBoolean`` reads that as false).

Input bounds: :data:`MAX_CONF_FILE_BYTES` per file, measured while reading;
:data:`MAX_CONF_FILES` entries per configuration directory. Parser bounds: the
job file's (:mod:`t2gen.inputs.yaml.source`). Errors:
:class:`~t2gen.errors.InputError`, located at ``file:line:col``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Any

from t2gen.errors import ConfigError, InputError, Problem
from t2gen.inputs.package import PackageContents
from t2gen.inputs.textfile import decode_source, read_source
from t2gen.inputs.yaml import JsonPath, SourceDoc, parse_yaml
from t2gen.record import Record, replace
from t2gen.twister2.confkeys import CONF_DIRS, LOAD_ORDER

__all__ = [
    "MAX_CONF_FILES",
    "MAX_CONF_FILE_BYTES",
    "SNAKEYAML_BOOL",
    "ConfSetting",
    "config_files",
    "directory_files",
    "has_keys",
    "merge_settings",
    "package_settings",
    "parse_conf",
    "read_conf_file",
]

MAX_CONF_FILE_BYTES = 1024 * 1024
"""Largest configuration file read (1 MiB); Twister2's are a few KiB each."""

MAX_CONF_FILES = 64
"""Entries per configuration directory: Twister2 ships 7 in ``common/``."""

SNAKEYAML_BOOL = (
    r"yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"
)
"""SnakeYAML 1.x's ``Resolver.BOOL``: the plain scalars it reads as booleans."""

_TRUE = frozenset({"yes", "true", "on"})
_WHAT = "Twister2 configuration file"
_ADVICE = "Twister2's configuration files are a few KiB each"


class ConfSetting(Record):
    """One top-level key of a configuration, after merging: the file that set it last wins.

    Attributes:
        name: the key as written.
        value: its value, plain data, with SnakeYAML's booleans.
        path: the file that sets it, as the user (or the package) names it.
        line: 1-based line of the key.
        col: 1-based column of the key.
        doc: the parsed file, for the positions of nested values.
    """

    name: str
    value: Any
    path: str
    line: int
    col: int
    doc: SourceDoc


def has_keys(text: str) -> bool:
    """Whether a configuration file has a line that is not a comment (Twister2 ships some all comments)."""
    return any(
        line.strip() and not line.lstrip().startswith(("#", "---", "..."))
        for line in text.splitlines()
    )


def _plain(doc: SourceDoc, path: JsonPath, lines: Sequence[str]) -> bool:
    """Whether the scalar at ``path`` is written plain: not quoted, not a block scalar."""
    line, col = doc.positions.get(path, (0, 0))
    if not 1 <= line <= len(lines):
        return False
    return col >= 1 and lines[line - 1][col - 1 : col] not in ('"', "'", "|", ">", "")


def _resolve(doc: SourceDoc, node: Any, path: JsonPath, lines: Sequence[str]) -> Any:
    """``node`` with SnakeYAML's booleans (O(size of the file))."""
    if isinstance(node, dict):
        return {
            key: _resolve(doc, value, (*path, key), lines)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [
            _resolve(doc, item, (*path, index), lines)
            for index, item in enumerate(node)
        ]
    if (
        isinstance(node, str)
        and re.fullmatch(SNAKEYAML_BOOL, node)
        and _plain(doc, path, lines)
    ):
        return node.lower() in _TRUE
    return node


def parse_conf(text: str, path: str) -> SourceDoc | None:
    """Parse one configuration file as the runtime reads it; None for a file with no keys.

    Args:
        text: the decoded file.
        path: the file as the user (or the package) names it.

    Returns:
        The document (a mapping), with SnakeYAML 1.x's booleans; None when
        every line is a comment (as Twister2 ships some files).

    Raises:
        InputError: not YAML, not a mapping, or past a bound of the
            positioned reader; located, and worded for a configuration file.
    """
    if not has_keys(text):
        return None
    try:
        doc = parse_yaml(text, path=path)
    except ConfigError as err:
        raise InputError(
            problems=[
                Problem(
                    p.path,
                    p.line,
                    p.col,
                    "a Twister2 configuration file must be a mapping of keys to values"
                    if "not a mapping" in p.message
                    else p.message.replace(
                        "a job file", "a configuration file"
                    ).replace("job file", "configuration file"),
                    p.json_path,
                )
                for p in err.problems
            ]
        ) from None
    return replace(doc, data=_resolve(doc, doc.data, (), doc.text.splitlines()))


def read_conf_file(
    path: str, *, stdin: IO[bytes] | None = None
) -> tuple[str, SourceDoc | None]:
    """Read one configuration file (``-``: standard input): its text and its document.

    Raises:
        InputError: unreadable, too large, not UTF-8, or see :func:`parse_conf`.
    """
    raw = read_source(
        path, stdin=stdin, limit=MAX_CONF_FILE_BYTES, what=_WHAT, advice=_ADVICE
    )
    text = decode_source(path, raw, what=_WHAT)
    return text, parse_conf(text, path)


def _join(raw: str, directory: Path, name: str) -> str:
    """A file in ``directory`` named relative to the argument ``raw`` the user gave."""
    return str(Path(raw) / directory.relative_to(Path(raw)) / name)


def config_files(paths: Sequence[str]) -> tuple[list[str], list[Problem], list[str]]:
    """Expand files and directories into configuration files, in the runtime's load order.

    A directory holding ``common/`` or ``kubernetes/`` is a configuration root:
    ``common/`` then ``kubernetes/``. Any other directory is one configuration
    directory. A file (or ``-``) is read as it is. Arguments are merged left to right.

    Args:
        paths: files and directories as the user named them.

    Returns:
        The files, problems (a missing path, a directory with no configuration
        file), and the YAML files Twister2 would not read (not in
        :data:`~t2gen.twister2.confkeys.LOAD_ORDER`).
    """
    files: list[str] = []
    problems: list[Problem] = []
    skipped: list[str] = []
    for raw in paths:
        if raw == "-":
            files.append(raw)
            continue
        path = Path(raw)
        if path.is_dir():
            subdirs = [path / name for name in CONF_DIRS if (path / name).is_dir()]
            found = len(files)
            for directory in subdirs or [path]:
                files += [
                    _join(raw, directory, name)
                    for name in LOAD_ORDER
                    if (directory / name).is_file()
                ]
                skipped += sorted(
                    _join(raw, directory, other.name)
                    for other in directory.iterdir()
                    if other.suffix in (".yaml", ".yml")
                    and other.name not in LOAD_ORDER
                )
            if len(files) == found:
                problems.append(
                    Problem(
                        raw,
                        0,
                        0,
                        "holds no Twister2 configuration file: give a configuration root "
                        f"(with {' or '.join(f'{d}/' for d in CONF_DIRS)}) or a directory "
                        f"holding {', '.join(LOAD_ORDER)}",
                    )
                )
        elif path.exists():
            files.append(raw)
        else:
            problems.append(Problem(raw, 0, 0, "no such file or directory"))
    return files, problems, skipped


def directory_files(root: Path, directory: str) -> list[tuple[str, bytes]]:
    """The regular files directly in ``root/directory``, as Twister2 packs them: ``(name, bytes)``.

    ``TarGzipPacker.addDirectoryToArchive`` takes one level only
    (``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/utils/TarGzipPacker.java:210-227``).

    ``root/directory`` may itself be a symbolic link only to a directory inside
    ``root``: one leading elsewhere would pack another directory's files (any
    the user can read) as if they were the configuration's.

    Raises:
        ConfigError: ``root/directory`` leads outside ``root``, more than
            :data:`MAX_CONF_FILES` entries, a symbolic link, or a file that is
            unreadable or larger than :data:`MAX_CONF_FILE_BYTES`.
    """
    folder = root / directory
    if not folder.is_dir():
        return []
    if not folder.resolve().is_relative_to(root.resolve()):
        raise ConfigError(
            path=str(folder),
            message=f"a symbolic link to {folder.resolve()}, outside the configuration root "
            f"{root}: t2gen packs only the root's own files; copy that directory into it",
        )
    entries = sorted(folder.iterdir())
    if len(entries) > MAX_CONF_FILES:
        raise ConfigError(
            path=str(folder),
            message=f"{len(entries)} entries; a Twister2 configuration directory holds a few "
            f"files (at most {MAX_CONF_FILES})",
        )
    files = []
    for entry in entries:
        if entry.is_symlink():
            raise ConfigError(
                path=str(entry),
                message="a symbolic link; copy the file it points to into the configuration "
                "directory (t2gen packages regular files only)",
            )
        if entry.is_dir():
            continue
        raw = read_source(
            str(entry), limit=MAX_CONF_FILE_BYTES, what=_WHAT, advice=_ADVICE
        )
        files.append((entry.name, raw))
    return files


def merge_settings(docs: Iterable[SourceDoc]) -> dict[str, ConfSetting]:
    """Merge parsed files given in load order: a later file's key replaces an earlier one's.

    Returns:
        The top-level keys by name, in load order (a replaced key moves to
        where its last file puts it).
    """
    merged: dict[str, ConfSetting] = {}
    for doc in docs:
        if not isinstance(doc.data, dict):
            continue
        for name, value in doc.data.items():
            line, col = doc.position((name,), key=True)
            merged.pop(name, None)  # re-insert: the later file's order wins
            merged[name] = ConfSetting(name, value, doc.path, line, col, doc)
    return merged


def package_settings(contents: PackageContents) -> dict[str, ConfSetting]:
    """A package's configuration as a pod loads it (each setting's path is ``PACKAGE:MEMBER``).

    ``common/`` then ``kubernetes/``, each in load order; a file that does not
    decode or parse is skipped, as the runtime would fail on it anyway.
    """
    docs = []
    for directory in CONF_DIRS:
        for name in LOAD_ORDER:
            raw = contents.conf_file(f"{directory}/{name}")
            if raw is None:
                continue
            member = f"{contents.path}:twister2-job/{directory}/{name}"
            try:
                doc = parse_conf(decode_source(member, raw, what=_WHAT), member)
            except InputError:
                continue
            if doc is not None:
                docs.append(doc)
    return merge_settings(docs)
