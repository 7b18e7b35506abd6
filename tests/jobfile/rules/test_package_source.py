"""Rule package-source and the schema's messages for ``jobPackage.source``: what a user can act on."""

from __future__ import annotations

import pytest

from tests.helpers import job_text, one_problem, valid_job

DIGEST = "1d71172c995d7bd5c093c7dd33443360a8e7907ab6c84f3ab1b6798dff1df568"


def _url_job(url: str, sha256: str = DIGEST) -> str:
    return job_text(
        "workers:\n  - count: 2\n"
        "jobPackage:\n  source:\n"
        f"    url: '{url}'\n    sha256: '{sha256}'\n    size: 994\n"
    )


def test_an_upper_case_sha256_is_told_its_lower_case_form() -> None:
    """The init container compares the digest with ``sha256sum``'s lower-case output as text."""
    _, path, message = one_problem(
        _url_job("https://artifacts.example.com/a.tar.gz", DIGEST.upper())
    )
    assert path == "spec.jobPackage.source.sha256"
    assert "write it in lower case" in message
    assert repr(DIGEST) in message
    assert "^[0-9a-f]{64}$" not in message


@pytest.mark.parametrize("sha256", ["abc", DIGEST[:-1] + "g", DIGEST + "0"])
def test_a_sha256_that_is_no_digest_says_what_a_sha256_is(sha256: str) -> None:
    _, path, message = one_problem(
        _url_job("https://artifacts.example.com/a.tar.gz", sha256)
    )
    assert path == "spec.jobPackage.source.sha256"
    assert "64 lower-case hexadecimal digits" in message
    assert "^[" not in message and "write it in lower case" not in message


def test_a_url_that_is_not_http_says_what_is_expected() -> None:
    _, path, message = one_problem(_url_job("ftp://artifacts.example.com/a.tar.gz"))
    assert path == "spec.jobPackage.source.url"
    assert "expected an http:// or https:// URL" in message
    assert "[Hh][Tt]" not in message


@pytest.mark.parametrize(
    "url",
    [
        "https://user:s3cret@artifacts.example.com/a.tar.gz",
        "https://token@artifacts.example.com/a.tar.gz",
        "http://user:@artifacts.example.com:8080/a.tar.gz?x=1",
    ],
)
def test_login_details_in_the_url_are_refused_without_being_echoed(url: str) -> None:
    """The init container's log hides only the query: a password there would be printed."""
    place, path, message = one_problem(_url_job(url))
    assert path == "spec.jobPackage.source.url"
    assert place[0] == 11  # the url's line
    assert "login details" in message and "presigned URL" in message
    assert "s3cret" not in message and "user" not in message.split("(", 1)[1][:20]
    assert "***@artifacts.example.com" in message


@pytest.mark.parametrize(
    "url",
    [
        "https://artifacts.example.com/a.tar.gz",
        # a presigned URL: its credential is in the query, which the log leaves out
        "https://bucket.s3.amazonaws.com/a.tar.gz?X-Amz-Signature=abc&X-Amz-Credential=k%40x",
        "https://artifacts.example.com/@scope/a.tar.gz",  # '@' in the path is no login
    ],
)
def test_a_url_without_login_details_is_accepted(url: str) -> None:
    assert valid_job(_url_job(url)).spec.job_package.source is not None
