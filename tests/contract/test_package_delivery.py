"""The init container that places the job package, run as rendered, against a local HTTP server.

The command and environment are taken from the rendered manifest of
``examples/package-url.yaml`` (the worker StatefulSet's pod template), the
memory volume is a temporary directory, and the package is the real one
``t2gen package`` builds for that example. After the init container, the
Twister2 container's own script runs as written: DSC-SPIDAL/twister2
``docker/kubernetes/image/rootfs/twister2/get_job_package.sh`` (vendored byte for
byte in ``tests/fixtures/twister2-image/``), whose ``client-to-pods`` branch
(lines 116-118) enters ``wait_job_package_to_arrive`` (lines 30-54): it reads
the file's size once before its loop (lines 34-37), so a complete package
skips the loop (line 39), is unpacked (line 49) and the flag file written
(line 51).

Nothing here waits for time to pass: a server that "appears late" answers
503 to the first attempts, counted from its requests; the failing cases use a
deadline of a second or two, and each asserts only the outcome.
"""

from __future__ import annotations

import hashlib
import http.server
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tests.contract.cases import case
from tests.package.cases import jar_bytes

pytestmark = pytest.mark.skipif(
    shutil.which("wget") is None or shutil.which("bash") is None,
    reason="needs wget and bash, as the Twister2 image has (docker/kubernetes/baseimage/Dockerfile:42-45)",
)

EXAMPLE = "examples/package-url.yaml"
GET_JOB_PACKAGE = ROOT / "tests" / "fixtures" / "twister2-image" / "get_job_package.sh"
SAFETY = 120  # seconds: only a broken script ever gets near it


def _init_container() -> dict[str, Any]:
    workers = case("example/package-url").worker_statefulsets[0]
    (init,) = workers["spec"]["template"]["spec"]["initContainers"]
    return dict(init)


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The package ``t2gen package`` writes for the example (a deterministic jar)."""
    tmp = tmp_path_factory.mktemp("package")
    jar = tmp / "wordcount.jar"
    jar.write_bytes(jar_bytes())
    out = tmp / "wordcount-url.tar.gz"
    subprocess.run(
        [
            str(ROOT / ".venv" / "bin" / "t2gen")
            if (ROOT / ".venv" / "bin" / "t2gen").exists()
            else "t2gen",
            "package",
            str(ROOT / EXAMPLE),
            "--jar",
            str(jar),
            "--output-file",
            str(out),
        ],
        check=True,
        capture_output=True,
    )
    return out.read_bytes()


class _Server(http.server.ThreadingHTTPServer):
    body: bytes = b""
    refusals: int = 0  # answer 503 to this many requests first
    requests: int = 0


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        self.server.requests += 1
        if self.server.requests <= self.server.refusals:
            self.send_error(503, "not yet")
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(self.server.body)))
        self.end_headers()
        self.wfile.write(self.server.body)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture
def server() -> Iterator[_Server]:
    httpd = _Server(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _free_port() -> int:
    """A port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _run(
    tmp: Path, url: str, package: bytes, *, deadline: int = 600, **override: str
) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    """Run the rendered init container's command with its rendered environment, in ``tmp``."""
    init = _init_container()
    memory = tmp / "memory"
    memory.mkdir()
    termination = tmp / "termination-log"
    env = {e["name"]: e["value"] for e in init["env"] if "value" in e}
    assert env["POD_MEMORY_VOLUME"] == "/twister2-memory-dir"
    env.update(
        POD_MEMORY_VOLUME=str(memory),
        JOB_PACKAGE_URL=url,
        JOB_PACKAGE_SHA256=hashlib.sha256(package).hexdigest(),
        JOB_PACKAGE_FILE_SIZE=str(len(package)),
        JOB_PACKAGE_DEADLINE_SECONDS=str(deadline),
        TERMINATION_MESSAGE_PATH=str(termination),
        PATH=os.environ["PATH"],
        HOME=str(tmp),
    )
    env.update(override)
    result = subprocess.run(
        init["command"],
        env=env,
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=SAFETY,
        check=False,
    )
    return result, memory, termination


def _failed_with_one_line(
    result: subprocess.CompletedProcess[str], memory: Path, termination: Path
) -> str:
    assert result.returncode == 1
    lines = termination.read_text().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("t2gen: job package wordcount-url.tar.gz: ")
    assert result.stderr.splitlines() == lines
    # nothing half-written where the Twister2 container takes it, nor beside it
    assert list(memory.iterdir()) == []
    return lines[0]


def _twister2_takes_it(memory: Path, package: bytes) -> None:
    """get_job_package.sh as written, client-to-pods, first container: takes the file at once."""
    env = {
        "PATH": os.environ["PATH"],
        "POD_MEMORY_VOLUME": str(memory),
        "JOB_PACKAGE_FILENAME": "wordcount-url.tar.gz",
        "JOB_PACKAGE_FILE_SIZE": str(len(package)),
        "UPLOAD_METHOD": "client-to-pods",
        "CONTAINER_NAME": "twister2-container-0",
    }
    result = subprocess.run(
        ["bash", str(GET_JOB_PACKAGE)],
        env=env,
        capture_output=True,
        text=True,
        timeout=SAFETY,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Job package arrived fully to the pod." in result.stdout
    assert (memory / "unpack-complete.txt").read_text() == "1\n"
    assert (memory / "twister2-job" / "wordcount-url.job").is_file()
    assert (memory / "twister2-job" / "wordcount.jar").read_bytes() == jar_bytes()


def test_the_package_arrives_whole_and_twister2_takes_it(
    tmp_path: Path, server: _Server, package: bytes
) -> None:
    server.body = package
    url = f"http://127.0.0.1:{server.server_port}/wordcount-url.tar.gz"
    result, memory, termination = _run(tmp_path, url, package)
    assert result.returncode == 0, result.stderr
    placed = memory / "wordcount-url.tar.gz"
    assert placed.read_bytes() == package
    assert sorted(p.name for p in memory.iterdir()) == ["wordcount-url.tar.gz"]
    assert not termination.exists()
    _twister2_takes_it(memory, package)


def test_the_first_attempt_is_made_however_late_the_container_starts(
    tmp_path: Path, server: _Server, package: bytes
) -> None:
    """A deadline already passed when the loop starts (``date +%s`` counts whole seconds:
    a 1 s deadline could end before the first try on a slow start) still downloads once."""
    server.body = package
    url = f"http://127.0.0.1:{server.server_port}/wordcount-url.tar.gz"
    result, memory, _ = _run(tmp_path, url, package, deadline=0)
    assert result.returncode == 0, result.stderr
    assert server.requests == 1
    assert (memory / "wordcount-url.tar.gz").read_bytes() == package


def test_a_server_that_appears_late_still_works(
    tmp_path: Path, server: _Server, package: bytes
) -> None:
    server.body = package
    server.refusals = 3  # not there for the first three attempts
    url = f"http://127.0.0.1:{server.server_port}/wordcount-url.tar.gz"
    result, memory, _ = _run(tmp_path, url, package)
    assert result.returncode == 0, result.stderr
    assert server.requests == 4
    assert result.stdout.count("the server answered with an error") == 3
    _twister2_takes_it(memory, package)


def test_a_wrong_digest_fails_at_once_with_one_line(
    tmp_path: Path, server: _Server, package: bytes
) -> None:
    server.body = bytes(reversed(package))  # as long, another file
    url = f"http://127.0.0.1:{server.server_port}/p.tar.gz?X-Amz-Signature=secret"
    result, memory, termination = _run(tmp_path, url, package)
    line = _failed_with_one_line(result, memory, termination)
    assert server.requests == 1
    assert "SHA-256" in line and "the server holds another package" in line
    assert "secret" not in line + result.stdout  # a presigned URL's signature stays out


def test_a_short_file_fails_at_the_deadline_with_one_line(
    tmp_path: Path, server: _Server, package: bytes
) -> None:
    server.body = package[:-26]
    url = f"http://127.0.0.1:{server.server_port}/wordcount-url.tar.gz"
    result, memory, termination = _run(tmp_path, url, package, deadline=1)
    line = _failed_with_one_line(result, memory, termination)
    assert server.requests >= 1
    assert f"{len(package) - 26} bytes, not {len(package)}" in line
    assert "within 1 s" in line


def test_a_server_that_never_appears_fails_with_one_line(
    tmp_path: Path, package: bytes
) -> None:
    url = f"http://127.0.0.1:{_free_port()}/wordcount-url.tar.gz"
    result, memory, termination = _run(tmp_path, url, package, deadline=1)
    line = _failed_with_one_line(result, memory, termination)
    assert "not had from" in line and "network failure" in line


def test_an_image_volume_file_is_copied_and_checked(
    tmp_path: Path, package: bytes
) -> None:
    mounted = tmp_path / "image-volume" / "wordcount-url.tar.gz"
    mounted.parent.mkdir()
    mounted.write_bytes(package)
    result, memory, _ = _run(tmp_path, "unused", package, JOB_PACKAGE_PATH=str(mounted))
    assert result.returncode == 0, result.stderr
    _twister2_takes_it(memory, package)


def test_an_image_volume_without_the_file_fails_with_one_line(
    tmp_path: Path, package: bytes
) -> None:
    result, memory, termination = _run(
        tmp_path, "unused", package, JOB_PACKAGE_PATH=str(tmp_path / "missing")
    )
    line = _failed_with_one_line(result, memory, termination)
    assert "containerd does not yet" in line


def test_the_rendered_command_is_the_packaged_script() -> None:
    from t2gen.render.context.package import place_script

    init = _init_container()
    assert init["command"] == ["/bin/sh", "-c", place_script()]
    assert yaml.safe_load(yaml.safe_dump(init)) == init
