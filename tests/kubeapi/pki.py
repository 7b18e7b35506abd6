"""The control plane's certificates and keys, made with ``cryptography`` (already a t2gen dependency).

The same set ``kube-up`` makes with openssl (``../shared/kube/kube-up``, step 2), on
ECDSA P-256 keys, which take milliseconds where RSA takes a second on two cores:
a CA; the API server's serving certificate for 127.0.0.1 and the in-cluster
names; client certificates for the admin (group ``system:masters``), the
controller manager and the scheduler (the users their default RBAC roles name,
https://kubernetes.io/docs/reference/access-authn-authz/rbac/#core-component-roles);
and the ServiceAccount token signing key (ES256 is accepted:
https://kubernetes.io/docs/reference/command-line-tools-reference/kube-apiserver/,
``--service-account-signing-key-file``).
"""

from __future__ import annotations

import datetime
import ipaddress
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

SERVER_NAMES = (
    "localhost",
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
)
CLIENTS = {
    "admin": ("kube-test-admin", "system:masters"),
    "controller-manager": ("system:kube-controller-manager", None),
    "scheduler": ("system:kube-scheduler", None),
}
"""File stem -> (common name, organisation): the user and group the API server sees."""


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _name(common: str, organisation: str | None = None) -> x509.Name:
    parts = [x509.NameAttribute(NameOID.COMMON_NAME, common)]
    if organisation:
        parts.insert(0, x509.NameAttribute(NameOID.ORGANIZATION_NAME, organisation))
    return x509.Name(parts)


def _certificate(
    subject: x509.Name,
    key: ec.EllipticCurvePrivateKey,
    issuer: x509.Name,
    signer: ec.EllipticCurvePrivateKey,
    *,
    ca: bool = False,
    usage: list[x509.ObjectIdentifier] | None = None,
    names: list[x509.GeneralName] | None = None,
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if usage:
        builder = builder.add_extension(x509.ExtendedKeyUsage(usage), critical=False)
    if names:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(names), critical=False
        )
    return builder.sign(signer, hashes.SHA256())


def write_pki(directory: Path) -> None:
    """Write ``ca``, ``apiserver``, the clients of :data:`CLIENTS` (``.crt``/``.key``) and ``sa.key``/``sa.pub``."""
    directory.mkdir(parents=True, exist_ok=True)
    ca_key = _key()
    ca_name = _name("kube-test-ca")
    ca = _certificate(ca_name, ca_key, ca_name, ca_key, ca=True)

    def save(
        stem: str, cert: x509.Certificate, key: ec.EllipticCurvePrivateKey
    ) -> None:
        pem = cert.public_bytes(serialization.Encoding.PEM)
        (directory / f"{stem}.crt").write_bytes(pem)
        (directory / f"{stem}.key").write_bytes(_pem_key(key))

    save("ca", ca, ca_key)
    server_key = _key()
    names: list[x509.GeneralName] = [
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
        x509.IPAddress(ipaddress.ip_address("10.96.0.1")),
        *(x509.DNSName(name) for name in SERVER_NAMES),
    ]
    usage = [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
    server = _certificate(
        _name("kube-apiserver"), server_key, ca_name, ca_key, usage=usage, names=names
    )
    save("apiserver", server, server_key)
    for stem, (common, organisation) in CLIENTS.items():
        key = _key()
        cert = _certificate(
            _name(common, organisation),
            key,
            ca_name,
            ca_key,
            usage=[ExtendedKeyUsageOID.CLIENT_AUTH],
        )
        save(stem, cert, key)
    sa_key = _key()
    (directory / "sa.key").write_bytes(_pem_key(sa_key))
    (directory / "sa.pub").write_bytes(
        sa_key.public_key().public_bytes(
            serialization.Encoding.PEM,
            serialization.PublicFormat.SubjectPublicKeyInfo,
        )
    )
