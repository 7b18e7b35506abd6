"""Write t2gen/_generated/templates/: the built-in templates compiled by Jinja2 (run by `make generate`).

With ``--check``, write nothing and exit 1 if the committed modules differ from
what the installed Jinja2 compiles (tests/render/test_precompiled.py runs the same check).
"""

from __future__ import annotations

import sys
from pathlib import Path

from t2gen.render.precompiled import compile_builtin_templates

OUT = Path(__file__).resolve().parent.parent / "t2gen" / "_generated" / "templates"


def main() -> int:
    """Write (or with --check, compare) every precompiled module; remove stale ones."""
    modules = compile_builtin_templates()
    present = {path.name: path for path in OUT.glob("*.py")}
    if "--check" in sys.argv[1:]:
        same = set(present) == set(modules) and all(
            present[name].read_text(encoding="utf-8") == text
            for name, text in modules.items()
        )
        print("up to date" if same else "stale: run `make generate`")
        return 0 if same else 1
    OUT.mkdir(exist_ok=True)
    for name, path in present.items():
        if name not in modules:
            path.unlink()
    for name, text in modules.items():
        (OUT / name).write_text(text, encoding="utf-8", newline="\n")
    print(f"wrote {len(modules)} modules to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
