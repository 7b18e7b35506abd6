"""Read Twister2 configuration files and directories, and merge them in Twister2's load order.

The files are read the way Twister2's ConfigLoader reads them
(``twister2/common/src/java/edu/iu/dsc/tws/common/config/ConfigLoader.java``):
``common/`` first, then ``kubernetes/``, and within each directory task, resource,
network, core, data and checkpoint, a later top-level key replacing an earlier one.
Every key keeps its position, so that each finding can name its ``file:line:col``;
keys shown only in comments (``# twister2.resource.worker.compute.resources:``,
as Twister2 ships them) are noted too, so that a missing key is reported where
the user would uncomment it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from t2gen.errors import ConfigError, Problem, SchemaError
from t2gen.importer.keys import CONF_DIRS, LOAD_ORDER, lookup
from t2gen.importer.model import CommentedKey, Origin, Setting, Twister2Config
from t2gen.importer.snakeyaml import with_snakeyaml_booleans
from t2gen.jobfile.yaml import SourceDoc, parse_job
from t2gen.textfile import decode_source, read_source

__all__ = ["commented_keys", "config_files", "load_config_files"]

_COMMENTED_KEY = r"#( *)([A-Za-z][A-Za-z0-9_.\-]*):(?: |$)"
"""A comment line ``# key:`` or ``# key: value``; group 1 is the indentation after ``#``."""


def config_files(paths: Sequence[str]) -> tuple[list[str], list[Problem], list[str]]:
    """Expand import arguments into files in Twister2's load order.

    A directory holding ``common/`` or ``kubernetes/`` is a configuration root:
    ``common/`` then ``kubernetes/``. Any other directory is one configuration
    directory. A file (or ``-``) is read as it is. Arguments are merged left to right.

    Args:
        paths: files and directories as the user named them.

    Returns:
        The files, problems (a missing path), and notes about YAML files Twister2
        would not read (not in :data:`t2gen.importer.keys.LOAD_ORDER`).
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


def _join(raw: str, directory: Path, name: str) -> str:
    """A file in ``directory`` named relative to the argument ``raw`` the user gave."""
    return str(Path(raw) / directory.relative_to(Path(raw)) / name)


def _parse(path: str, text: str) -> SourceDoc | None:
    """Parse one configuration file; None for a file with no keys (only comments)."""
    if not any(
        line.strip() and not line.lstrip().startswith(("#", "---", "..."))
        for line in text.splitlines()
    ):
        return None
    try:
        return with_snakeyaml_booleans(parse_job(text, path=path))
    except ConfigError as err:
        problems = [
            Problem(
                p.path,
                p.line,
                p.col,
                "a Twister2 configuration file must be a mapping of keys to values"
                if "not a mapping" in p.message
                else p.message.replace("a job file", "a configuration file").replace(
                    "job file", "configuration file"
                ),
                p.json_path,
            )
            for p in err.problems
        ]
        raise SchemaError(problems=problems) from None


def commented_keys(path: str, text: str) -> dict[str, CommentedKey]:
    """The known keys a configuration file shows only in comments, at their first such line.

    Args:
        path: the file as the user named it.
        text: its text.

    Returns:
        Each known key (:func:`t2gen.importer.keys.lookup`) written as a
        commented-out ``# key:`` line, with where its commented value ends.
    """
    found: dict[str, CommentedKey] = {}
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        stripped = line.lstrip()
        match = re.match(_COMMENTED_KEY, stripped)
        if match is None or match[2] in found or lookup(match[2]) is None:
            continue
        indent = len(match[1])
        end = number
        for later in lines[number:]:
            rest = later.lstrip()
            body = rest[1:]
            if not rest.startswith("#") or not body.strip():
                break
            if len(body) - len(body.lstrip(" ")) <= indent:
                break
            end += 1
        col = len(line) - len(stripped) + 2 + indent
        found[match[2]] = CommentedKey(Origin(path, number, col), end)
    return found


def load_config_files(
    paths: Sequence[str], *, stdin: IO[bytes] | None = None
) -> Twister2Config:
    """Read and merge Twister2 configuration files and directories.

    Args:
        paths: configuration roots, directories or YAML files (``-`` for stdin).
        stdin: the stream read for ``-``.

    Returns:
        The merged configuration; reading problems are in ``problems``.
    """
    files, problems, _ = config_files(paths)
    settings: dict[str, Setting] = {}
    commented: dict[str, CommentedKey] = {}
    for path in files:
        try:
            raw = read_source(
                path,
                stdin=stdin,
                what="Twister2 configuration file",
                advice="Twister2's configuration files are a few KiB each",
            )
            text = decode_source(path, raw, what="Twister2 configuration file")
            commented.update(commented_keys(path, text))
            doc = _parse(path, text)
        except (ConfigError, SchemaError) as err:
            problems += err.problems
            continue
        if doc is None:
            continue
        for name, value in doc.data.items():
            line, col = doc.position((name,), key=True)
            settings.pop(name, None)  # re-insert: the later file's order wins
            settings[name] = Setting(
                name, lookup(name), value, Origin(path, line, col), doc
            )
    return Twister2Config(tuple(files), settings, tuple(problems), commented)
