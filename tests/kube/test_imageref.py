"""Image references as the kubelet's parser (distribution/reference ``ParseNormalizedNamed``) reads them."""

from __future__ import annotations

import pytest

from t2gen.kube.imageref import image_reference_error, upper_case_registry


@pytest.mark.parametrize(
    "image",
    [
        "twister2/twister2-k8s:0.8.0",
        "twister2/twister2-k8s:0.8.0-SNAPSHOT",  # a tag may hold upper case
        "ubuntu",
        "docker.io/library/ubuntu:22.04",
        "registry.example.com:5000/team/img:v1.2_rc-3",
        "localhost:5000/img",
        "[::1]:5000/img",
        "a__b/c--d/e.f_g",
        "Registry/team/img",  # an upper-case first component is a registry host
        "nginx@sha256:" + "a" * 64,
        "nginx:1.25@sha512:" + "0" * 128,
    ],
)
def test_the_kubelet_accepts(image: str) -> None:
    assert image_reference_error(image) is None


@pytest.mark.parametrize(
    ("image", "reason"),
    [
        ("BUSYBOX", "must be lower-case: write 'busybox'"),
        ("twister2/Twister2-k8s:0.8.0", "write 'twister2/twister2-k8s:0.8.0'"),
        ("ghcr.io/Org/img:V1", "write 'ghcr.io/org/img:V1'"),
        ("nginx:", "expected [registry[:port]/]repository[:tag][@digest]"),
        ("nginx:-x", "expected [registry"),
        ("a//b", "expected [registry"),
        ("img/", "expected [registry"),
        ("nginx@sha256:abc", "expected [registry"),
        ("nginx@md5:" + "a" * 32, "'md5' is not one of sha256, sha384, sha512"),
        ("nginx@sha256:" + "a" * 63 + "A", "64 lower-case hexadecimal digits"),
        ("f" * 64, "is an image ID, not a reference"),
        ("a" * 256, "longer than 255 characters"),
    ],
)
def test_the_kubelet_refuses(image: str, reason: str) -> None:
    found = image_reference_error(image)
    assert found is not None and reason in found


def test_upper_case_registry() -> None:
    assert upper_case_registry("Twister2/twister2-k8s") == "Twister2"
    for image in (
        "twister2/x",
        "Reg.example.com/x",
        "Reg:5000/x",
        "localhost/x",
        "UBUNTU",
    ):
        assert upper_case_registry(image) is None


@pytest.mark.parametrize(
    "image",
    [
        "alpinex$HOME",  # a fresh-clone review: 'alpinex$home' was suggested, and is refused
        "Twister2/Img!:1",
        "ALPINE--",
        "a/B_/c",
        "Nginx:",
        "IMG@sha256:abc",
    ],
)
def test_a_suggested_reference_is_one_the_kubelet_accepts(image: str) -> None:
    """A message that says "write X" gives an X this parser accepts, or says no X."""
    found = image_reference_error(image)
    assert found is not None
    if "write '" in found:
        suggested = found.split("write '", 1)[1].rsplit("'", 1)[0]
        assert image_reference_error(suggested) is None, (image, found)
    else:
        assert "lower-case letters, digits and the separators" in found, found


def test_an_upper_case_repository_with_other_faults_suggests_nothing() -> None:
    found = image_reference_error("alpinex$HOME")
    assert found is not None
    assert "write" not in found and "$home" not in found
    assert "expected [registry[:port]/]repository[:tag][@digest]" in found
