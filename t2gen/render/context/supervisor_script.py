"""The supervisor's script (``templates/lifecycle/supervise.sh``), as t2gen ships it.

The script runs in the supervisor's pod (:mod:`t2gen.render.context.supervisor`)
from the ConfigMap ``<job>-supervisor``, under the key :data:`SCRIPT_KEY`;
docs/lifecycle.md says what it does.
"""

from __future__ import annotations

import functools
from pathlib import Path

from t2gen.resources import data_dir

__all__ = ["SCRIPT_BOUND", "SCRIPT_KEY", "supervisor_script"]

SCRIPT_KEY = "supervise.sh"
"""The script's file name: its key in the ConfigMap and its name in the pod."""
SCRIPT_BOUND = 64 * 1024
"""The largest script t2gen ships (a ConfigMap value is at most 1 MiB in all)."""


@functools.cache
def supervisor_script() -> str:
    """The supervisor's POSIX shell script (``templates/lifecycle/supervise.sh``), packaged with t2gen.

    Raises:
        T2genError: t2gen is installed without its templates (a broken installation).
        ValueError: the script is larger than 64 KiB (a t2gen bug).
    """
    text = Path(data_dir("templates"), "lifecycle", SCRIPT_KEY).read_text(
        encoding="utf-8"
    )
    if len(text) > SCRIPT_BOUND:
        raise ValueError(f"the supervisor script is larger than {SCRIPT_BOUND} bytes")
    return text
