"""``t2gen secret ssh``: the Secret holding an OpenMPI job's SSH key pair, rendered and checked."""

from __future__ import annotations

from pathlib import Path

from t2gen.checks import object_problems
from t2gen.errors import ValidationError
from t2gen.inputs.privatekey import read_private_key
from t2gen.render.engine import RenderedDocument, TemplateSet, render
from t2gen.resources import templates_dir

__all__ = ["generate_ssh_secret"]


def generate_ssh_secret(
    name: str,
    *,
    namespace: str | None = None,
    key_type: str | None = None,
    from_key: str | None = None,
    job: str | None = None,
) -> list[RenderedDocument]:
    """Render the Secret holding an OpenMPI job's SSH key pair.

    Args:
        name: the Secret's name (``spec.mpi.sshSecretName`` of the jobs using it).
        namespace: its namespace, or None.
        job: the job whose own key this is (labelled with it), or None.
        key_type: one of :data:`t2gen.twister2.sshkeys.KEY_TYPES` for a fresh key
            pair; None: the first of them (``rsa``).
        from_key: a private key file to use instead of a fresh one (``-`` for stdin),
            so that running again gives the same Secret.

    Returns:
        The Secret, checked like every rendered object.

    Raises:
        ConfigError: ``from_key`` is unreadable or not an unencrypted private key.
        ValidationError: the Secret fails a semantic check.
    """
    from t2gen.twister2.sshkeys import (
        KEY_TYPES,
        generate_key_files,
        key_files_from_private_key,
        secret_context,
    )

    if from_key is not None:
        raw = read_private_key(from_key)
        files = key_files_from_private_key(raw, path=from_key, comment=name)
    else:
        files = generate_key_files(key_type or KEY_TYPES[0], comment=name)
    templates = TemplateSet(name="secret", builtin=str(Path(templates_dir(), "secret")))
    documents = render(secret_context(name, namespace, files, job=job), templates)
    findings = object_problems([document.obj for document in documents])
    if findings:
        raise ValidationError(findings=findings)
    return documents
