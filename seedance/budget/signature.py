"""Authenticity of an SNS message: Amazon SNS's signature, its signing certificate, its age, its topic.

A budget response can scale fleets to zero, so a pipeline that takes alerts from an HTTP endpoint
must not act on a forged one.  SNS signs every message with RSA: SignatureVersion 1 over SHA-1,
2 over SHA-256, PKCS#1 v1.5, of a canonical string of ``Key\\nValue\\n`` pairs whose keys and order
depend on the message type (AWS SNS developer guide, "Verifying the signatures of Amazon SNS
messages").  The certificate comes from ``SigningCertURL``, which must be an HTTPS address on an
``sns.<region>.amazonaws.com`` (or ``.amazonaws.com.cn``) host; it is checked before anything is
fetched.  A pipeline may instead pass the certificate it trusts (``--signing-cert``).

Everything here is a pure function of its arguments except :func:`fetch_certificate` and :func:`now_utc`.
"""

from __future__ import annotations

import base64
import binascii
import logging
import re
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from seedance.budget.events import BudgetEventError

log = logging.getLogger(__name__)

# The keys signed, in order, per message type (only the keys present are signed; Subject is optional).
SIGNED_KEYS: dict[str, tuple[str, ...]] = {
    "Notification": ("Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"),
    "SubscriptionConfirmation": ("Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"),
    "UnsubscribeConfirmation": ("Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"),
}
# sns.<region>.amazonaws.com(.cn): the middle label must be a region (us-east-1, us-gov-west-1,
# cn-north-1), so S3 virtual-host names of a bucket called "sns" (sns.s3.amazonaws.com) do not pass
# (an .amazonaws.com.cn host for a China region only, and only there)
CERT_URL = re.compile(r"^https://sns\.(?:cn-[a-z]+-[0-9]\.amazonaws\.com\.cn"
                      r"|(?!cn-)[a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-[0-9]\.amazonaws\.com)/[A-Za-z0-9._-]+\.pem$")
MAX_CERT_BYTES = 64 * 1024
DEFAULT_MAX_AGE = timedelta(hours=24)
CLOCK_SKEW = timedelta(minutes=5)


class SignatureError(BudgetEventError):
    """The message cannot be shown to come from Amazon SNS (or from the expected topic)."""


@dataclass(frozen=True)
class Verified:
    """What a successful verification established."""

    topic_arn: str
    signature_version: str
    cert_url: str
    cert_subject: str
    timestamp: datetime


def _get(sns: Mapping[str, Any], key: str) -> Any:
    """A field in the HTTP casing (``SigningCertURL``) or the Lambda one (``SigningCertUrl``)."""
    if key in sns:
        return sns[key]
    return sns.get(key.replace("URL", "Url"))


def string_to_sign(sns: Mapping[str, Any]) -> bytes:
    """The canonical string SNS signs for this message."""
    kind = sns.get("Type")
    if kind not in SIGNED_KEYS:
        raise SignatureError(f"cannot verify a message of Type {kind!r}; expected one of {', '.join(SIGNED_KEYS)}")
    parts: list[str] = []
    for key in SIGNED_KEYS[kind]:
        value = _get(sns, key)
        if value is None:
            if key == "Subject":
                continue
            raise SignatureError(f"signed field '{key}' is missing")
        if not isinstance(value, str):
            raise SignatureError(f"signed field '{key}' is not a string")
        parts.append(f"{key}\n{value}\n")
    return "".join(parts).encode("utf-8")


def signing_cert_url(sns: Mapping[str, Any]) -> str:
    """``SigningCertURL``, once it is known to point at Amazon SNS over HTTPS."""
    url = _get(sns, "SigningCertURL")
    if not isinstance(url, str):
        raise SignatureError("no SigningCertURL: the message is not signed")
    if not CERT_URL.match(url):
        raise SignatureError(f"SigningCertURL {url!r} is not an HTTPS address on an sns.<region>.amazonaws.com host")
    return url


def parse_timestamp(value: Any) -> datetime:
    if not isinstance(value, str):
        raise SignatureError("no Timestamp")
    try:
        stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise SignatureError(f"Timestamp {value!r} is not an ISO 8601 time") from None
    if stamp.tzinfo is None:
        raise SignatureError(f"Timestamp {value!r} has no time zone")
    return stamp


def verify(sns: Mapping[str, Any], cert_pem: bytes, *, now: datetime, max_age: timedelta = DEFAULT_MAX_AGE,
           topic_arns: tuple[str, ...] = ()) -> Verified:
    """Check the message's signature with ``cert_pem``, its age at ``now`` and, if given, its topic.

    Raises :class:`SignatureError` naming the first check that fails.
    """
    from cryptography import x509
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding, rsa

    version = sns.get("SignatureVersion")
    hash_alg: hashes.HashAlgorithm
    if version == "1":
        hash_alg = hashes.SHA1()
    elif version == "2":
        hash_alg = hashes.SHA256()
    else:
        raise SignatureError(f"SignatureVersion {version!r} is not 1 or 2")
    signature = sns.get("Signature")
    if not isinstance(signature, str) or not signature:
        raise SignatureError("no Signature: the message is not signed")
    try:
        sig = base64.b64decode(signature, validate=True)
    except (binascii.Error, ValueError):
        raise SignatureError("Signature is not base64") from None
    try:
        cert = x509.load_pem_x509_certificate(cert_pem)
    except ValueError:
        raise SignatureError("the signing certificate is not a PEM X.509 certificate") from None
    if not (cert.not_valid_before_utc <= now <= cert.not_valid_after_utc):
        raise SignatureError(f"the signing certificate is not valid at {now:%Y-%m-%dT%H:%M:%SZ} "
                             f"(valid {cert.not_valid_before_utc:%Y-%m-%d} to {cert.not_valid_after_utc:%Y-%m-%d})")
    key = cert.public_key()
    if not isinstance(key, rsa.RSAPublicKey):
        raise SignatureError("the signing certificate's key is not RSA")
    try:
        key.verify(sig, string_to_sign(sns), padding.PKCS1v15(), hash_alg)
    except InvalidSignature:
        raise SignatureError("the signature does not match the message: it was altered or not signed by this certificate") from None
    stamp = parse_timestamp(sns.get("Timestamp"))
    if stamp > now + CLOCK_SKEW:
        raise SignatureError(f"Timestamp {sns['Timestamp']} is in the future")
    if now - stamp > max_age:
        raise SignatureError(f"message sent {sns['Timestamp']} is older than {_hours(max_age)}: a replay is refused")
    topic = sns.get("TopicArn")
    if topic_arns and topic not in topic_arns:
        raise SignatureError(f"TopicArn {topic} is not {' or '.join(topic_arns)}")
    return Verified(topic_arn=str(topic), signature_version=version, cert_url=str(_get(sns, "SigningCertURL")),
                    cert_subject=cert.subject.rfc4514_string(), timestamp=stamp)


def _hours(delta: timedelta) -> str:
    hours = delta.total_seconds() / 3600
    return f"{hours:g} h"


Opener = Callable[..., Any]


def fetch_certificate(url: str, *, timeout: float = 10.0, opener: Opener | None = None) -> bytes:
    """Download the signing certificate at ``url`` (after :func:`signing_cert_url` accepted it).

    TLS verification is the standard library's default, so the host's certificate must chain to a
    trusted root; a redirect away from an SNS certificate address is refused.  At most 64 KiB are read.
    """
    if not CERT_URL.match(url):
        raise SignatureError(f"refusing to fetch {url!r}: not an Amazon SNS certificate address")
    log.info("fetching SNS signing certificate %s", url)
    try:
        with (opener or urllib.request.urlopen)(url, timeout=timeout) as resp:
            final = resp.geturl()
            body: bytes = resp.read(MAX_CERT_BYTES + 1)
    except OSError as exc:
        raise SignatureError(f"cannot fetch the signing certificate {url}: {exc}") from None
    if not CERT_URL.match(final):
        raise SignatureError(f"fetching {url} was redirected to {final!r}, not an Amazon SNS certificate address")
    if len(body) > MAX_CERT_BYTES:
        raise SignatureError(f"the signing certificate at {url} is larger than {MAX_CERT_BYTES:,} bytes")
    return body


def now_utc() -> datetime:
    return datetime.now(timezone.utc)
