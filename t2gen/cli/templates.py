"""``t2gen templates list|show``: the templates a render uses, to start custom ones."""

from __future__ import annotations

from typing import Annotated

import typer

from t2gen.cli._options import SETTINGS, TemplateDirs, template_dirs
from t2gen.cli._report import reporting, write_stdout
from t2gen.cli.commands import echo

__all__ = ["app"]

app = typer.Typer(
    help="Inspect the built-in templates, to start custom ones (`render --templates DIR`).",
    no_args_is_help=True,
    context_settings=SETTINGS,
)


@app.command(
    "list", epilog="Example:\n\n  t2gen templates list --templates my-templates/"
)
def templates_list(templates: TemplateDirs = None) -> None:
    """List the templates a render uses, with where each comes from (partials start with `_`)."""
    with reporting():
        from t2gen.pipeline.job import make_template_set

        for name, label in make_template_set(
            template_dirs(templates), for_render=False
        ).all_templates():
            echo(f"{name}\t{label}")


def complete_template_names(ctx: typer.Context, incomplete: str) -> list[str]:
    """Shell completion of ``templates show NAME``: the templates a render would use.

    Templates from ``--templates`` directories typed before NAME count too; a
    directory that cannot be read completes nothing rather than failing.
    """
    from t2gen.errors import T2genError
    from t2gen.pipeline.job import make_template_set

    directories = template_dirs(ctx.params.get("templates"))
    try:
        names = [
            name
            for name, _ in make_template_set(
                directories, for_render=False
            ).all_templates()
        ]
    except (T2genError, OSError):
        return []
    return [name for name in names if name.startswith(incomplete)]


@app.command(
    "show",
    epilog="Example:\n\n  mkdir my-templates && t2gen templates show service-job-master.yaml.j2 > my-templates/service-job-master.yaml.j2",
)
def templates_show(
    name: Annotated[
        str,
        typer.Argument(
            help="A template's file name, e.g. configmap.yaml.j2.",
            autocompletion=complete_template_names,
        ),
    ],
    templates: TemplateDirs = None,
) -> None:
    """Print a template's source, to copy into a directory for `render --templates`."""
    with reporting():
        from t2gen.pipeline.job import make_template_set

        write_stdout(
            make_template_set(template_dirs(templates), for_render=False).source(name)
        )
