"""``t2gen import``: Twister2 configuration directories and files to a t2gen job file."""

from __future__ import annotations

from t2gen.importer.convert import (
    ImportResult,
    ImportWarning,
    Origin,
    Twister2Config,
    convert,
    import_config,
    load_config_files,
    report_lines,
)

__all__ = [
    "ImportResult",
    "ImportWarning",
    "Origin",
    "Twister2Config",
    "convert",
    "import_config",
    "load_config_files",
    "report_lines",
]
