"""``t2gen package --oci DIR``: the job package as an OCI image layout, written whole or not at all.

The layout (:mod:`t2gen.package.oci`) is staged beside ``DIR`` and swapped in
as ``--output-dir`` is (:mod:`t2gen.output.atomicdir`), so ``DIR`` is either
the previous layout or the new one, never a mix. ``DIR`` is replaced only
when it is missing, empty, or a layout t2gen wrote (``oci-layout``,
``index.json`` and ``blobs/`` alone, every manifest of the index a t2gen job
package): anything else is refused rather than lost.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path

from t2gen.errors import OutputError
from t2gen.package.oci import ARTIFACT_TYPE, LAYOUT_VERSION, Artifact

__all__ = ["check_oci_layout_target", "write_oci_layout"]

_LAYOUT_ENTRIES = {"oci-layout", "index.json", "blobs"}
_INDEX_BOUND = 1 << 20


def _ours(target: Path) -> bool:
    """Whether the directory ``target`` is empty or an OCI layout t2gen wrote."""
    present = {entry.name for entry in target.iterdir()}
    if not present:
        return True
    if not present <= _LAYOUT_ENTRIES or "index.json" not in present:
        return False
    index = target / "index.json"
    try:
        if index.is_symlink() or index.stat().st_size > _INDEX_BOUND:
            return False
        manifests = json.loads(index.read_bytes()).get("manifests")
    except (OSError, ValueError, AttributeError):
        return False
    return (
        isinstance(manifests, list)
        and bool(manifests)
        and all(
            isinstance(m, dict) and m.get("artifactType") == ARTIFACT_TYPE
            for m in manifests
        )
    )


def _write(path: Path, data: bytes) -> None:
    with path.open("wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _stage(staging: Path, art: Artifact, package: Path) -> None:
    blobs = staging / "blobs" / "sha256"
    blobs.mkdir(parents=True)
    _write(staging / "oci-layout", LAYOUT_VERSION)
    for digest, data in art.blobs.items():
        _write(blobs / digest.split(":", 1)[1], data)
    layer = blobs / art.package_digest.split(":", 1)[1]
    with package.open("rb") as source, layer.open("wb") as out:
        shutil.copyfileobj(source, out, 1 << 20)
        out.flush()
        os.fsync(out.fileno())
    _write(staging / "index.json", art.index)


def _refused(directory: Path) -> OutputError:
    return OutputError(
        f"{directory}: holds files that are not an OCI layout t2gen wrote; t2gen "
        "replaces the whole directory, so it refuses rather than lose them: give a "
        "new or empty directory"
    )


def check_oci_layout_target(directory: Path) -> None:
    """Refuse ``directory`` before anything is written, as :func:`write_oci_layout` would.

    ``t2gen package --oci DIR`` checks ``DIR`` before it writes the package file,
    so a command that fails on ``DIR`` leaves no package behind either.

    Raises:
        OutputError: ``directory`` is not a directory, its parent is missing,
            or it holds something t2gen did not write.
    """
    from t2gen.output.files import resolve_target

    target, _ = resolve_target(directory, directory=True)
    if target.is_dir() and not _ours(target):
        raise _refused(directory)


def write_oci_layout(directory: Path, art: Artifact, package: Path) -> None:
    """Write ``art`` and the package file as the OCI image layout ``directory``.

    Args:
        directory: the layout's directory as the user named it.
        art: the artifact (:func:`t2gen.package.oci.artifact`) of ``package``.
        package: the package file, copied as the layer blob.

    Raises:
        OutputError: ``directory`` holds something t2gen did not write, is
            not a directory, or a write failed (``directory`` is then unchanged
            and nothing is left beside it).
    """
    from t2gen.output import atomicdir
    from t2gen.output.files import resolve_target

    target, _ = resolve_target(directory, directory=True)
    parent = target.parent
    try:
        with atomicdir.locked(parent):
            atomicdir.recover(parent, target.name)
            if target.is_dir() and not _ours(target):
                raise _refused(directory)
            token = uuid.uuid4().hex[:12]
            staging = parent / f".{target.name}.t2gen-{token}"
            old = parent / f".{target.name}.t2gen-old-{token}"
            try:
                staging.mkdir()
                _stage(staging, art, package)
                atomicdir.fsync_directory(staging)
                if not target.is_dir():
                    staging.rename(target)
                elif atomicdir.exchange(staging, target):
                    old = staging
                else:
                    target.rename(old)
                    staging.rename(target)
                atomicdir.fsync_directory(parent)
            except OSError:
                if not os.path.lexists(target) and old.is_dir():
                    old.rename(target)
                if staging != old:
                    shutil.rmtree(staging, ignore_errors=True)
                raise
            shutil.rmtree(old, ignore_errors=True)
    except OSError as err:
        raise OutputError(f"{directory}: cannot write: {err.strerror or err}") from None
