"""``t2gen import``: a Twister2 configuration directory (or YAML files) as a t2gen job file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from t2gen.cli._report import reporting, warn, write_stdout
from t2gen.cli.commands import echo
from t2gen.inputs.yaml import JsonPath

__all__ = ["EPILOG", "import_"]

EPILOG = (
    "Examples:\n\n"
    "  t2gen import ~/twister2-0.8.0/conf > job.yaml\n\n"
    "  t2gen import examples/twister2-conf --jar wordcount.jar | t2gen render -\n\n"
    "  t2gen import conf/kubernetes/resource.yaml conf/kubernetes/network.yaml --output-file job.yaml"
)


def _checked(where: JsonPath, value: Optional[str]) -> Optional[str]:  # noqa: UP045 - Typer reads the annotation at run time
    """Refuse an option value the job file would refuse at ``where``.

    Raises:
        typer.BadParameter: t2gen refuses the value (a usage error, exit code 2),
            with the job file's own message.
    """
    if value is None:
        return value
    from t2gen.importer.job import refusal

    why = refusal(where, value)
    if why is not None:
        raise typer.BadParameter(why)
    return value


def _check_name(value: Optional[str]) -> Optional[str]:  # noqa: UP045 - Typer reads the annotation at run time
    """``--name`` is a job name (metadata.name)."""
    from t2gen.importer.job import JOB_NAME_FIELD

    return _checked(JOB_NAME_FIELD, value)


def _check_jar(value: Optional[str]) -> Optional[str]:  # noqa: UP045 - Typer reads the annotation at run time
    """``--jar`` is the job's jar, as for ``t2gen package``: a path, whose file name is spec.jobPackage.jarFile."""
    from pathlib import PurePath

    from t2gen.importer.job import JAR_FILE_FIELD

    return _checked(JAR_FILE_FIELD, PurePath(value).name if value else value)


def import_(
    paths: Annotated[
        list[str],
        typer.Argument(
            help="A Twister2 configuration root (holding common/ and kubernetes/), a "
            "configuration directory, or YAML files; merged left to right in Twister2's "
            "load order. `-` reads one file from standard input.",
            metavar="PATH...",
        ),
    ],
    output_file: Annotated[
        Optional[Path],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--output-file",
            help="Write the job file here (atomically) instead of standard output. An existing "
            "file is replaced only if `t2gen import` wrote it (its first line), a symbolic link "
            "only written through to such a file; devices, FIFOs and dangling links are refused.",
            dir_okay=False,
            metavar="FILE",
        ),
    ] = None,
    deprecated_output: Annotated[
        Optional[Path],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--output",
            "-o",
            help="Deprecated spelling of --output-file (-o is an output format elsewhere).",
            dir_okay=False,
            metavar="FILE",
            hidden=True,
        ),
    ] = None,
    name: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--name",
            callback=_check_name,
            help="The job name (metadata.name), overriding twister2.job.id.",
            metavar="NAME",
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Replace the --output-file even if t2gen did not write it (never a "
            "device, FIFO, socket or dangling link).",
        ),
    ] = False,
    jar: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--jar",
            callback=_check_jar,
            help="The job's jar, as `t2gen package --jar` takes it (a path; it need not "
            "exist here): its file name becomes spec.jobPackage.jarFile. Twister2 takes "
            "the jar from `twister2 submit`'s command line, not from the configuration.",
            metavar="FILE",
        ),
    ] = None,
) -> None:
    """Convert a Twister2 configuration to a t2gen job file.

    Files are read as Twister2 reads them: common/ first, then kubernetes/, and
    in each the task, resource, network, core, data and checkpoint files, a
    later key replacing an earlier one. Twister2 0.8 key names and the older
    names (legacy aliases) are both accepted. Each field of the job file names
    the Twister2 key it came from.

    Semantics that differ (instances count pods, ram is MB per worker, job
    master heap) are converted and warned about; node and uniform mapping go
    to worker group 0 only, as Twister2 applies them; keys with no t2gen equivalent and keys the runtime also reads from
    the job package are listed. Warnings go to standard error (exit code 0) and
    are repeated as comments at the end of the job file. The job file is
    validated before it is written: errors name the Twister2 file:line:col
    behind them (exit code 1, nothing written). A client-to-pods job is
    validated as with --package, since no configuration holds the package's
    size: a warning says to write jobPackage.fileSize or give --package FILE.
    """
    if deprecated_output is not None:
        if output_file is not None:
            raise typer.BadParameter(
                "give the job file once: --output-file FILE",
                param_hint="'--output' / '-o'",
            )
        warn(
            [
                f"-o {deprecated_output} is deprecated for import (-o is the output format "
                f"elsewhere, as in kubectl): use --output-file {deprecated_output}"
            ]
        )
    output = output_file if output_file is not None else deprecated_output
    if force and output is None:
        raise typer.BadParameter(
            "--force lets --output-file replace a file t2gen did not write; standard "
            "output replaces nothing: drop --force, or add --output-file FILE",
            param_hint="'--force'",
        )
    with reporting():
        from t2gen.importer import import_config, report_lines

        result = import_config(paths, job_name=name, jar_file=jar)
        if output is None:
            write_stdout(result.text)
        else:
            from t2gen.importer.emit import HEADER_MARKER
            from t2gen.output.files import write_file

            write_file(
                output, result.text, marker=HEADER_MARKER, force=force, inputs=paths
            )
        for line in report_lines(result.warnings, result.unmapped, result.agree):
            echo(line, err=True)
        if output is not None:
            echo(f"wrote {output}", err=True)
