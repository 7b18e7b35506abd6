"""The ``t2gen`` command line: parse options, call the pipeline, print, pick the exit code.

Heavy libraries (Jinja2, jsonschema, ruamel.yaml, PyYAML) are imported inside
the commands that need them, so ``t2gen --help`` and ``--version`` start fast.
Exit codes: 0 ok, 1 invalid input (or a failed check), 2 usage error.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from t2gen.errors import T2genError

__all__ = ["app", "main"]

_SETTINGS = {"help_option_names": ["-h", "--help"]}

app = typer.Typer(
    name="t2gen",
    help="Render the Kubernetes manifests of a Twister2 job from one small, validated job file.\n\n"
    "Start with `t2gen init > job.yaml`, then `t2gen render job.yaml | kubectl apply -f -`.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    context_settings=_SETTINGS,
)
templates_app = typer.Typer(
    help="Inspect the built-in templates, to start custom ones (`render --templates DIR`).",
    no_args_is_help=True,
    context_settings=_SETTINGS,
)
secret_app = typer.Typer(
    help="Make Secrets that jobs need; only `ssh` for now.",
    no_args_is_help=True,
    context_settings=_SETTINGS,
)
app.add_typer(templates_app, name="templates")
app.add_typer(secret_app, name="secret")

_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS_SUBDOMAIN = re.compile(
    r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*"
)


class OutputFormat(str, Enum):
    """Formats ``render`` can write."""

    yaml = "yaml"
    json = "json"
    helm = "helm"


class KeyType(str, Enum):
    """Key types ``secret ssh`` can make."""

    rsa = "rsa"
    ed25519 = "ed25519"


def _version(value: bool) -> None:
    """Print the version and exit (an eager ``--version`` option)."""
    if value:
        from importlib.metadata import version

        typer.echo(f"t2gen {version('t2gen')}")
        raise typer.Exit()


def _namespace(value: Optional[str]) -> Optional[str]:  # noqa: UP045 - Typer reads the annotation at run time
    """Check ``--namespace`` is a DNS-1123 label, as Kubernetes requires."""
    if value is not None and (len(value) > 63 or not _DNS_LABEL.fullmatch(value)):
        raise typer.BadParameter(
            f"{value!r} is not a namespace name: use at most 63 lower-case letters, digits and '-', "
            "starting and ending with a letter or digit"
        )
    return value


def _secret_name(value: str) -> str:
    """Check ``--name`` is a DNS-1123 subdomain (a Secret name)."""
    if len(value) > 253 or not _DNS_SUBDOMAIN.fullmatch(value):
        raise typer.BadParameter(
            f"{value!r} is not a Secret name: use lower-case letters, digits, '-' and '.'"
        )
    return value


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_version,
            is_eager=True,
            help="Print t2gen's version and exit.",
        ),
    ] = False,
) -> None:
    """Render the Kubernetes manifests of a Twister2 job from one small, validated job file."""


@contextmanager
def _reporting() -> Iterator[None]:
    """Turn a T2genError into lines on stderr and exit code 1 (never a traceback)."""
    try:
        yield
    except T2genError as err:
        for line in err.lines():
            typer.echo(line, err=True)
        raise typer.Exit(1) from None


def _write_stdout(text: str) -> None:
    """Write UTF-8 text with LF line ends to stdout, whatever the locale."""
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()


def _warn(lines: list[str]) -> None:
    for line in lines:
        typer.echo(f"warning: {line}", err=True)


JobFiles = Annotated[
    list[str],
    typer.Argument(
        help="Job files (YAML or JSON); `-` reads one from standard input.",
        metavar="JOB...",
    ),
]
Namespace = Annotated[
    Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
    typer.Option(
        "--namespace",
        "-n",
        callback=_namespace,
        help="Namespace for every object; overrides metadata.namespace of the job file.",
    ),
]
KubeVersion = Annotated[
    Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
    typer.Option(
        "--kube-version",
        help="Kubernetes version whose OpenAPI schemas to check against (1.25 to 1.37; default 1.37).",
        metavar="VERSION",
    ),
]
TemplateDirs = Annotated[
    Optional[list[Path]],  # noqa: UP045 - Typer reads the annotation at run time
    typer.Option(
        "--templates",
        "-t",
        help="A directory of templates laid over the built-in ones: a file with a built-in "
        "template's name replaces it, a new file adds objects. Repeatable; the first wins.",
        file_okay=False,
        metavar="DIR",
    ),
]
_LATEST = "1.37"


@app.command(
    epilog="Examples:\n\n  t2gen validate examples/*.yaml\n\n  cat job.yaml | t2gen validate -",
)
def validate(jobs: JobFiles, namespace: Namespace = None) -> None:
    """Check job files against the schema and Twister2's rules.

    Every problem of every file is printed as `file:line:col: field: message`;
    exit code 1 if there is any.
    """
    with _reporting():
        from t2gen.pipeline import validate_files

        for job in validate_files(jobs, namespace=namespace):
            workers, pods = job.spec.total_workers, job.spec.total_pods
            typer.echo(
                f"{job.source}: valid: job {job.name}, {workers} worker{'s' if workers != 1 else ''} "
                f"in {pods} pod{'s' if pods != 1 else ''}"
            )


@app.command(
    epilog="Examples:\n\n"
    "  t2gen render job.yaml | kubectl apply -f -\n\n"
    "  t2gen render job.yaml -o manifests/ && kubectl apply -k manifests/\n\n"
    "  t2gen render job.yaml --namespace analytics --format json\n\n"
    "  t2gen render job.yaml --validate --kube-version 1.30\n\n"
    "  t2gen render job.yaml --format helm > chart/templates/job.yaml",
)
def render(
    jobs: JobFiles,
    output: Annotated[
        Optional[Path],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--output-dir",
            "-o",
            help="Write one file per object plus kustomization.yaml into this directory (replaced atomically).",
            file_okay=False,
        ),
    ] = None,
    namespace: Namespace = None,
    output_format: Annotated[
        OutputFormat,
        typer.Option(
            "--format",
            "-f",
            help="yaml: a `---` stream; json: one v1 List; helm: YAML with `{{` escaped for a chart's templates/.",
            case_sensitive=False,
        ),
    ] = OutputFormat.yaml,
    job_object: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--job-object",
            help="The job's serialised Twister2 Job object (<job>.job of its package); "
            "stored as TWISTER2_JOB_OBJECT in the ConfigMap. One job file only.",
            metavar="FILE",
        ),
    ] = None,
    templates: TemplateDirs = None,
    kube_validate: Annotated[
        bool,
        typer.Option(
            "--validate",
            help="Also check every object against Kubernetes' OpenAPI schemas (strict, offline; "
            "needs kubernetes-validate: the t2gen\\[validate] extra).",
        ),
    ] = False,
    kube_version: KubeVersion = None,
) -> None:
    """Render the manifests of one or more jobs.

    Nothing is written unless every job is valid and every object passes
    t2gen's checks, so `| kubectl apply -f -` never applies half a job.

    With bindWorkersToCpu the workers get Guaranteed QoS with whole cores; they
    own those cores only on nodes whose kubelet runs the static CPU manager
    policy (--cpu-manager-policy=static with a CPU reservation).
    """
    with _reporting():
        from t2gen.output import (
            to_helm_templates,
            to_json,
            to_yaml_stream,
            write_directory,
        )
        from t2gen.pipeline import generate, validate_manifests

        if output is not None and output_format is not OutputFormat.yaml:
            raise typer.BadParameter(
                "-o writes YAML files for kustomize; --format applies to standard output only",
                param_hint="'--format'",
            )
        if kube_version is not None and not kube_validate:
            raise typer.BadParameter("needs --validate", param_hint="'--kube-version'")
        documents = generate(
            jobs,
            namespace=namespace,
            job_object=job_object,
            template_dirs=[str(path) for path in templates or ()],
        )
        if kube_validate:
            _warn(
                validate_manifests(
                    [document.obj for document in documents], kube_version or _LATEST
                )
            )
        if output is not None:
            for path in write_directory(documents, output, sources=jobs):
                typer.echo(str(path), err=True)
        elif output_format is OutputFormat.json:
            _write_stdout(to_json(documents))
        elif output_format is OutputFormat.helm:
            _write_stdout(to_helm_templates(documents))
        else:
            _write_stdout(to_yaml_stream(documents))


@app.command(
    epilog="Examples:\n\n"
    "  t2gen check manifests.yaml\n\n"
    "  kubectl kustomize overlays/prod | t2gen check - --kube-version 1.30",
)
def check(
    manifests: Annotated[
        list[str],
        typer.Argument(
            help="Manifest files (a YAML stream or JSON); `-` reads standard input.",
            metavar="FILE...",
        ),
    ],
    kube_version: KubeVersion = None,
) -> None:
    """Check any manifests: Kubernetes' OpenAPI schemas (strict) plus t2gen's semantic checks.

    Every error of every object is printed as `Kind/name: field: message`; exit
    code 1 if there is any. Objects of kinds without a schema (custom resources)
    are named in a warning and not checked.
    """
    with _reporting():
        from t2gen.pipeline import check_manifests

        version = kube_version or _LATEST
        count, warnings = check_manifests(manifests, version)
        _warn(warnings)
        checked = count - len(warnings)
        summary = f"{checked} object{'s' if checked != 1 else ''} valid for Kubernetes {version} (strict)"
        if warnings:
            summary += f"; {len(warnings)} not checked (no schema)"
        typer.echo(summary)


@app.command(epilog="Example:\n\n  t2gen schema > twister2job.schema.json")
def schema() -> None:
    """Print the job file's JSON Schema (draft 2020-12), for editors and pre-commit."""
    with _reporting():
        from t2gen.resources import schema_path

        _write_stdout(schema_path().read_text(encoding="utf-8"))


@app.command(epilog="Example:\n\n  t2gen init > job.yaml && t2gen render job.yaml")
def init() -> None:
    """Print a commented starter job file that validates and renders as it is."""
    with _reporting():
        from t2gen.resources import starter_job_path

        _write_stdout(starter_job_path().read_text(encoding="utf-8"))


@templates_app.command(
    "list", epilog="Example:\n\n  t2gen templates list --templates my-templates/"
)
def templates_list(templates: TemplateDirs = None) -> None:
    """List the templates a render uses, with where each comes from (partials start with `_`)."""
    with _reporting():
        from t2gen.pipeline import make_template_set

        for name, label in make_template_set(
            [str(path) for path in templates or ()]
        ).all_templates():
            typer.echo(f"{name}\t{label}")


@templates_app.command(
    "show",
    epilog="Example:\n\n  mkdir my-templates && t2gen templates show service-job-master.yaml.j2 > my-templates/service-job-master.yaml.j2",
)
def templates_show(
    name: Annotated[
        str, typer.Argument(help="A template's file name, e.g. configmap.yaml.j2.")
    ],
    templates: TemplateDirs = None,
) -> None:
    """Print a template's source, to copy into a directory for `render --templates`."""
    with _reporting():
        from t2gen.pipeline import make_template_set

        _write_stdout(
            make_template_set([str(path) for path in templates or ()]).source(name)
        )


@secret_app.command(
    "ssh",
    epilog="Examples:\n\n"
    "  t2gen secret ssh --name twister2-openmpi-ssh-key | kubectl apply -f -\n\n"
    "  ssh-keygen -t ed25519 -N '' -f key && t2gen secret ssh --name twister2-openmpi-ssh-key --from-key key",
)
def secret_ssh(
    name: Annotated[
        str,
        typer.Option(
            "--name",
            callback=_secret_name,
            help="The Secret's name: spec.mpi.sshSecretName of the jobs that use it.",
        ),
    ],
    namespace: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--namespace",
            "-n",
            callback=_namespace,
            help="Namespace of the Secret (the jobs' namespace); omitted: none is written.",
        ),
    ] = None,
    key_type: Annotated[
        KeyType,
        typer.Option(
            "--key-type", help="Type of a fresh key pair.", case_sensitive=False
        ),
    ] = KeyType.rsa,
    from_key: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--from-key",
            help="Use this unencrypted private key (OpenSSH or PEM) instead of a fresh one, "
            "so running again gives the same Secret.",
            metavar="FILE",
        ),
    ] = None,
) -> None:
    """Print a Secret with an SSH key pair for OpenMPI jobs (id_rsa, id_rsa.pub, authorized_keys).

    The pods of an OpenMPI job mount it at /ssh-key/openmpi for password-free
    SSH between them. The Secret is immutable, so applying a different key later
    fails instead of rotating keys under running jobs. The private key is only
    ever written to standard output, inside the Secret.
    """
    with _reporting():
        from t2gen.output import to_yaml_stream
        from t2gen.pipeline import generate_ssh_secret

        documents = generate_ssh_secret(
            name, namespace=namespace, key_type=key_type.value, from_key=from_key
        )
        _write_stdout(to_yaml_stream(documents))


def main() -> None:
    """Run the command line (the ``t2gen`` script and ``python -m t2gen``).

    Usage errors (an unknown option, a missing argument, a bad value) are one
    line on stderr naming the command, then exit code 2, instead of Click's
    usage block; a closed stdout (``t2gen render job.yaml | head``) ends quietly.
    """
    from typer import _click  # typer 0.27-0.28 vendor Click here

    try:
        result = app(standalone_mode=False, prog_name="t2gen")
    except _click.exceptions.NoArgsIsHelpError as err:
        typer.echo(err.format_message(), err=True)
        sys.exit(err.exit_code)
    except _click.exceptions.UsageError as err:
        command = err.ctx.command_path if err.ctx is not None else "t2gen"
        typer.echo(
            f"{command}: {err.format_message().rstrip('.')} (see '{command} --help')",
            err=True,
        )
        sys.exit(err.exit_code)
    except _click.exceptions.ClickException as err:
        typer.echo(f"t2gen: {err.format_message().rstrip('.')}", err=True)
        sys.exit(err.exit_code)
    except typer.Abort:
        typer.echo("t2gen: aborted", err=True)
        sys.exit(1)
    sys.exit(result if isinstance(result, int) else 0)
