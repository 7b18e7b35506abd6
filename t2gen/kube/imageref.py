"""Container image references as the kubelet parses them: what makes a pod ``InvalidImageName``.

The API server stores any image string; the kubelet parses it when it starts a
container (kubernetes/kubernetes ``pkg/util/parsers/parsers.go``,
``ParseImageName``, called from ``pkg/kubelet/images/image_manager.go``) with
``ParseNormalizedNamed`` of the OCI distribution grammar
(github.com/distribution/reference, ``normalize.go`` and ``regexp.go``), and a
reference it refuses leaves the container waiting with reason
``InvalidImageName``: the pod never runs. This module is that parser's
acceptance test, with its rules in the order it applies them, so t2gen refuses
such a job file before anything is applied.
"""

from __future__ import annotations

import re

__all__ = ["REPOSITORY_NAME_MAX", "image_reference_error", "upper_case_registry"]

REPOSITORY_NAME_MAX = 255
"""Most characters of a repository path (``RepositoryNameTotalLengthMax``, ``reference.go``)."""

# distribution/reference regexp.go, written out (Go's \w and [[:xdigit:]] are ASCII).
_ALPHANUMERIC = r"[a-z0-9]+"
_SEPARATOR = r"(?:[._]|__|[-]+)"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN_NAME = rf"{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*"
_HOST = rf"(?:{_DOMAIN_NAME}|\[(?:[a-fA-F0-9:]+)\])"
_DOMAIN_AND_PORT = rf"{_HOST}(?::[0-9]+)?"
_PATH_COMPONENT = rf"{_ALPHANUMERIC}(?:{_SEPARATOR}{_ALPHANUMERIC})*"
_REMOTE_NAME = rf"{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*"
_TAG = r"[0-9A-Za-z_][0-9A-Za-z_.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
_REFERENCE = re.compile(
    rf"(?P<domain>{_DOMAIN_AND_PORT})/(?P<path>{_REMOTE_NAME})"
    rf"(?::(?P<tag>{_TAG}))?(?:@(?P<digest>{_DIGEST}))?",
    re.ASCII,
)
_IDENTIFIER = re.compile(r"[a-f0-9]{64}", re.ASCII)
_DIGEST_HEX_LENGTHS = {"sha256": 64, "sha384": 96, "sha512": 128}
"""The digest algorithms the kubelet's parser knows, with their hex lengths
(github.com/opencontainers/go-digest ``algorithm.go``, as ``digest.Parse`` checks)."""

_FORMAT = (
    "expected [registry[:port]/]repository[:tag][@digest] with a lower-case "
    "repository, e.g. twister2/twister2-k8s:0.8.0"
)


def _split_docker_domain(name: str) -> tuple[str, str, int]:
    """``splitDockerDomain`` (``normalize.go``): the registry, the rest, and where the rest starts in ``name``."""
    maybe_domain, slash, rest = name.partition("/")
    if not slash:
        return "docker.io", "library/" + name, 0
    start = len(maybe_domain) + 1
    if maybe_domain == "localhost" or any(char in maybe_domain for char in ".:"):
        domain, remote = maybe_domain, rest
    elif maybe_domain == "index.docker.io":
        domain, remote = "docker.io", rest
    elif maybe_domain.lower() != maybe_domain:
        domain, remote = maybe_domain, rest  # upper case: taken for a host name
    else:
        domain, remote, start = "docker.io", name, 0
    if domain == "docker.io" and "/" not in remote:
        remote = "library/" + remote
    return domain, remote, start


def image_reference_error(image: str) -> str | None:
    """Why the kubelet refuses ``image`` (``ParseNormalizedNamed``), or None if it accepts it.

    Args:
        image: a container image reference, as written in a pod's ``image``.

    Returns:
        What is wrong and what would be right, as a clause to follow the
        image in a message; None for a reference the kubelet parses. A
        reference suggested in it is one the kubelet accepts: an upper-case
        repository is shown lower-cased only if that alone makes it valid.
    """
    if _IDENTIFIER.fullmatch(image):
        return (
            "a 64-digit hexadecimal string is an image ID, not a reference; "
            "name the image, e.g. twister2/twister2-k8s@sha256:<digest>"
        )
    domain, remainder, start = _split_docker_domain(image)
    remote = remainder.partition(":")[0]
    if remote.lower() != remote:
        written = image[start:].partition(":")[0]
        fixed = image[:start] + written.lower() + image[start + len(written) :]
        if image_reference_error(fixed) is None:  # lower-case now, so no second round
            return f"the repository name must be lower-case: write {fixed!r}"
        # lower case alone does not make it a reference (alpinex$HOME): suggest nothing
        return (
            "the repository name may hold only lower-case letters, digits and the "
            f"separators '.', '_', '__' and '-' between them; {_FORMAT}"
        )
    found = _REFERENCE.fullmatch(f"{domain}/{remainder}")
    if found is None:
        return _FORMAT
    if len(found["path"]) > REPOSITORY_NAME_MAX:
        return f"the repository name is longer than {REPOSITORY_NAME_MAX} characters"
    digest = found["digest"]
    if digest is not None:
        algorithm, _, encoded = digest.partition(":")
        length = _DIGEST_HEX_LENGTHS.get(algorithm)
        if length is None:
            return (
                f"digest algorithm {algorithm!r} is not one of sha256, sha384, sha512"
            )
        if len(encoded) != length or not re.fullmatch(r"[a-f0-9]+", encoded):
            return f"a {algorithm} digest is {length} lower-case hexadecimal digits"
    return None


def upper_case_registry(image: str) -> str | None:
    """The first path component of ``image`` if the kubelet takes it for a registry host only because of its upper case.

    ``splitDockerDomain`` treats a first component with no ``.`` or ``:``
    (and not ``localhost``) as a Docker Hub namespace, unless it holds an
    upper-case letter: then it is a host name (``normalize.go``, "Uppercase
    namespaces are not allowed"). ``Twister2/twister2-k8s`` therefore pulls from a
    host ``Twister2``, which rarely exists, rather than reporting a bad name.
    """
    first, slash, _ = image.partition("/")
    if not slash or first == "localhost" or any(char in first for char in ".:"):
        return None
    return first if first.lower() != first else None
