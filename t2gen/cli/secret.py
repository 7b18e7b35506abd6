"""``t2gen secret ssh``: a Secret with an SSH key pair for OpenMPI jobs."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

import typer

from t2gen.cli._options import SETTINGS, check_namespace
from t2gen.cli._report import reporting, write_stdout
from t2gen.kube.validators import is_dns1123_label, is_dns1123_subdomain
from t2gen.twister2 import names

__all__ = ["app", "secret_ssh"]

app = typer.Typer(
    help="Make Secrets that jobs need; only `ssh` for now.",
    no_args_is_help=True,
    context_settings=SETTINGS,
)


KeyType = Enum(  # type: ignore[misc]  # the functional API, built from the one list
    "KeyType", [(name, name) for name in names.SSH_KEY_TYPES], type=str
)
"""``--key-type``'s choices: :data:`t2gen.twister2.names.SSH_KEY_TYPES`."""

_DEFAULT_KEY_TYPE = KeyType(names.SSH_KEY_TYPES[0])


def check_secret_name(value: str) -> str:
    """Check ``--name`` is a name ``spec.mpi.sshSecretName`` accepts.

    A Secret name is a DNS-1123 subdomain; the job schema's ``dns1123Subdomain``
    (which ``sshSecretName`` uses) also limits each dot-separated label to 63
    characters, stricter than Kubernetes, so the same is asked here: a Secret
    no job file could name would be of no use.

    Raises:
        typer.BadParameter: it is not (a usage error, exit code 2).
    """
    if not (
        is_dns1123_subdomain(value)
        and all(is_dns1123_label(label) for label in value.split("."))
    ):
        raise typer.BadParameter(
            f"{value!r} is not a Secret name: use lower-case letters, digits, '-' and '.'"
        )
    return value


def _check_optional_secret_name(value: str | None) -> str | None:
    return None if value is None else check_secret_name(value)


@app.command(
    "ssh",
    epilog="Examples:\n\n"
    "  t2gen secret ssh --job job.yaml | kubectl apply -f -\n\n"
    "  t2gen secret ssh --name twister2-openmpi-ssh-key | kubectl apply -f -\n\n"
    "  ssh-keygen -t ed25519 -N '' -f key && t2gen secret ssh --job job.yaml --from-key key",
)
def secret_ssh(
    job: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--job",
            help="The job file of the one OpenMPI job this key is for: the Secret is its "
            "spec.mpi.sshSecretName (default <job>-ssh) in its namespace, labelled t2-job=<job>.",
            metavar="JOB",
        ),
    ] = None,
    name: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--name",
            callback=_check_optional_secret_name,
            help="The Secret's name instead of --job: a key the jobs naming it in "
            "spec.mpi.sshSecretName share.",
        ),
    ] = None,
    namespace: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--namespace",
            "-n",
            callback=check_namespace,
            help="Namespace of the Secret (the jobs' namespace); omitted: none is written.",
        ),
    ] = None,
    key_type: Annotated[
        KeyType,
        typer.Option(
            "--key-type",
            case_sensitive=False,
            help="Type of a fresh key pair.",
        ),
    ] = _DEFAULT_KEY_TYPE,
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
    SSH between them, as root. Give --job for a key of that job only (the
    default of spec.mpi.sshSecretName, <job>-ssh): a key shared by several jobs
    (--name) lets each of them SSH into the others' pods. The Secret is
    immutable, so applying a different key later fails instead of rotating keys
    under running jobs. The private key is only ever written to standard
    output, inside the Secret.
    """
    if (job is None) == (name is None):
        raise typer.BadParameter(
            "give --job JOB (a key for that job) or --name NAME (a key shared by the jobs naming it)",
            param_hint="'--job' / '--name'",
        )
    with reporting():
        from t2gen.output.stream import to_yaml_stream
        from t2gen.pipeline.secret import generate_ssh_secret

        owner = None
        if job is not None:
            owner, name, namespace = _job_secret(job, namespace)
        assert name is not None
        documents = generate_ssh_secret(
            name,
            namespace=namespace,
            key_type=key_type.value,
            from_key=from_key,
            job=owner,
        )
        write_stdout(to_yaml_stream(documents))


def _job_secret(path: str, namespace: str | None) -> tuple[str, str, str | None]:
    """The job's name, its Secret's name and namespace, from a valid OpenMPI job file.

    Raises:
        SchemaError: the job file is unreadable or invalid.
        T2genError: the job does not use OpenMPI.
    """
    from t2gen.errors import T2genError
    from t2gen.pipeline.load import validate_files

    (loaded,) = validate_files([path], namespace=namespace)
    if not loaded.spec.mpi.enabled:
        raise T2genError(
            f"{path}: job {loaded.name} does not use OpenMPI (spec.mpi.enabled is false), "
            "so its pods mount no SSH key"
        )
    return loaded.name, loaded.spec.mpi.ssh_secret_name, loaded.namespace
