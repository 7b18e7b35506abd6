"""``t2gen explain``: print a job-file rule's documentation, by the ID its errors name."""

from __future__ import annotations

import re
from typing import Annotated

import typer

from t2gen.cli._report import write_stdout

_LITERAL = r"``(.+?)``"

__all__ = ["EPILOG", "explain"]

EPILOG = "Example:\n\n  t2gen explain workers-divisible\n\n  t2gen explain --list"


def explain(
    rule_id: Annotated[
        str,
        typer.Argument(
            help="A rule ID, as an error prints it: `... (t2gen explain <id>)`; `--list` for all.",
            metavar="RULE",
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
            "".join(f"{key}  {rule.title}\n" for key, rule in REGISTRY.items())
        )
        return
    found = REGISTRY.get(rule_id)
    if found is None:
        from t2gen.jobfile.messages import suggest

        hint = suggest(rule_id, list(REGISTRY), noun="rule") if rule_id else ""
        close = (
            hint
            if hint.startswith("did you mean")
            else "`t2gen explain --list` lists them"
        )
        raise typer.BadParameter(f"no rule {rule_id!r}; {close}", param_hint="'RULE'")
    fields = ", ".join(f"`{field}`" for field in found.fields)
    doc = re.sub(_LITERAL, r"`\1`", found.doc)  # reST ``x`` reads as `x` in a terminal
    write_stdout(
        f"{found.id}: {doc}\n\nFields: {fields}\nSee also: docs/rules.md#{found.id}\n"
    )
