"""What ``t2gen package`` does once its arguments are parsed, without Typer.

The Typer command (:mod:`t2gen.cli.package`) calls :func:`run_package` after
parsing; :mod:`t2gen.cli.launch` calls it directly for ``package JOB --jar
FILE`` (with at most ``--output-file`` and ``--conf``): importing Typer and
building its command tree was most of the CPU of packaging a 10 MB jar
(``bench/package_bench.py``). Both paths run this code and report through
:func:`t2gen.cli.commands.run`, so they print the same bytes and exit with the
same code (``tests/cli/test_launch.py``).
"""

from __future__ import annotations

from t2gen.cli.commands import echo, run
from t2gen.errors import Warning_

__all__ = ["run_package"]


def run_package(
    job: str,
    *,
    jar: str,
    conf: str | None = None,
    namespace: str | None = None,
    output_file: str | None = None,
    oci: str | None = None,
    force: bool = False,
) -> int:
    """``t2gen package`` once its options are checked; see :func:`run`.

    Args:
        job: the job file.
        jar: ``--jar``: the job's jar, streamed into the package.
        conf: ``--conf``: a Twister2 configuration directory, or None.
        namespace: ``--namespace``.
        output_file: ``--output-file``; None: ``<job>.tar.gz`` here.
        oci: ``--oci DIR``: also write the package as an OCI image layout.
        force: ``--force``: replace an output file t2gen did not write.

    Configuration changes, the package's size and SHA-256 and the delivery
    step go to stderr; nothing to stdout.
    """

    def body(warnings: list[Warning_]) -> None:
        from pathlib import Path

        from t2gen.inputs.jobfile import read_job
        from t2gen.jobfile.rules import RuleOptions
        from t2gen.output.files import replaceable_target
        from t2gen.package.build import build_package, delivery
        from t2gen.package.delivery import built_warnings, oci_delivery
        from t2gen.package.write import GZIP_HEADER
        from t2gen.pipeline.load import validate

        doc = read_job(job)
        # the package being built supplies the sizes a job file may leave out
        loaded = validate(
            doc,
            namespace=namespace,
            warnings=warnings,
            options=RuleOptions(package=True),
        )
        # The one rule of every path t2gen writes (t2gen/output/files.py).
        target = replaceable_target(
            Path(output_file or f"{loaded.name}.tar.gz"),
            marker=GZIP_HEADER,
            force=force,
            inputs=[job, *(x for x in (jar, conf) if x is not None)],
        )
        if oci is not None:
            from t2gen.output.ocilayout import check_oci_layout_target

            # before the package is written: a refused DIR leaves nothing behind
            check_oci_layout_target(Path(oci))
        built = build_package(loaded, doc, jar=jar, conf=conf, output=str(target))
        lines = [str(change) for change in built.changes]
        lines.append(f"wrote {built.path}: {built.size} bytes, sha256 {built.sha256}")
        warnings += built_warnings(loaded, doc, built)
        if oci is not None:
            from t2gen.output.ocilayout import write_oci_layout
            from t2gen.package.oci import artifact

            art = artifact(loaded.name, f"sha256:{built.sha256}", built.size)
            write_oci_layout(Path(oci), art, Path(built.path))
            lines += oci_delivery(loaded, built, oci, art.digest)
        else:
            lines += delivery(loaded, built)
        for line in lines:
            echo(line, err=True)

    return run(body)
