"""``secret ssh --from-key FILE``: an OpenMPI job's SSH private key, as bytes.

Input bound: :data:`MAX_PRIVATE_KEY_BYTES` (1 MiB), measured while reading (a
key is a few KiB). Parser: ``cryptography``'s OpenSSH and PEM loaders, in
:func:`t2gen.twister2.sshkeys.key_files_from_private_key`, which refuses an
encrypted or unknown key. Errors: :class:`~t2gen.errors.ConfigError` naming
the file.
"""

from __future__ import annotations

from t2gen.inputs.textfile import read_source

__all__ = ["MAX_PRIVATE_KEY_BYTES", "read_private_key"]

MAX_PRIVATE_KEY_BYTES = 1024 * 1024
"""Largest private key file read (1 MiB); an SSH key is a few KiB."""


def read_private_key(path: str) -> bytes:
    """Read a private key file's bytes (``-``: standard input), within :data:`MAX_PRIVATE_KEY_BYTES`.

    Raises:
        ConfigError: unreadable, not a regular file, or too large.
    """
    return read_source(
        path,
        limit=MAX_PRIVATE_KEY_BYTES,
        what="private key file",
        advice="an SSH private key is a few KiB",
    )
