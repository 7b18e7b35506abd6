"""``t2gen package``: the Twister2 job package (``<job>.tar.gz``) that ``twister2 submit`` would build."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from t2gen.cli._options import Namespace
from t2gen.cli.packaging import run_package

__all__ = ["EPILOG", "package"]

EPILOG = (
    "Examples:\n\n"
    "  t2gen package job.yaml --jar wordcount.jar\n\n"
    "  t2gen package job.yaml --jar build/libs/wordcount.jar --oci wordcount-oci\n\n"
    "  t2gen package job.yaml --jar wordcount.jar --conf twister2/conf -n analytics\n\n"
    "  t2gen render job.yaml --package wordcount.tar.gz | kubectl apply -f -"
)


def package(
    job: Annotated[
        str,
        typer.Argument(help="The job file (YAML or JSON).", metavar="JOB"),
    ],
    jar: Annotated[
        str,
        typer.Option(
            "--jar", help="The job's jar, with its worker class.", metavar="FILE"
        ),
    ],
    conf: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--conf",
            help="A Twister2 configuration directory (holding common/ and kubernetes/) to pack; "
            "every key that must agree with the manifests is set from the job file, each change "
            "printed. Without it: the smallest configuration the runtime needs.",
            metavar="DIR",
        ),
    ] = None,
    namespace: Namespace = None,
    output_file: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--output-file",
            help="Where to write the package (default: <job>.tar.gz here); written whole or "
            "not at all, never over an input, and over an existing file only if t2gen wrote "
            "it; a symbolic link is written through to such a file; devices, FIFOs and "
            "dangling links are refused.",
            metavar="FILE",
        ),
    ] = None,
    oci: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--oci",
            help="Also write the package as an OCI artifact in an OCI image layout DIR "
            "(oci-layout, index.json, blobs/), ready for oras, skopeo or crane to push; "
            "its digest is what jobPackage.source.oci names. Written whole or not at all; "
            "an existing DIR is replaced only if it is empty or a layout t2gen wrote.",
            metavar="DIR",
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Replace the output file even if t2gen did not write it (never an input, "
            "a device, FIFO, socket or dangling link).",
        ),
    ] = False,
) -> None:
    """Build the job package every pod of the job downloads.

    The package holds twister2-job/<job>.job (the Twister2 job description,
    as Twister2Job.serialize() writes it), the jar and the configuration the
    runtime loads, agreeing with what `t2gen render` makes of the same job
    file. The same inputs give the same bytes. Configuration changes, the
    package's SHA-256 and size, and the delivery step (with --oci: the push
    commands and the digest to write into the job file) go to stderr.
    """
    code = run_package(
        job,
        jar=jar,
        conf=conf,
        namespace=namespace,
        output_file=output_file,
        oci=oci,
        force=force,
    )
    if code:
        raise typer.Exit(code)
