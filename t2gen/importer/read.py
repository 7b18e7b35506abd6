"""Read Twister2 configuration for ``t2gen import``: merged settings, and keys shown only in comments.

The files are found and read by the one reader of Twister2 configuration
(:mod:`t2gen.inputs.twister2conf`: the runtime's load order, SnakeYAML's
booleans, every key located), so that each finding can name its
``file:line:col``. Keys shown only in comments (``#
twister2.resource.worker.compute.resources:``, as Twister2 ships them) are
noted too, so that a missing key is reported where the user would uncomment it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import IO

from t2gen.errors import InputError
from t2gen.importer.keys import lookup
from t2gen.importer.model import CommentedKey, Origin, Setting, Twister2Config
from t2gen.inputs.twister2conf import config_files, merge_settings, read_conf_file
from t2gen.inputs.yaml import SourceDoc

__all__ = ["commented_keys", "load_config_files"]

_COMMENTED_KEY = r"#( *)([A-Za-z][A-Za-z0-9_.\-]*):(?: |$)"
"""A comment line ``# key:`` or ``# key: value``; group 1 is the indentation after ``#``."""


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
    docs: list[SourceDoc] = []
    commented: dict[str, CommentedKey] = {}
    for path in files:
        try:
            text, doc = read_conf_file(path, stdin=stdin)
        except InputError as err:
            problems += err.problems
            continue
        commented.update(commented_keys(path, text))
        if doc is not None:
            docs.append(doc)
    settings = {
        name: Setting(name, lookup(name), s.value, Origin(s.path, s.line, s.col), s.doc)
        for name, s in merge_settings(docs).items()
    }
    return Twister2Config(tuple(files), settings, tuple(problems), commented)
