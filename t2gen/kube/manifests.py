"""Read any Kubernetes manifests (``t2gen check``): YAML streams or JSON, ``List`` kinds unwrapped."""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

from t2gen.errors import ConfigError, SchemaError
from t2gen.problems import Problem

__all__ = ["read_manifests"]


def read_manifests(
    paths: Sequence[str], *, stdin: IO[bytes] | None = None
) -> list[dict[str, Any]]:
    """Read every object of some manifest files.

    Each file is UTF-8 (a BOM is allowed) holding a YAML stream or JSON; empty
    documents are skipped and the ``items`` of a ``List`` are read as objects.

    Args:
        paths: files; ``-`` reads standard input.
        stdin: the stream read for ``-`` (default ``sys.stdin.buffer``).

    Returns:
        The objects, in file and document order.

    Raises:
        SchemaError: any file is unreadable, not UTF-8, not YAML, or holds a
            document that is not a mapping; holds the problems of every file.
    """
    import yaml

    from t2gen.jobfile.loader import read_source
    from t2gen.kube.yamlio import load_all_yaml

    objects: list[dict[str, Any]] = []
    problems: list[Problem] = []
    for path in paths:
        try:
            text = read_source(path, stdin=stdin).decode("utf-8-sig")
            documents = load_all_yaml(text)
        except ConfigError as err:
            problems += err.problems
            continue
        except UnicodeDecodeError as err:
            problems.append(Problem(path, 0, 0, f"not UTF-8 text ({err.reason})"))
            continue
        except yaml.YAMLError as err:
            mark = getattr(err, "problem_mark", None)
            line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
            problems.append(
                Problem(
                    path,
                    line,
                    col,
                    f"not valid YAML: {getattr(err, 'problem', None) or err}",
                )
            )
            continue
        for index, document in enumerate(documents):
            if document is None:
                continue
            if not isinstance(document, dict):
                problems.append(
                    Problem(
                        path, 0, 0, f"document {index + 1} is not a Kubernetes object"
                    )
                )
            elif document.get("kind") == "List" and isinstance(
                document.get("items"), list
            ):
                objects += [
                    item for item in document["items"] if isinstance(item, dict)
                ]
            else:
                objects.append(document)
    if problems:
        raise SchemaError(problems=problems)
    return objects
