"""SNS signature verification for budget alerts: canonical strings, signatures, certificates, replays, topics.

Three real notifications carry Amazon's own signatures; they are checked against Amazon's signing
certificate of the time (``tests/budget/amazon/``, a public certificate). Everything else re-signs the
real notifications with a test key and certificate, so that timestamps, fields and keys can vary; the
canonical strings are checked against the layout in the AWS SNS guide.
"""

from __future__ import annotations

import base64
import datetime as dt
import http.server
import json
import os
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from click.testing import CliRunner, Result
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID

from seedance.budget.events import alert_from_message, read_envelope
from seedance.budget.signature import SignatureError, fetch_certificate, signing_cert_url, string_to_sign, verify
from seedance.cli import app

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(os.environ.get("SEEDANCE_SHARED_DATA") or REPO.parent / "shared" / "data") / "fixtures" / "aws-sns-budgets"
EU_PROD = REPO / "stacks" / "policies" / "eu-prod.yaml"
NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.timezone.utc)
AMAZON_CERT = Path(__file__).resolve().parent / "amazon" / "sns-signing-cert-2022-06.pem"


def _fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def _cert(key: rsa.RSAPrivateKey, *, not_before: dt.datetime, not_after: dt.datetime) -> bytes:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "sns.amazonaws.com")])
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(not_before).not_valid_after(not_after)
            .sign(key, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM)


@pytest.fixture(scope="module")
def key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="module")
def cert(key: rsa.RSAPrivateKey) -> bytes:
    return _cert(key, not_before=NOW - dt.timedelta(days=30), not_after=NOW + dt.timedelta(days=30))


def _sign(doc: dict[str, Any], key: rsa.RSAPrivateKey, version: str = "1") -> dict[str, Any]:
    doc = {**doc, "SignatureVersion": version}
    digest = hashes.SHA1() if version == "1" else hashes.SHA256()
    doc["Signature"] = base64.b64encode(key.sign(string_to_sign(doc), padding.PKCS1v15(), digest)).decode()
    return doc


def _alert(timestamp: dt.datetime = NOW, **replace: str) -> dict[str, Any]:
    """The real monthly-actual notification, sent at ``timestamp``, with text replaced."""
    doc = json.loads(_fixture("sre-bot.sns-http-notification.budget-monthly-actual.json"))
    for old, new in replace.items():
        doc["Message"] = doc["Message"].replace(old, new)
    doc["Timestamp"] = timestamp.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    return doc


def test_canonical_notification_string_follows_the_aws_layout() -> None:
    doc = read_envelope(_fixture("awsdocs.sns-http-post.notification.txt"))
    assert string_to_sign(doc) == (
        b"Message\nHello world!\n"
        b"MessageId\n22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324\n"
        b"Subject\nMy First Message\n"
        b"Timestamp\n2012-05-02T00:54:06.655Z\n"
        b"TopicArn\narn:aws:sns:us-west-2:123456789012:MyTopic\n"
        b"Type\nNotification\n")
    del doc["Subject"]  # Subject is signed only when present
    assert b"Subject" not in string_to_sign(doc)
    assert string_to_sign({**doc, "Subject": None}) == string_to_sign(doc)  # Lambda events carry "Subject": null


def test_canonical_subscription_confirmation_signs_token_and_subscribe_url() -> None:
    doc = read_envelope(_fixture("awsdocs.sns-http-post.subscription-confirmation.txt"))
    assert "\n" in doc["Message"]  # values are signed as they are, newlines included
    keys = ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"]
    assert string_to_sign(doc) == "".join(f"{k}\n{doc[k]}\n" for k in keys).encode()


def _amazon_signed(name: str) -> dict[str, Any]:
    doc = json.loads(_fixture(name))
    return doc["Records"][0]["Sns"] if "Records" in doc else doc


AMAZON_SIGNED = [  # (fixture, topic): messages Amazon SNS signed with the 2022-06 certificate
    ("sre-bot.sns-http-notification.budget-monthly-actual.json", "arn:aws:sns:ca-central-1:017790921725:test-sre-bot"),
    ("sre-bot.sns-http-notification.cloudwatch-alarm.json", "arn:aws:sns:ca-central-1:017790921725:test-sre-bot"),
    ("killswitch.lambda-sns-event.budget-daily-actual.json", "arn:aws:sns:us-east-1:265627204426:killswitch"),
]


@pytest.mark.parametrize(("name", "topic"), AMAZON_SIGNED)
def test_amazons_own_signatures_verify_against_its_certificate(name: str, topic: str) -> None:
    sns = _amazon_signed(name)
    sent = dt.datetime.fromisoformat(str(sns["Timestamp"]).replace("Z", "+00:00"))
    checked = verify(sns, AMAZON_CERT.read_bytes(), now=sent + dt.timedelta(minutes=5), topic_arns=(topic,))
    assert checked.signature_version == "1" and checked.topic_arn == topic
    assert checked.cert_subject == "CN=sns.amazonaws.com"
    assert checked.cert_url.endswith("/SimpleNotificationService-56e67fcb41f6fec09b0196692625d385.pem")


@pytest.mark.parametrize(("name", "topic"), AMAZON_SIGNED)
def test_a_changed_amount_breaks_amazons_signature(name: str, topic: str) -> None:
    sns = _amazon_signed(name)
    sent = dt.datetime.fromisoformat(str(sns["Timestamp"]).replace("Z", "+00:00"))
    message = str(sns["Message"])
    digit = next(i for i, c in enumerate(message) if c.isdigit())
    forged = {**sns, "Message": message[:digit] + str((int(message[digit]) + 1) % 10) + message[digit + 1:]}
    with pytest.raises(SignatureError, match="does not match the message"):
        verify(forged, AMAZON_CERT.read_bytes(), now=sent + dt.timedelta(minutes=5))


def test_amazons_certificate_is_refused_outside_its_validity() -> None:
    sns = _amazon_signed("sre-bot.sns-http-notification.budget-monthly-actual.json")
    with pytest.raises(SignatureError, match=r"not valid at 2026-11-30T12:00:00Z \(valid 2022-06-29 to 2023-06-03\)"):
        verify(sns, AMAZON_CERT.read_bytes(), now=NOW, max_age=dt.timedelta(days=5000))


@pytest.mark.parametrize("version", ["1", "2"])
def test_a_signed_real_alert_verifies(key: rsa.RSAPrivateKey, cert: bytes, version: str) -> None:
    doc = _sign(_alert(NOW - dt.timedelta(minutes=3)), key, version)
    checked = verify(doc, cert, now=NOW, topic_arns=("arn:aws:sns:ca-central-1:017790921725:test-sre-bot",))
    assert checked.signature_version == version and checked.topic_arn.endswith(":test-sre-bot")
    assert checked.cert_subject == "CN=sns.amazonaws.com"
    alert = alert_from_message(doc)
    assert alert is not None and alert.amount == 0.59


def test_the_lambda_envelope_verifies_with_its_own_casing(key: rsa.RSAPrivateKey, cert: bytes) -> None:
    event = json.loads(_fixture("killswitch.lambda-sns-event.budget-daily-actual.json"))
    sns = event["Records"][0]["Sns"]
    sns["Timestamp"] = NOW.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    event["Records"][0]["Sns"] = _sign(sns, key)
    message = read_envelope(json.dumps(event).encode())
    assert signing_cert_url(message).startswith("https://sns.us-east-1.amazonaws.com/")  # SigningCertUrl
    assert verify(message, cert, now=NOW).topic_arn.endswith(":killswitch")


@pytest.mark.parametrize(("field", "value"), [
    ("Message", "ACTUAL Amount: $0.59 -> $99.00"),
    ("TopicArn", "arn:aws:sns:ca-central-1:017790921725:another-topic"),
    ("Subject", "AWS Budgets: changed"),
    ("Timestamp", None),
])
def test_any_change_to_a_signed_field_is_caught(key: rsa.RSAPrivateKey, cert: bytes, field: str, value: str | None) -> None:
    doc = _sign(_alert(), key)
    if field == "Message":
        doc["Message"] = doc["Message"].replace("ACTUAL Amount: $0.59", "ACTUAL Amount: $99.00")
    elif field == "Timestamp":
        doc["Timestamp"] = (NOW - dt.timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    else:
        doc[field] = value
    with pytest.raises(SignatureError, match="does not match the message"):
        verify(doc, cert, now=NOW)


def test_unsigned_fields_may_change(key: rsa.RSAPrivateKey, cert: bytes) -> None:
    doc = _sign(_alert(), key)
    doc["UnsubscribeURL"] = "https://example.com/"  # not signed by SNS, so not checked
    assert verify(doc, cert, now=NOW)


def test_a_signature_from_another_key_fails(key: rsa.RSAPrivateKey) -> None:
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    doc = _sign(_alert(), other)
    own = _cert(key, not_before=NOW - dt.timedelta(days=1), not_after=NOW + dt.timedelta(days=1))
    with pytest.raises(SignatureError, match="does not match"):
        verify(doc, own, now=NOW)


@pytest.mark.parametrize(("change", "message"), [
    ({"SignatureVersion": "3"}, "SignatureVersion '3' is not 1 or 2"),
    ({"Signature": ""}, "no Signature"),
    ({"Signature": "not base64!"}, "not base64"),
    ({"Type": "Weird"}, "cannot verify a message of Type 'Weird'"),
    ({"MessageId": None}, "signed field 'MessageId' is missing"),
])
def test_malformed_signatures_are_refused(key: rsa.RSAPrivateKey, cert: bytes, change: dict, message: str) -> None:
    doc = {**_sign(_alert(), key), **change}
    if change.get("MessageId", "") is None:
        del doc["MessageId"]
    with pytest.raises(SignatureError, match=message):
        verify(doc, cert, now=NOW)


def test_replays_and_future_messages_are_refused(key: rsa.RSAPrivateKey, cert: bytes) -> None:
    old = _sign(_alert(NOW - dt.timedelta(hours=25)), key)
    with pytest.raises(SignatureError, match="older than 24 h: a replay is refused"):
        verify(old, cert, now=NOW)
    assert verify(old, cert, now=NOW, max_age=dt.timedelta(hours=26))
    future = _sign(_alert(NOW + dt.timedelta(hours=1)), key)
    with pytest.raises(SignatureError, match="in the future"):
        verify(future, cert, now=NOW)


def test_the_topic_must_be_one_of_the_expected(key: rsa.RSAPrivateKey, cert: bytes) -> None:
    doc = _sign(_alert(), key)
    with pytest.raises(SignatureError, match="is not arn:aws:sns:eu-central-1:111122223333:budget"):
        verify(doc, cert, now=NOW, topic_arns=("arn:aws:sns:eu-central-1:111122223333:budget",))


def test_an_expired_or_broken_certificate_is_refused(key: rsa.RSAPrivateKey) -> None:
    doc = _sign(_alert(), key)
    expired = _cert(key, not_before=NOW - dt.timedelta(days=400), not_after=NOW - dt.timedelta(days=35))
    with pytest.raises(SignatureError, match="not valid at 2026-11-30T12:00:00Z"):
        verify(doc, expired, now=NOW)
    with pytest.raises(SignatureError, match="not a PEM X.509 certificate"):
        verify(doc, b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", now=NOW)


@pytest.mark.parametrize("url", [
    "http://sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem",
    "https://sns.us-east-1.amazonaws.com.evil.example/SimpleNotificationService-1.pem",
    "https://evil.example/sns.us-east-1.amazonaws.com/x.pem",
    "https://sns.us-east-1.amazonaws.com@evil.example/x.pem",
    "https://s3.amazonaws.com/SimpleNotificationService-1.pem",
    "https://sns.us-east-1.amazonaws.com/../x.key",
    # S3 virtual-host addresses of a bucket named "sns", not SNS hosts
    "https://sns.s3.amazonaws.com/SimpleNotificationService-1.pem",
    "https://sns.s3-external-1.amazonaws.com/SimpleNotificationService-1.pem",
    "https://sns.s3-accelerate.amazonaws.com/SimpleNotificationService-1.pem",
    "https://sns.s3-us-west-2.amazonaws.com/SimpleNotificationService-1.pem",
    # the China domain for a China region only, and a China region on it only
    "https://sns.us-east-1.amazonaws.com.cn/SimpleNotificationService-1.pem",
    "https://sns.cn-north-1.amazonaws.com/SimpleNotificationService-1.pem",
])
def test_certificate_addresses_off_sns_are_refused_before_any_fetch(url: str) -> None:
    def opener(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("fetched")

    with pytest.raises(SignatureError, match="not an HTTPS address on an sns"):
        signing_cert_url({"SigningCertURL": url})
    with pytest.raises(SignatureError, match="refusing to fetch"):
        fetch_certificate(url, opener=opener)


def test_china_certificate_addresses_are_accepted() -> None:
    url = "https://sns.cn-north-1.amazonaws.com.cn/SimpleNotificationService-3242f8fb2bd0d8e3e4a9dd4c1fb7ee46.pem"
    assert signing_cert_url({"SigningCertUrl": url}) == url


@pytest.fixture
def local_server(cert: bytes) -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 that serves the certificate at any path."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = cert * 40 if self.path.startswith("/big") else cert
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


SNS_CERT = "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-56e67fcb41f6fec09b0196692625d385.pem"


def test_fetching_refuses_a_redirect_off_sns(local_server: str) -> None:
    """The opener stands in for DNS: the SNS address is answered by a server that is not SNS."""

    def opener(url: str, timeout: float) -> Any:
        return urllib.request.urlopen(f"{local_server}/cert.pem", timeout=timeout)

    with pytest.raises(SignatureError, match="redirected to 'http://127.0.0.1"):
        fetch_certificate(SNS_CERT, opener=opener)


def test_fetching_reports_an_unreachable_host() -> None:
    def opener(url: str, timeout: float) -> Any:
        return urllib.request.urlopen("http://127.0.0.1:9/cert.pem", timeout=timeout)  # discard port: refused

    with pytest.raises(SignatureError, match="cannot fetch the signing certificate"):
        fetch_certificate(SNS_CERT, opener=opener)


# --- the command -------------------------------------------------------------------------------------


def _run(args: list[str]) -> Result:
    """The command as ``seedance`` runs it: its return value is the exit code."""
    return CliRunner().invoke(app, args, standalone_mode=False, catch_exceptions=False)


FINOPS_TOPIC = "arn:aws:sns:eu-central-1:111122223333:finops-alerts"  # eu-prod's budget.notify.snsTopicArn


def _eu_prod_alert(key: rsa.RSAPrivateKey, amount: str, timestamp: dt.datetime, topic: str = FINOPS_TOPIC) -> dict[str, Any]:
    """An alert for eu-prod's 160,000 USD budget, sent on ``topic`` and signed (SignatureVersion 2)."""
    doc = _alert(timestamp, **{"Test Budget": "seedance-eu-prod-monthly", "$0.20": "$160,000.00", "$0.59": f"${amount}",
                               "AWS Account 017790921725": "AWS Account 111122223333"})  # eu-prod's cloud.accountId
    doc["TopicArn"] = topic
    return _sign(doc, key, "2")


def test_respond_acts_on_a_verified_alert_and_refuses_a_forged_one(tmp_path: Path, key: rsa.RSAPrivateKey) -> None:
    now = dt.datetime.now(dt.timezone.utc)
    pem = tmp_path / "sns.pem"
    pem.write_bytes(_cert(key, not_before=now - dt.timedelta(days=1), not_after=now + dt.timedelta(days=1)))
    signed = _eu_prod_alert(key, "139,200.00", now - dt.timedelta(minutes=2))  # 87%: degrade
    event = tmp_path / "alert.json"
    event.write_text(json.dumps(signed))
    out = tmp_path / "eu-prod.budget.yaml"
    ok = _run(["budget", "respond", str(EU_PROD), str(event), "--stack", "eu-prod", "--out", str(out),
                             "--signing-cert", str(pem), "-f", "json"])
    assert ok.return_value == 0, ok.output
    assert "signed by Amazon SNS (SignatureVersion 2, CN=sns.amazonaws.com), topic " + FINOPS_TOPIC in ok.stderr
    assert out.exists() and json.loads(ok.stdout)["overlay"] == str(out.resolve())

    out.unlink()
    forged = {**signed, "Message": signed["Message"].replace("$139,200.00", "$159,000.00")}
    event.write_text(json.dumps(forged))
    bad = _run(["budget", "respond", str(EU_PROD), str(event), "--stack", "eu-prod", "--out", str(out),
                              "--signing-cert", str(pem)])
    assert bad.return_value == 1 and "does not match the message" in bad.stderr
    assert not out.exists()  # nothing written for a message that fails verification

    event.write_text(json.dumps(signed))
    other = "arn:aws:sns:eu-central-1:111122223333:someone-else"
    pinned = _run(["budget", "respond", str(EU_PROD), str(event), "--topic-arn", other, "--signing-cert", str(pem)])
    assert pinned.return_value == 1 and f"TopicArn {FINOPS_TOPIC} is not {other}" in pinned.stderr


def test_respond_pins_the_policys_topic_by_default(tmp_path: Path, key: rsa.RSAPrivateKey) -> None:
    now = dt.datetime.now(dt.timezone.utc)
    pem = tmp_path / "sns.pem"
    pem.write_bytes(_cert(key, not_before=now - dt.timedelta(days=1), not_after=now + dt.timedelta(days=1)))
    stranger = "arn:aws:sns:eu-central-1:444455556666:budget-alerts"  # validly signed, but another account's topic
    event = tmp_path / "alert.json"
    event.write_text(json.dumps(_eu_prod_alert(key, "139,200.00", now, topic=stranger)))
    result = _run(["budget", "respond", str(EU_PROD), str(event), "--signing-cert", str(pem)])
    assert result.return_value == 1 and f"TopicArn {stranger} is not {FINOPS_TOPIC}" in result.stderr
    allowed = _run(["budget", "respond", str(EU_PROD), str(event), "--signing-cert", str(pem),
                                       "--topic-arn", stranger])
    assert allowed.return_value == 0, allowed.output


def test_respond_without_verification_keeps_reading_unsigned_files(tmp_path: Path) -> None:
    doc = _alert(**{"Test Budget": "seedance-eu-prod-monthly", "$0.20": "$250000.00", "$0.59": "$10.00"})
    for field in ("Signature", "SignatureVersion", "SigningCertURL"):
        del doc[field]
    event = tmp_path / "alert.json"
    event.write_text(json.dumps(doc))
    plain = _run(["budget", "respond", str(EU_PROD), str(event), "--stack", "eu-prod"])
    assert plain.return_value == 0, plain.output
    checked = _run(["budget", "respond", str(EU_PROD), str(event), "--verify-signature"])
    assert checked.return_value == 1 and "no SigningCertURL: the message is not signed" in checked.stderr


def test_respond_reports_an_unreadable_certificate_file(tmp_path: Path) -> None:
    event = tmp_path / "alert.json"
    event.write_text(json.dumps(_alert()))
    result = _run(["budget", "respond", str(EU_PROD), str(event), "--signing-cert",
                                      str(tmp_path / "missing.pem")])
    assert result.return_value == 1 and "missing.pem: cannot read" in result.stderr


# --- a real SNS HTTP delivery (moto server) -------------------------------------------------------------


@pytest.fixture
def captured() -> Iterator[tuple[str, list[bytes]]]:
    """An HTTP endpoint on 127.0.0.1 that records each POST body it receives."""
    bodies: list[bytes] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            bodies.append(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/budget", bodies
    server.shutdown()


def test_an_sns_delivery_is_read_but_its_unverifiable_signature_refused(
        moto_endpoint: str, aws_env: None, captured: tuple[str, list[bytes]], cert: bytes) -> None:
    """moto delivers a real SNS HTTP POST; its signature is moto's placeholder, so verification must refuse it."""
    endpoint, bodies = captured
    sns = boto3.client("sns", region_name="eu-central-1", endpoint_url=moto_endpoint)
    topic = sns.create_topic(Name="seedance-eu-prod-budget")["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="http", Endpoint=endpoint)
    text = _alert(**{"Test Budget": "seedance-eu-prod-monthly"})["Message"]
    sns.publish(TopicArn=topic, Message=text, Subject="AWS Budgets: seedance-eu-prod-monthly has exceeded your alert threshold")
    notifications = [json.loads(b) for b in bodies if json.loads(b).get("Type") == "Notification"]
    assert len(notifications) == 1
    message = read_envelope(json.dumps(notifications[0]).encode())
    alert = alert_from_message(message)
    assert alert is not None and alert.budget_name == "seedance-eu-prod-monthly" and alert.topic_arn == topic
    assert signing_cert_url(message).startswith("https://sns.")
    with pytest.raises(SignatureError):
        verify(message, cert, now=dt.datetime.now(dt.timezone.utc))


def test_verification_needs_a_topic_to_check(tmp_path: Path, key: rsa.RSAPrivateKey) -> None:
    # Amazon signs every topic's messages, an attacker's own topic included: with no topic to compare
    # against (no budget.notify.snsTopicArn, no --topic-arn) a valid signature proves nothing
    now = dt.datetime.now(dt.timezone.utc)
    pem = tmp_path / "sns.pem"
    pem.write_bytes(_cert(key, not_before=now - dt.timedelta(days=1), not_after=now + dt.timedelta(days=1)))
    policy = tmp_path / "no-topic.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {EU_PROD}\n"
                      "budget:\n  notify:\n    snsTopicArn: null\n")
    attacker = "arn:aws:sns:us-east-1:999999999999:attacker"
    event = tmp_path / "alert.json"
    event.write_text(json.dumps(_eu_prod_alert(key, "139,200.00", now, topic=attacker)))
    out = tmp_path / "overlay.yaml"
    refused = _run(["budget", "respond", str(policy), str(event), "--stack", "eu-prod", "--signing-cert", str(pem),
                    "--out", str(out)])
    assert refused.return_value == 1 and "--verify-signature needs the topic" in refused.stderr
    assert not out.exists()
    pinned = _run(["budget", "respond", str(policy), str(event), "--stack", "eu-prod", "--signing-cert", str(pem),
                   "--topic-arn", FINOPS_TOPIC])
    assert pinned.return_value == 1 and f"TopicArn {attacker} is not {FINOPS_TOPIC}" in pinned.stderr
