"""Which files are job files: what ``t2gen find`` prints and ``render -f DIR`` reads.

A file is a job file when its top-level mapping says ``kind: Twister2Job`` (or an
``apiVersion`` of ``t2gen/...``), however it is written: a comment after the value,
quoted, JSON, a flow mapping. The file is read as ``render`` reads it
(:func:`t2gen.inputs.jobfile.parse_job`, within the job file's limits), so the
answer is ``render``'s. A file ``render`` refuses to read (a YAML error, Git's
conflict markers, a tag, an anchor, several documents, not UTF-8, larger than 1
MiB) is a job file when the YAML before its first error holds such a key at the
top level of a document: it looks like a job, and ``render`` then says what is
wrong with it, located, instead of leaving it out without a word. Nothing else
is one (another kind, a list, a scalar, an empty file, a Helm template that is
not YAML and names no such kind).

Directories are read as kubectl reads ``-f DIR`` (kubernetes/cli-runtime
``pkg/resource/builder.go``, ``FileExtensions``, and ``pkg/resource/visitor.go``,
``ExpandPathsToFileVisitors``): the files whose names end in ``.json``, ``.yaml``
or ``.yml``, in lexical order, and subdirectories only with ``-R``
(``recursive``); a file named on the command line is read whatever its name.
A link to a directory is not followed (``filepath.Walk`` does not either).
"""

from __future__ import annotations

import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

import yaml

from t2gen.errors import ConfigError, Problem, SchemaError
from t2gen.inputs.jobfile import MAX_JOB_FILE_BYTES as MAX_FILE_BYTES
from t2gen.inputs.jobfile import parse_job
from t2gen.inputs.textfile import decode_source

__all__ = [
    "FILE_EXTENSIONS",
    "JOB_KIND",
    "expand_job_paths",
    "is_job_file",
    "is_job_text",
]

JOB_KIND = "Twister2Job"
"""The ``kind`` of a job file."""

FILE_EXTENSIONS = (".json", ".yaml", ".yml")
"""The files of a directory that are read, as kubectl's ``-f DIR`` reads them."""

_API_GROUP = "t2gen/"

_OPENERS = (
    yaml.BlockMappingStartToken,
    yaml.BlockSequenceStartToken,
    yaml.FlowMappingStartToken,
    yaml.FlowSequenceStartToken,
)
_CLOSERS = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)
_DECORATIONS = (yaml.TagToken, yaml.AnchorToken)


def _names_a_job(key: object, value: object) -> bool:
    """Whether a top-level ``key: value`` says the document is a job file."""
    if key == "kind":
        return value == JOB_KIND
    return (
        key == "apiVersion" and isinstance(value, str) and value.startswith(_API_GROUP)
    )


def _scanned_as_a_job(text: str) -> bool:
    """Whether the YAML tokens before the text's first error name a job at a document's top level.

    Reads libyaml's scanner tokens (no document is built, nothing recurses),
    tracking the nesting of mappings and lists; a ``KEY scalar VALUE scalar``
    run directly inside a document's top-level mapping is a top-level entry.
    """
    depth = 0
    top_is_mapping = False
    entry: list[object] = []  # KEY, key, VALUE, value of the entry being read
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        for token in yaml.scan(text, Loader=loader):
            if isinstance(token, yaml.DocumentStartToken):
                depth, top_is_mapping, entry = 0, False, []
            elif isinstance(token, _OPENERS):
                if depth == 0:
                    top_is_mapping = isinstance(
                        token, (yaml.BlockMappingStartToken, yaml.FlowMappingStartToken)
                    )
                depth += 1
                entry = []
            elif isinstance(token, _CLOSERS):
                depth -= 1
                entry = []
            elif depth == 1 and top_is_mapping and not isinstance(token, _DECORATIONS):
                if isinstance(token, yaml.KeyToken):
                    entry = [token]
                elif entry and len(entry) < 4:
                    entry.append(token)
                    if len(entry) == 4 and _entry_names_a_job(entry):
                        return True
    except yaml.YAMLError:
        pass
    return False


def _entry_names_a_job(entry: list[object]) -> bool:
    """Whether ``KEY scalar VALUE scalar`` tokens say the document is a job file."""
    _, key, value_marker, value = entry
    return (
        isinstance(key, yaml.ScalarToken)
        and isinstance(value_marker, yaml.ValueToken)
        and isinstance(value, yaml.ScalarToken)
        and _names_a_job(key.value, value.value)
    )


def is_job_text(text: str, *, path: str = "<string>") -> bool:
    """Whether a file's text is a job file's, judged as the module docstring says.

    Args:
        text: the text, decoded (a byte that was no UTF-8 replaced).
        path: the file's name, for the reader.

    Returns:
        True for a job file, whether or not it is valid; False for anything else.
    """
    try:
        data = parse_job(text, path=path).data
    except ConfigError:
        return _scanned_as_a_job(
            text
        )  # render cannot read it: does it look like a job?
    return isinstance(data, dict) and any(
        _names_a_job(key, data.get(key)) for key in ("kind", "apiVersion")
    )


def is_job_file(path: str) -> bool:
    """Whether a file is a job file, judged as the module docstring says.

    Args:
        path: a regular file's path.

    Returns:
        True for a job file, whether or not it is valid; False for anything else.

    Raises:
        ConfigError: the file cannot be read (permission denied, an I/O error).
    """
    try:
        with Path(path).open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except PermissionError:
        raise ConfigError(path=path, message="permission denied") from None
    except OSError as err:
        raise ConfigError(
            path=path, message=f"cannot read: {err.strerror or err}"
        ) from None
    if len(raw) > MAX_FILE_BYTES:  # render refuses it: does it look like a job?
        return _scanned_as_a_job(raw[:MAX_FILE_BYTES].decode("utf-8", "replace"))
    try:
        text = decode_source(path, raw)
    except ConfigError:
        return _scanned_as_a_job(raw.decode("utf-8", "replace"))
    return is_job_text(text, path=path)


def _directory_files(directory: Path, recursive: bool) -> Iterator[Path]:
    """The files of a directory kubectl's ``-f DIR`` reads, in lexical order (see the module docstring)."""
    try:
        names = sorted(entry.name for entry in directory.iterdir())
    except PermissionError:
        raise ConfigError(path=str(directory), message="permission denied") from None
    except OSError as err:
        raise ConfigError(
            path=str(directory), message=f"cannot read: {err.strerror or err}"
        ) from None
    for name in names:
        path = directory / name
        mode = path.lstat().st_mode
        if stat.S_ISDIR(mode):
            if recursive:
                yield from _directory_files(path, recursive)
        elif path.suffix in FILE_EXTENSIONS and path.is_file():  # a link to a file too
            yield path


def _exists(path: str) -> bool:
    """Whether a path names anything (a dangling link counts, and is then unreadable)."""
    return Path(path).is_symlink() or Path(path).exists()


def expand_job_paths(
    paths: Sequence[str], *, recursive: bool = False, only_jobs: bool = False
) -> list[str]:
    """The job files that paths name: each file as given, each directory's job files.

    Args:
        paths: files, directories and ``-`` (standard input), as the user gave them.
        recursive: ``-R``: also the job files of every subdirectory.
        only_jobs: also leave out a named file that is no job file (``t2gen find``);
            otherwise a named file is kept whatever it holds, so that ``render``
            says why it is no job.

    Returns:
        The paths, directories replaced by their job files (``DIR/NAME``, in
        lexical order); ``-`` is kept as it is.

    Raises:
        SchemaError: a path does not exist, a directory or one of its files cannot
            be read, or (unless ``only_jobs``) a directory holds no job file;
            every such problem of every path.
    """
    found: list[str] = []
    problems: list[Problem] = []
    for given in paths:
        try:
            found += _expand(given, recursive=recursive, only_jobs=only_jobs)
        except ConfigError as err:
            problems += err.problems
    if problems:
        raise SchemaError(problems=problems)
    return found


def _expand(given: str, *, recursive: bool, only_jobs: bool) -> list[str]:
    """:func:`expand_job_paths` of one path."""
    if given == "-" or (not only_jobs and not Path(given).is_dir()):
        return [given]
    if not _exists(given):
        raise ConfigError(path=given, message="no such file or directory")
    if not Path(given).is_dir():
        if not Path(given).is_file():
            raise ConfigError(
                path=given, message="not a regular file (a pipe, socket or device)"
            )
        return [given] if is_job_file(given) else []
    jobs = [
        str(path)
        for path in _directory_files(Path(given), recursive)
        if is_job_file(str(path))
    ]
    if not jobs and not only_jobs:
        where = "in this directory or below it" if recursive else "in this directory"
        raise ConfigError(
            path=given,
            message=f"no job file {where} (a {', '.join(FILE_EXTENSIONS)} file of kind "
            f"{JOB_KIND})"
            + ("" if recursive else "; -R also reads its subdirectories"),
        )
    return jobs
