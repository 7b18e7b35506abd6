"""The container image: a reference the kubelet can parse, or the pods never start."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem, Warning_
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules._base import Rule, as_dict, problem, rule, warning
from t2gen.kube.imageref import image_reference_error, upper_case_registry


@rule("image-reference", fields=("spec.image", "spec.lifecycle.image"))
def check_image_reference(
    data: dict[str, Any], doc: SourceDoc
) -> Iterator[Problem | Warning_]:
    """``spec.image`` and ``spec.lifecycle.image`` are references the kubelet parses: a lower-case repository, a valid tag and digest.

    The supervisor's image (``lifecycle.image``) is checked as the job's is
    (issue 40: ``alpinex$HOME`` and ``--all`` passed, and its pod would never
    start while the job ran unsupervised).

    The API server stores any string as a container's ``image``; the kubelet
    parses it only when it starts the container, with the OCI distribution
    grammar's ``ParseNormalizedNamed`` (kubernetes/kubernetes
    ``pkg/kubelet/images/image_manager.go``, ``applyDefaultImageTag``, and
    ``pkg/util/parsers/parsers.go``; github.com/distribution/reference
    ``normalize.go``, ``regexp.go``). A reference it refuses leaves every pod
    of the job waiting with reason ``InvalidImageName``, so a job file that
    renders and applies cleanly never runs. The commonest cause is an
    upper-case repository (``Twister2-k8s``): registries name repositories in
    lower case only; the tag may hold upper case (``0.8.0-SNAPSHOT``).

    A first path component with upper case letters and no ``.`` or ``:`` is
    taken for a registry host, as the kubelet does: ``Twister2/twister2-k8s``
    pulls from a host named ``Twister2``, not from Docker Hub's ``twister2``,
    and fails with ``ErrImagePull``. That is a warning, since such a host
    could exist.
    Images with characters outside ASCII are left to ``image-mixed-scripts``
    and ``invisible-characters``, and whitespace to the schema (whose refusal
    keeps the value from every rule).
    """
    spec = as_dict(data.get("spec"))
    for path, image in (
        (("spec", "image"), spec.get("image")),
        (("spec", "lifecycle", "image"), as_dict(spec.get("lifecycle")).get("image")),
    ):
        if isinstance(image, str) and image.isascii():
            yield from _reference_problems(doc, path, image)


@functools.lru_cache(maxsize=256)
def _judged(image: str) -> tuple[str | None, str | None]:
    """``(image_reference_error(image), upper_case_registry(image) if it is None)``, remembered.

    A batch's jobs name a few images many times; the answer depends on the
    string alone. Bounded: the last 256 images (each at most the schema's
    ``maxLength``).
    """
    reason = image_reference_error(image)
    return reason, upper_case_registry(image) if reason is None else None


def _reference_problems(
    doc: SourceDoc, path: tuple[str, ...], image: str
) -> Iterator[Problem | Warning_]:
    reason, host = _judged(image)
    if host is not None:
        yield warning(
            doc,
            path,
            f"{host!r} has upper-case letters, so the kubelet takes it for a registry "
            f"host and pulls from https://{host}/, not from Docker Hub; for Docker Hub "
            f"write {host.lower()!r}, for a registry add its domain or port",
        )
    if reason is not None:
        yield problem(
            doc,
            path,
            f"{image!r} is not an image reference the kubelet accepts (its pods would "
            f"wait as InvalidImageName): {reason}",
        )


RULES: tuple[Rule, ...] = (check_image_reference,)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
