"""``render --job-object FILE``: a serialized Twister2 ``Job`` object, as bytes.

Input bound: :data:`MAX_JOB_OBJECT_BYTES` (1 MiB), measured while reading; the
ConfigMap that carries it base64-encoded then holds at most
:data:`t2gen.twister2.jobobject.JOB_OBJECT_MAX_BYTES`, which
:func:`~t2gen.twister2.jobobject.check_job_object` judges. Parser: none (the
bytes are carried as they are). Errors: :class:`~t2gen.errors.ConfigError`
naming the file.
"""

from __future__ import annotations

from t2gen.inputs.textfile import read_source
from t2gen.twister2.jobobject import check_job_object

__all__ = ["MAX_JOB_OBJECT_BYTES", "read_job_object"]

MAX_JOB_OBJECT_BYTES = 1024 * 1024
"""Largest ``--job-object`` file read (1 MiB): base64-encoded, a larger one cannot fit a ConfigMap."""


def read_job_object(path: str) -> bytes:
    """Read ``--job-object``'s file (``-``: standard input) and check that it fits the ConfigMap.

    Raises:
        ConfigError: unreadable, larger than :data:`MAX_JOB_OBJECT_BYTES`, or
            too large once base64-encoded.
    """
    raw = read_source(
        path,
        limit=MAX_JOB_OBJECT_BYTES,
        what="job object file",
        advice="base64-encoded, the job object must fit the ConfigMap (1 MiB)",
    )
    return check_job_object(path, raw)
