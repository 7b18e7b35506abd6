"""Write t2gen/_generated/twister2_job_pb2.py(i) from schemas/proto/twister2_job.proto (run by `make generate`).

protoc comes from grpcio-tools, a development dependency: the generated module
needs only the ``protobuf`` runtime. With ``--check``, write nothing and exit 1
if the committed modules differ from what protoc generates now
(tests/package/test_job_proto.py runs the same check).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO = ROOT / "schemas" / "proto" / "twister2_job.proto"
OUT = ROOT / "t2gen" / "_generated"
NAMES = ("twister2_job_pb2.py", "twister2_job_pb2.pyi")


def generate() -> dict[str, str]:
    """Run protoc on the message definition; return the generated files by name."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "grpc_tools.protoc",
                f"-I{PROTO.parent}",
                f"--python_out={tmp}",
                f"--pyi_out={tmp}",
                str(PROTO),
            ],
            check=True,
        )
        return {
            name: (Path(tmp) / name).read_text(encoding="utf-8") for name in NAMES
        }


def main() -> int:
    """Write (or with --check, compare) the generated module and its stub."""
    files = generate()
    if "--check" in sys.argv[1:]:
        same = all(
            (OUT / name).is_file()
            and (OUT / name).read_text(encoding="utf-8") == text
            for name, text in files.items()
        )
        print("up to date" if same else "stale: run `make generate`")
        return 0 if same else 1
    OUT.mkdir(exist_ok=True)
    init = OUT / "__init__.py"
    if not init.exists():
        init.write_text(
            '"""Generated modules (make generate); they import nothing of t2gen."""\n',
            encoding="utf-8",
        )
    for name, text in files.items():
        (OUT / name).write_text(text, encoding="utf-8", newline="\n")
    print(f"wrote {', '.join(NAMES)} to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
