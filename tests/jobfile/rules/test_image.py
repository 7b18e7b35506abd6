"""Rule image-reference: the errors and the warning it gives, located at spec.image."""

from __future__ import annotations

from t2gen.errors import Warning_
from t2gen.inputs.jobfile import parse_job
from t2gen.pipeline.load import validate
from tests.helpers import BASE, one_problem


def _with_image(image: str) -> str:
    return (
        BASE.replace("twister2/twister2-k8s:0.8.0", image) + "  workers: [{count: 1}]\n"
    )


def _warnings(image: str) -> list[str]:
    found: list[Warning_] = []
    validate(parse_job(_with_image(image), path="job.yaml"), warnings=found)
    return [f"{w.line}:{w.col}: {w.message}" for w in found]


def test_an_upper_case_repository_is_an_error_that_names_the_fix() -> None:
    place, path, message = one_problem(_with_image("twister2/Twister2-k8s:0.8.0"))
    assert (place, path) == ((6, 10), "spec.image")
    assert message.endswith(
        "the repository name must be lower-case: write 'twister2/twister2-k8s:0.8.0' "
        "(t2gen explain image-reference)"
    )


def test_an_upper_case_first_component_is_a_registry_host_and_a_warning() -> None:
    assert _warnings("Twister2/twister2-k8s:0.8.0") == [
        "6:10: 'Twister2' has upper-case letters, so the kubelet takes it for a registry "
        "host and pulls from https://Twister2/, not from Docker Hub; for Docker Hub write "
        "'twister2', for a registry add its domain or port"
    ]
    for image in (
        "twister2/twister2-k8s:0.8.0",
        "Registry.example.com/t/x",
        "localhost/x",
    ):
        assert _warnings(image) == []


def test_the_supervisors_image_gets_no_suggestion_that_is_refused_too() -> None:
    """``lifecycle.image: alpinex$HOME`` suggested ``alpinex$home``, which is refused as well."""
    text = (
        BASE + "  workers: [{count: 1}]\n"
        "  lifecycle: {supervise: true, image: 'alpinex$HOME'}\n"
    )
    _, path, message = one_problem(text)
    assert path == "spec.lifecycle.image"
    assert "'alpinex$HOME' is not an image reference the kubelet accepts" in message
    assert "write" not in message
    assert "may hold only lower-case letters, digits and the separators" in message
