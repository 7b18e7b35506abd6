"""Import a Twister2 configuration directory (or YAML files) as a t2gen job file.

The files are read and merged in Twister2's load order (:mod:`.read`); the merged
keys are converted by the key table (:mod:`t2gen.importer.keys`), one part of the
job per module (:mod:`.job`, :mod:`.workers`, :mod:`.placement`, :mod:`.network`,
:mod:`.ports`, :mod:`.job_master`, :mod:`.storage`); the job file written
(:mod:`.emit`) has one comment per field naming the Twister2 key and the file:line
it came from. Semantics that differ are converted or warned about, keys with no
t2gen equivalent are listed (:mod:`.report`), and the result is validated like any
job file, with every problem located at the Twister2 key that caused it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import IO, Any

from t2gen.errors import Problem, SchemaError, format_json_path
from t2gen.importer.emit import dump, header, ordered
from t2gen.importer.job import convert_image, convert_metadata, convert_package
from t2gen.importer.job_master import convert_job_master
from t2gen.importer.keys import Use
from t2gen.importer.model import ImportResult, ImportWarning, Origin, Twister2Config
from t2gen.importer.network import convert_mpi, convert_network
from t2gen.importer.placement import convert_placement
from t2gen.importer.ports import port_name
from t2gen.importer.read import load_config_files
from t2gen.importer.report import footer, list_unmapped
from t2gen.importer.state import Conversion, resolve
from t2gen.importer.storage import convert_checkpointing, convert_storage
from t2gen.importer.workers import convert_binding, convert_workers
from t2gen.inputs.jobfile import parse_job
from t2gen.jobfile.rules import RuleOptions

__all__ = ["convert", "import_config", "needs_package_size", "port_name"]


def convert(
    config: Twister2Config,
    *,
    job_name: str | None = None,
    jar_file: str | None = None,
) -> ImportResult:
    """Convert a merged Twister2 configuration into a t2gen job file.

    Args:
        config: the merged configuration (:func:`load_config_files`).
        job_name: the job name, overriding ``twister2.job.id``.
        jar_file: the job jar's file name (``twister2 submit`` takes it on its command line).

    Returns:
        The job, its text with comments, and the warnings.

    Raises:
        SchemaError: reading problems, keys of the wrong type, unknown Kubernetes keys,
            no Kubernetes keys at all, or a job that t2gen would refuse; each problem is
            at the Twister2 key that caused it (``file:line:col``).
    """
    conv = Conversion(config)
    conv.problems += config.problems
    resolve(conv)
    if config.problems:  # a file could not be read: the missing keys would only mislead
        raise SchemaError(problems=conv.problems)
    relevant = [
        name
        for name, (setting, _) in conv.values.items()
        if setting.key is not None
        and setting.key.use is Use.FIELD
        and name not in ("twister2.job.id", "twister2.resource.job.name")
    ]
    if not relevant and not conv.problems:
        where = config.files[0] if config.files else "-"
        raise SchemaError(
            problems=[
                Problem(
                    where,
                    0,
                    0,
                    f"no Kubernetes keys in {', '.join(config.files) or 'the arguments'}: "
                    "import a Twister2 configuration directory holding kubernetes/resource.yaml, or files with "
                    "keys such as twister2.resource.worker.compute.resources",
                )
            ]
        )
    convert_metadata(conv, job_name)
    convert_image(conv)
    convert_workers(conv)
    convert_binding(conv)
    convert_placement(conv)
    convert_network(conv)
    convert_job_master(conv)
    convert_storage(conv)
    convert_checkpointing(conv)
    convert_mpi(conv)
    convert_package(conv, jar_file)
    list_unmapped(conv)
    if conv.problems:
        raise SchemaError(problems=conv.problems)
    job = ordered(conv.job)
    body = dump(job, conv.comments)
    _check_job(conv, body)
    return ImportResult(
        job=job,
        text=header(config) + body + footer(conv),
        warnings=tuple(sorted(conv.warnings, key=ImportWarning.sort_key)),
        unmapped=tuple(sorted(conv.unmapped, key=ImportWarning.sort_key)),
        agree=tuple(sorted(conv.agree, key=ImportWarning.sort_key)),
        files=config.files,
    )


_JOB_FILE_LINE = r"\b(at )?line (\d+)\b"
"""A message's reference to a line of the job file (``at line 23``, ``(line 23)``)."""


def needs_package_size(job: dict[str, Any]) -> bool:
    """Whether the imported job is ``client-to-pods`` without ``fileSize``: its size is the package's.

    No Twister2 configuration holds the package's size (Twister2's client
    measures the package it has just built, ``RequestObjectBuilder.java``
    ``getCommonEnvVars``), so such a job is checked as ``render --package``
    checks it (rule ``package-file-size`` takes the size from the package) and
    the import's note says to write ``jobPackage.fileSize`` or give
    ``--package FILE`` (:func:`t2gen.importer.job._package_source_note`).
    """
    spec = job.get("spec")
    package = spec.get("jobPackage") if isinstance(spec, dict) else None
    return (
        isinstance(package, dict)
        and package.get("uploadMethod") == "client-to-pods"
        and "fileSize" not in package
    )


def _check_job(conv: Conversion, text: str) -> None:
    """Validate the imported job; raise with each problem at the Twister2 key behind it.

    A problem is placed at the Twister2 key its field came from (or, for a
    field with none, where the missing key would go: :meth:`Conversion.missing`),
    and a message that cites another line of the job file (a rule naming the
    ``In`` list it counted) cites that field's Twister2 file and line instead:
    the job file is the import's own, not a file the user has.
    """
    from t2gen.pipeline.load import validate

    doc = parse_job(text, path="<import>")
    try:
        validate(doc, options=RuleOptions(package=needs_package_size(conv.job)))
    except SchemaError as err:
        by_path = {
            format_json_path(where): origin for where, origin in conv.origins.items()
        }
        by_line: dict[int, Origin] = {}
        for where, (_, origin) in conv.origins.items():
            if origin is not None:
                by_line.setdefault(doc.position(where)[0], origin)

        def cite(match: re.Match[str]) -> str:
            origin = by_line.get(int(match[2]))
            if origin is None:
                return "elsewhere in the imported job file"
            return f"{match[1] or ''}{origin.path}:{origin.line}"

        problems = []
        for problem in err.problems:
            json_path = problem.json_path
            probe = json_path
            while probe and probe not in by_path:
                probe = re.sub(r"(\[\d+\]|\.?[^.\[]+)$", "", probe)
            key, origin = by_path.get(probe, ("", None))
            message = re.sub(
                _JOB_FILE_LINE,
                cite,
                f"becomes {json_path or 'the job'}, which t2gen refuses: {problem.message}",
            )
            if origin is None:
                target = conv.missing(message, *([key] if key else []))
                problems.append(target)
            else:
                problems.append(
                    Problem(origin.path, origin.line, origin.col, message, key)
                )
        raise SchemaError(problems=problems) from None


def import_config(
    paths: Sequence[str],
    *,
    job_name: str | None = None,
    jar_file: str | None = None,
    stdin: IO[bytes] | None = None,
) -> ImportResult:
    """Read Twister2 configuration directories or files and convert them to a job file.

    Args:
        paths: configuration roots (holding ``common/`` and ``kubernetes/``),
            configuration directories, or YAML files; ``-`` reads standard input.
            Merged left to right.
        job_name: the job name, overriding ``twister2.job.id``.
        jar_file: the job jar's file name.
        stdin: the stream read for ``-``.

    Returns:
        The imported job (:class:`ImportResult`).

    Raises:
        SchemaError: every problem found, each at ``file:line:col``.
    """
    return convert(
        load_config_files(paths, stdin=stdin), job_name=job_name, jar_file=jar_file
    )
