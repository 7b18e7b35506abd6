"""``t2gen schema``: print the job file's JSON Schema."""

from __future__ import annotations

from pathlib import Path

from t2gen.cli._report import reporting, write_stdout

__all__ = ["EPILOG", "schema"]

EPILOG = "Example:\n\n  t2gen schema > twister2job.schema.json"


def schema() -> None:
    """Print the job file's JSON Schema (draft 2020-12), for editors and pre-commit."""
    with reporting():
        from t2gen.resources import schema_path

        write_stdout(Path(schema_path()).read_text(encoding="utf-8"))
