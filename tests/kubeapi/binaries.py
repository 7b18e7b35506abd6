"""Where the real control plane's binaries come from: ``KUBEBUILDER_ASSETS``, or the shared copy beside the repository.

``KUBEBUILDER_ASSETS`` is the conventional variable that names a directory of
Kubernetes test binaries (controller-runtime's envtest,
https://book.kubebuilder.io/reference/envtest.html). Without it, the binaries
packed in ``../shared/kube/bin/`` (``*.xz`` and ``SHA256SUMS``, found from the
repository's root: the one place outside itself the project may read) are
unpacked once into ``KUBE_BIN`` (default: a directory of the system's
temporary directory, shared by every test process and worktree of the user)
and checked against their digests. Neither there: the tier is skipped, and
:func:`find` says why.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import lzma
import os
import shutil
import sys
import tempfile
from pathlib import Path

from tests.conftest import ROOT

SHARED = ROOT.parent / "shared" / "kube"
"""The repository's sibling holding the packed control plane (``kube-up``'s directory)."""
API_SERVER = "kube-apiserver"
ETCDS = ("kube-etcd", "etcd")
"""``kube-etcd DATA CLIENT_PORT PEER_PORT`` (the shared build), or envtest's ``etcd`` with flags."""
CONTROLLERS = ("kube-controller-manager", "kube-scheduler")


class Binaries:
    """A directory of control-plane binaries: ``path``, ``etcd`` (its name there), ``controllers`` (both present)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.etcd = next(name for name in ETCDS if (path / name).is_file())
        self.controllers = all((path / name).is_file() for name in CONTROLLERS)


def find() -> Binaries | str:
    """The binaries to run, or why there are none (the skip reason)."""
    assets = os.environ.get("KUBEBUILDER_ASSETS")
    if assets:
        path = Path(assets)
        missing = [API_SERVER] if not (path / API_SERVER).is_file() else []
        if not any((path / name).is_file() for name in ETCDS):
            missing.append(" or ".join(ETCDS))
        if missing:
            return f"KUBEBUILDER_ASSETS={assets} has no {', '.join(missing)}"
        return Binaries(path)
    sums = SHARED / "bin" / "SHA256SUMS"
    if not sums.is_file():
        return (
            "no Kubernetes control plane: set KUBEBUILDER_ASSETS to a directory holding "
            f"kube-apiserver and etcd, or put the shared copy at {SHARED} "
            "(docs/development.md, 'The real-API-server tier')"
        )
    default = Path(tempfile.gettempdir()) / f"t2gen-kube-bin-{os.getuid()}"
    target = Path(os.environ.get("KUBE_BIN") or default)
    unpack(SHARED / "bin", target)
    return Binaries(target)


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(1 << 20):
            sha.update(chunk)
    return sha.hexdigest()


def unpack(source: Path, target: Path) -> None:
    """Unpack ``source/*.xz`` into ``target`` once, each binary checked against ``source/SHA256SUMS``.

    Several test processes may call it at once: one unpacks under a lock on
    ``target/.lock``, the others wait and find the work done. A binary is
    written to a temporary name and renamed, so none is ever half-written; a
    stamp of each binary's size and mtime, taken after its digest was checked,
    spares hashing 330 MB at every run.

    Raises:
        RuntimeError: a binary does not match its digest (the shared copy is damaged).
    """
    target.mkdir(parents=True, exist_ok=True)
    wanted = {
        name: digest
        for digest, name in (
            line.split() for line in (source / "SHA256SUMS").read_text().splitlines()
        )
    }
    with (target / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for name, digest in sorted(wanted.items()):
            binary, stamp = target / name, target / f".{name}.checked"
            if binary.is_file() and stamp.is_file():
                seen = binary.stat()
                if stamp.read_text() == f"{digest} {seen.st_size} {seen.st_mtime_ns}":
                    continue
            if not (binary.is_file() and _digest(binary) == digest):
                partial = target / f".{name}.{os.getpid()}"
                with (
                    lzma.open(source / f"{name}.xz") as packed,
                    partial.open("wb") as out,
                ):
                    shutil.copyfileobj(packed, out, 1 << 20)
                if _digest(partial) != digest:
                    with contextlib.suppress(FileNotFoundError):
                        partial.unlink()
                    raise RuntimeError(f"{source / name}.xz: checksum mismatch")
                partial.chmod(0o755)
                partial.replace(binary)
            seen = binary.stat()
            stamp.write_text(f"{digest} {seen.st_size} {seen.st_mtime_ns}")


def main(argv: list[str]) -> int:
    """``python -m tests.kubeapi.binaries DIR``: unpack the shared copy into DIR (``make kube``); say so when there is none."""
    if len(argv) != 1:
        print("usage: python -m tests.kubeapi.binaries DIR", file=sys.stderr)
        return 2
    if not (SHARED / "bin" / "SHA256SUMS").is_file():
        print(
            f"no {SHARED}: the real-API-server tier (tests/kubeapi/) will be skipped",
            file=sys.stderr,
        )
        return 0
    unpack(SHARED / "bin", Path(argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
