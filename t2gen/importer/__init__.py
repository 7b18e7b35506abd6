"""``t2gen import``: Twister2 configuration directories and files to a t2gen job file."""

from __future__ import annotations

from t2gen.importer.convert import convert, import_config
from t2gen.importer.model import ImportResult, ImportWarning, Origin, Twister2Config
from t2gen.importer.read import load_config_files
from t2gen.importer.report import report_lines

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
