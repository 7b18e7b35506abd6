"""Writers of rendered objects, which arrive checked and in install order.

* :mod:`t2gen.output.stream`: standard output: one YAML stream (as
  ``kubectl`` reads it), Helm-escaped YAML (``--format helm``), a JSON ``List``
  (``--format json``);
* :mod:`t2gen.output.directory`: a kustomize directory (``-o DIR``), swapped in
  whole by :mod:`t2gen.output.atomicdir` (one writer at a time, recovery after
  a kill).

This module holds only :func:`write_stdout`, which every command that prints
uses, so it imports nothing but ``sys``.
"""

from __future__ import annotations

import sys

__all__ = ["write_stdout"]


def write_stdout(text: str) -> None:
    """Write UTF-8 text with LF line ends to stdout, whatever the locale."""
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()
