"""Golden packages: the member list, the decoded ``.job`` and the configuration files, reviewed like the manifests.

``make golden`` (``--update-golden``) rewrites ``tests/golden/packages/<case>/``.
The archive's bytes themselves are not kept: zlib versions may compress
differently; what the pods read is what is compared.
"""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from t2gen.package.job import describe, parse_job_message
from tests.package.cases import CASES, PACKAGES, ROOT, build_case, stderr_lines


def _contents(package: Path) -> dict[str, str]:
    files: dict[str, str] = {}
    members = []
    with tarfile.open(package, "r:gz") as tar:
        for info in tar:
            members.append(
                f"{info.name} {info.size} mode={info.mode:o} mtime={info.mtime} "
                f"owner={info.uid}:{info.gid}"
            )
            data = tar.extractfile(info).read()  # type: ignore[union-attr]
            inner = info.name.removeprefix("twister2-job/")
            if inner.endswith(".job"):
                files["job.txt"] = describe(parse_job_message(data))
            elif "/" in inner:
                files[f"conf/{inner}"] = data.decode()
    files["members.txt"] = "\n".join(members) + "\n"
    return files


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_package(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, update_golden: bool
) -> None:
    monkeypatch.chdir(ROOT)
    job, built = build_case(case, tmp_path)
    files = _contents(Path(built.path))
    files["stderr.txt"] = "\n".join(stderr_lines(job, built, tmp_path)) + "\n"
    golden = PACKAGES / case
    if update_golden:
        if golden.exists():
            for old in sorted(golden.rglob("*"), reverse=True):
                old.unlink() if old.is_file() else old.rmdir()
        for name, text in files.items():
            (golden / name).parent.mkdir(parents=True, exist_ok=True)
            (golden / name).write_text(text, encoding="utf-8")
    kept = {
        str(p.relative_to(golden)): p.read_text(encoding="utf-8")
        for p in golden.rglob("*")
        if p.is_file()
    }
    assert kept == files
