"""``t2gen explain``: print a job-file rule's documentation, by the ID its errors name."""

from __future__ import annotations

import re
from typing import Annotated

import typer

from t2gen.cli._report import write_stdout

_LITERAL = r"``(.+?)``"

__all__ = ["EPILOG", "explain"]


def _markdown_literals(text: str) -> str:
    """Write reST literals, ``x``, as Markdown's `x`, which reads better in a terminal."""
    return re.sub(_LITERAL, r"`\1`", text)


EPILOG = "Example:\n\n  t2gen explain workers-divisible\n\n  t2gen explain --list"


def complete_rule_ids(incomplete: str) -> list[str]:
    """Shell completion of ``explain RULE``: the rule IDs starting with what is typed."""
    from t2gen.jobfile.rules import REGISTRY

    return [key for key in REGISTRY if key.startswith(incomplete)]


def explain(
    rule_id: Annotated[
        str,
        typer.Argument(
            help="A rule ID, as an error prints it: `... (t2gen explain <id>)`; `--list` for all.",
            metavar="RULE",
            autocompletion=complete_rule_ids,
        ),
    ] = "",
    list_rules: Annotated[
        bool,
        typer.Option("--list", help="List every rule ID with its one-line title."),
    ] = False,
) -> None:
    """Print what a job-file rule checks and why, with its sources.

    The text is the rule's section of docs/rules.md (its ID is the anchor:
    docs/rules.md#<id>).
    """
    from t2gen.jobfile.rules import REGISTRY

    if list_rules:
        write_stdout(
            "".join(
                f"{key}  {_markdown_literals(rule.title)}\n"
                for key, rule in REGISTRY.items()
            )
        )
        return
    if not rule_id:
        raise typer.BadParameter(
            "give a rule ID, as an error names it (`t2gen explain workers-divisible`), "
            "or --list for all of them",
            param_hint="'RULE'",
        )
    found = REGISTRY.get(rule_id)
    if found is None:
        from t2gen.jobfile.messages import suggest

        hint = suggest(rule_id, list(REGISTRY), noun="rule")
        close = (
            hint
            if hint.startswith("did you mean")
            else "`t2gen explain --list` lists them"
        )
        raise typer.BadParameter(f"no rule {rule_id!r}; {close}", param_hint="'RULE'")
    fields = ", ".join(f"`{field}`" for field in found.fields)
    doc = _markdown_literals(found.doc)
    write_stdout(
        f"{found.id}: {doc}\n\nFields: {fields}\nSee also: docs/rules.md#{found.id}\n"
    )
