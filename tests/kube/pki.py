"""The local control plane's keys: a CA, the serving certificate of the apiserver (and of kwok's
kubelet endpoint), the service-account signing key pair, and (`issue`) the certificates of the
real nodes: each kubelet's serving certificate, and the apiserver's client certificate for
talking to kubelets."""

from __future__ import annotations

import datetime
import ipaddress
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID

SERVER_NAMES = ("localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc")
SERVER_IPS = ("127.0.0.1", "10.96.0.1")


def _write_key(key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey, path: Path) -> None:
    data = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    path.write_bytes(data)
    path.chmod(0o600)


def _certificate(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: tuple[x509.Certificate, ec.EllipticCurvePrivateKey] | None,
    names: tuple[str, ...] = SERVER_NAMES,
    ips: tuple[str, ...] = SERVER_IPS,
    organization: str | None = None,
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    attributes = [x509.NameAttribute(NameOID.COMMON_NAME, subject)]
    if organization:
        attributes.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization))
    name = x509.Name(attributes)
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer[0].subject if issuer else name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=365))
        .add_extension(x509.BasicConstraints(ca=issuer is None, path_length=None), critical=True)
    )
    if issuer is not None and (names or ips):
        alternatives: list[x509.GeneralName] = [x509.DNSName(n) for n in names]
        alternatives += [x509.IPAddress(ipaddress.ip_address(ip)) for ip in ips]
        extension = x509.SubjectAlternativeName(alternatives)
        builder = builder.add_extension(extension, critical=False)
    return builder.sign(issuer[1] if issuer else key, hashes.SHA256())


def generate(directory: Path) -> None:
    """ca.crt/.key, server.crt/.key (signed by the CA) and sa.key/sa.pub, in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _certificate("gpuctl-kube-ca", ca_key, None)
    server_key = ec.generate_private_key(ec.SECP256R1())
    server = _certificate("kube-apiserver", server_key, (ca, ca_key))
    (directory / "ca.crt").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    _write_key(ca_key, directory / "ca.key")
    (directory / "server.crt").write_bytes(server.public_bytes(serialization.Encoding.PEM))
    _write_key(server_key, directory / "server.key")
    sa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    _write_key(sa_key, directory / "sa.key")
    public = sa_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    (directory / "sa.pub").write_bytes(public)


def issue(
    directory: Path,
    stem: str,
    subject: str,
    *,
    organization: str | None = None,
    names: tuple[str, ...] = (),
    ips: tuple[str, ...] = (),
) -> tuple[Path, Path]:
    """STEM.crt/.key in `directory`, signed by the CA that `generate` wrote there: a serving
    certificate for `names`/`ips`, or (with neither) a client certificate for `subject` in the
    group `organization`."""
    ca = x509.load_pem_x509_certificate((directory / "ca.crt").read_bytes())
    ca_key = serialization.load_pem_private_key((directory / "ca.key").read_bytes(), None)
    if not isinstance(ca_key, ec.EllipticCurvePrivateKey):
        raise TypeError(f"{directory / 'ca.key'} is not the EC key `generate` writes")
    key = ec.generate_private_key(ec.SECP256R1())
    certificate = _certificate(subject, key, (ca, ca_key), names, ips, organization)
    crt, key_path = directory / f"{stem}.crt", directory / f"{stem}.key"
    crt.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    _write_key(key, key_path)
    return crt, key_path
