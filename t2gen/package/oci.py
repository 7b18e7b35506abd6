"""The job package as an OCI artifact: the manifest, its digest and the image layout's index.

``t2gen package --oci DIR`` writes the package as an OCI image layout
(:mod:`t2gen.output.ocilayout`) that ``oras``, ``skopeo`` and ``crane`` push
unchanged, so the digest a job file names (``jobPackage.source.oci``) is the
one computed here from the package file alone. Everything follows the OCI
image spec 1.1 (opencontainers/image-spec at v1.1.0):

* the manifest (``manifest.md``) is an artifact as "Guidelines for Artifact
  Usage" describe one without a config of its own: ``artifactType`` set,
  ``config`` the empty descriptor (``application/vnd.oci.empty.v1+json``,
  the two bytes ``{}``, carried inline as ``data``: ``manifest.md``,
  "Guidance for an Empty Descriptor"), and one layer, the package file
  itself, with its own media type and ``org.opencontainers.image.title``
  (``annotations.md``), the file name that CRI-O gives the layer when it
  mounts the artifact as an ``image`` volume (cri-o/cri-o
  ``internal/ociartifact/store.go``, ``BlobMountPaths`` and ``artifactName``)
  and that ``oras pull`` writes;
* the layout (``image-layout.md``): ``oci-layout``, ``index.json`` naming
  the manifest with ``org.opencontainers.image.ref.name`` (the tag a push
  takes from it), and every blob under ``blobs/sha256/<hex>``.

Reproducible: no time, user or host enters any byte; the JSON is written
with sorted keys and no spaces, so the manifest's digest depends only on the
job's name and the package's bytes (``tests/package/test_oci.py``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from t2gen.record import Record

__all__ = [
    "ARTIFACT_TYPE",
    "EMPTY_CONFIG",
    "LAYER_MEDIA_TYPE",
    "MANIFEST_MEDIA_TYPE",
    "Artifact",
    "artifact",
    "file_digest",
]

ARTIFACT_TYPE = "application/vnd.t2gen.job-package.v1"
"""The artifact's type: a Twister2 job package as t2gen and ``twister2 submit`` write it."""
LAYER_MEDIA_TYPE = "application/vnd.t2gen.job-package.layer.v1.tar+gzip"
"""The one layer: ``<job>.tar.gz`` itself. Not an image layer's media type, so no runtime
unpacks it as a file system (CRI-O mounts it as the file, unchanged)."""
MANIFEST_MEDIA_TYPE = "application/vnd.oci.image.manifest.v1+json"
INDEX_MEDIA_TYPE = "application/vnd.oci.image.index.v1+json"
EMPTY_MEDIA_TYPE = "application/vnd.oci.empty.v1+json"
_EMPTY = b"{}"
EMPTY_CONFIG: dict[str, Any] = {
    "mediaType": EMPTY_MEDIA_TYPE,
    "digest": "sha256:" + hashlib.sha256(_EMPTY).hexdigest(),
    "size": len(_EMPTY),
    "data": "e30=",
}
"""The empty descriptor of the OCI image spec (``manifest.md``): ``{}``, base64 ``e30=``."""
TITLE = "org.opencontainers.image.title"
REF_NAME = "org.opencontainers.image.ref.name"
LAYOUT_VERSION = b'{"imageLayoutVersion":"1.0.0"}'
"""The ``oci-layout`` file's content (``image-layout.md``)."""
_CHUNK = 1 << 20


class Artifact(Record):
    """The job package as an OCI artifact.

    Attributes:
        name: the job's name: the layer's title is ``<name>.tar.gz``, and the
            layout's tag (``org.opencontainers.image.ref.name``) is ``<name>``.
        package_digest: ``sha256:<hex>`` of the package file (the layer).
        package_size: the package file's size in bytes.
        manifest: the manifest's bytes.
        digest: ``sha256:<hex>`` of :attr:`manifest`: what ``REF@`` names.
        index: the layout's ``index.json`` bytes.
    """

    name: str
    package_digest: str
    package_size: int
    manifest: bytes
    digest: str
    index: bytes

    @property
    def blobs(self) -> dict[str, bytes]:
        """The small blobs by digest: the empty config and the manifest (the layer is the package file)."""
        return {EMPTY_CONFIG["digest"]: _EMPTY, self.digest: self.manifest}


def _json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode("utf-8")


def file_digest(path: str | Path) -> tuple[str, int]:
    """``(sha256:<hex>, size in bytes)`` of a file, read in 1 MiB chunks.

    Raises:
        OSError: the file cannot be read.
    """
    digest = hashlib.sha256()
    size = 0
    with Path(path).open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return f"sha256:{digest.hexdigest()}", size


def artifact(name: str, package_digest: str, package_size: int) -> Artifact:
    """The artifact of a job's package.

    Args:
        name: the job's name (``metadata.name``).
        package_digest: ``sha256:<hex>`` of the package file.
        package_size: its size in bytes.

    Returns:
        The manifest, its digest and the layout's index.
    """
    manifest = _json(
        {
            "schemaVersion": 2,
            "mediaType": MANIFEST_MEDIA_TYPE,
            "artifactType": ARTIFACT_TYPE,
            "config": EMPTY_CONFIG,
            "layers": [
                {
                    "mediaType": LAYER_MEDIA_TYPE,
                    "digest": package_digest,
                    "size": package_size,
                    "annotations": {TITLE: f"{name}.tar.gz"},
                }
            ],
        }
    )
    digest = "sha256:" + hashlib.sha256(manifest).hexdigest()
    index = _json(
        {
            "schemaVersion": 2,
            "mediaType": INDEX_MEDIA_TYPE,
            "manifests": [
                {
                    "mediaType": MANIFEST_MEDIA_TYPE,
                    "artifactType": ARTIFACT_TYPE,
                    "digest": digest,
                    "size": len(manifest),
                    "annotations": {REF_NAME: name},
                }
            ],
        }
    )
    return Artifact(name, package_digest, package_size, manifest, digest, index)
