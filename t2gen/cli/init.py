"""``t2gen init``: print the commented starter job file (``templates/init/twister2job.yaml``)."""

from __future__ import annotations

from pathlib import Path

from t2gen.cli._report import reporting, write_stdout

__all__ = ["EPILOG", "init"]

EPILOG = "Example:\n\n  t2gen init > job.yaml && t2gen render job.yaml"


def init() -> None:
    """Print a commented starter job file that validates and renders as it is."""
    with reporting():
        from t2gen.resources import starter_job_path

        write_stdout(Path(starter_job_path()).read_text(encoding="utf-8"))
