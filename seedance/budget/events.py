"""AWS Budgets notifications as they reach a pipeline through SNS.

Three envelopes are accepted, each as AWS sends it: the JSON body of an SNS HTTP(S) notification,
the whole HTTP POST (``x-amz-sns-*`` headers, blank line, JSON body), and the Lambda SNS event
(``Records[].Sns``).  The budget facts come from the notification text that AWS Budgets writes
("Budget Name: …", "Budgeted Amount: $5.00", "Alert Type: ACTUAL", "ACTUAL Amount: $1.70").
AWS does not document that text, so the parser reads only those labelled lines and says which one
is missing instead of guessing; a label given on two lines is refused as ambiguous.  An event of
none of the envelopes' forms (no string ``Message``, a ``Type`` that is no string, ``Records`` that is
no list) is an error; a well-formed SNS message of another kind is simply not an alert.  Reading is
separate from trusting: :mod:`seedance.budget.signature` verifies the envelope's SNS signature before
the alert is acted on.
"""

from __future__ import annotations

import datetime as dt

import math
import re
from dataclasses import dataclass
from typing import Any

from seedance.textfile import describe_json, parse_json

MAX_EVENT_BYTES = 256 * 1024  # SNS messages are at most 256 KiB
ALERT_TYPES = ("ACTUAL", "FORECASTED")  # the "Alert Type" values AWS Budgets writes


class BudgetEventError(Exception):
    """The input is not a readable SNS envelope, or a budget notification lacks a field."""


@dataclass(frozen=True)
class BudgetAlert:
    budget_name: str
    alert_type: str  # "ACTUAL" | "FORECASTED"
    period: str  # "month" | "day" | "other"
    budgeted_amount: float
    threshold_amount: float | None
    amount: float  # the ACTUAL or FORECASTED amount the alert reports
    currency: str  # ISO code derived from the amount's symbol
    account: str | None
    timestamp: str | None
    topic_arn: str | None

    @property
    def fraction(self) -> float:
        """The reported amount as a fraction of the budgeted amount."""
        return self.amount / self.budgeted_amount if self.budgeted_amount > 0 else float("inf")


_SYMBOLS = {"$": "USD", "¥": "CNY", "CN¥": "CNY", "USD": "USD", "CNY": "CNY"}
_AMOUNT = r"(?P<sym>CN¥|[$¥]|USD |CNY )?\s*(?P<num>[0-9][0-9,]*(?:\.[0-9]+)?)"


def _once(text: str, label: str) -> None:
    """Refuse a message with more than one ``label:`` line: AWS Budgets writes each once, and which
    one the response should follow (a budget name, an amount) cannot be told."""
    values = re.findall(rf"^{re.escape(label)}:[ \t]*(.*?)\s*$", text, re.M)
    if len(values) > 1:
        shown = ", ".join(repr(v if len(v) <= 40 else v[:40] + "…") for v in values[:3]) + (", …" if len(values) > 3 else "")
        raise BudgetEventError(f"budget notification with {len(values)} '{label}' lines ({shown}): ambiguous; "
                               "expected one, as AWS Budgets writes it")


def _money(text: str, label: str) -> tuple[float, str] | None:
    _once(text, label)
    m = re.search(rf"^{re.escape(label)}:\s*(?:>\s*)?{_AMOUNT}\s*$", text, re.M)
    if not m:
        line = re.search(rf"^{re.escape(label)}:[ \t]*(.*?)\s*$", text, re.M)
        if line:  # the line is there but its amount is not one we can read: say so, do not call it missing
            raise BudgetEventError(
                f"cannot read the amount {line.group(1)!r} in '{label}': expected a number after $, ¥, CN¥, USD or CNY"
            )
        return None
    sym = (m.group("sym") or "$").strip()
    if sym not in _SYMBOLS:
        raise BudgetEventError(f"unknown currency symbol {sym!r} in '{label}'")
    value = float(m.group("num").replace(",", ""))
    if not math.isfinite(value):  # hundreds of digits read as infinity: no budget is that large
        shown = m.group("num") if len(m.group("num")) <= 40 else m.group("num")[:40] + "…"
        raise BudgetEventError(f"cannot read the amount {shown!r} in '{label}': too large")
    return value, _SYMBOLS[sym]


def _field(text: str, label: str) -> str | None:
    _once(text, label)
    m = re.search(rf"^{re.escape(label)}:\s*(.+?)\s*$", text, re.M)
    return m.group(1) if m else None


def _not_json(detail: str, lines_before: int) -> str:
    """``not JSON: line L column C: …`` from :func:`parse_json`'s ``L:C: …`` (``L: …`` without a column)."""
    m = re.match(r"(\d+):(?:(\d+):)? (?:not valid JSON: )?(.*)", detail, re.S)
    if not m:  # a fault the reader gives no place for (a key given twice)
        return detail if detail.startswith("not valid JSON") else f"not JSON: {detail}"
    line, col, why = int(m.group(1)) + lines_before, m.group(2), m.group(3)
    return f"not JSON: line {line}" + (f" column {col}" if col else "") + f": {why}"


def _envelope(raw: str) -> dict[str, Any]:
    text = raw.lstrip("\ufeff")
    if not text.strip():
        raise BudgetEventError("event is empty")
    lines_before = 0  # lines of the event before the JSON, so a JSON error names the event's own line
    if text.startswith(("POST ", "PUT ")):  # a whole HTTP request: the body follows the blank line
        head, sep, body = text.replace("\r\n", "\n").partition("\n\n")
        if not sep:
            raise BudgetEventError("HTTP request without a body")
        text, lines_before = body, head.count("\n") + 2
    try:
        doc = parse_json(text)  # a ValueError, never a RecursionError, for JSON nested too deeply
    except ValueError as exc:
        raise BudgetEventError(_not_json(str(exc), lines_before)) from None
    if not isinstance(doc, dict):
        raise BudgetEventError("expected a JSON object (an SNS notification or a Lambda SNS event)")
    if "Records" in doc:  # Lambda event: SNS invokes a function with one record
        if not isinstance(doc["Records"], list):
            raise BudgetEventError(f"'Records': expected a list holding one SNS record (a Lambda SNS event), "
                                   f"got {describe_json(doc['Records'])}")
        records = [r for r in doc["Records"] if isinstance(r, dict) and isinstance(r.get("Sns"), dict)]
        if not records:
            raise BudgetEventError("Lambda event without an SNS record")
        if len(doc["Records"]) != 1:  # never from SNS; acting on one record would drop (and not verify) the rest
            raise BudgetEventError(
                f"Lambda event with {len(doc['Records'])} records; SNS delivers one message per invocation"
            )
        return _sns_message(records[0]["Sns"], "Records[0].Sns.")
    return _sns_message(doc, "")


#: What an event must be, for messages of none of the accepted shapes.
_SHAPES = ("an SNS message (an object with 'Type' and 'Message'), its HTTP POST, or a Lambda SNS event "
           "({'Records': [{'Sns': {...}}]})")


def _sns_message(sns: dict[str, Any], at: str) -> dict[str, Any]:
    """``sns`` when it has the form of an SNS message: a string ``Message`` (every SNS message type has
    one: Notification, SubscriptionConfirmation, UnsubscribeConfirmation) and, when given, a string
    ``Type``. Whether it is a budget notification is :func:`alert_from_message`'s question."""
    if "Message" not in sns and "Type" not in sns:
        found = ", ".join(repr(k if len(k) <= 40 else k[:40] + "…") for k in list(sns)[:5]) + (", …" if len(sns) > 5 else "")
        raise BudgetEventError(f"{at.rstrip('.') + ': ' if at else ''}not an SNS message: expected {_SHAPES}; "
                               f"got an object with " + (f"keys {found}" if sns else "no keys"))
    if "Type" in sns and not isinstance(sns["Type"], str):
        raise BudgetEventError(f"'{at}Type': expected the SNS message type (a string such as \"Notification\"), "
                               f"got {describe_json(sns['Type'])}")
    if "Message" not in sns:
        raise BudgetEventError(f"'{at}Message': missing; expected the message text (every SNS message has one)")
    if not isinstance(sns["Message"], str):
        raise BudgetEventError(f"'{at}Message': expected the message text (a string), got {describe_json(sns['Message'])}")
    return sns


def read_envelope(raw: str | bytes) -> dict[str, Any]:
    """The SNS message inside any of the accepted envelopes (not yet trusted)."""
    if isinstance(raw, bytes):
        if len(raw) > MAX_EVENT_BYTES:
            raise BudgetEventError(f"event is larger than SNS allows: SNS messages are at most {MAX_EVENT_BYTES:,} bytes")
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw.count(b"\n", 0, exc.start) + 1
            raise BudgetEventError(f"event is not UTF-8 text: line {line}: byte 0x{raw[exc.start]:02x} "
                                   f"at offset {exc.start}") from None
    return _envelope(raw)


def parse_budget_event(raw: str | bytes) -> BudgetAlert | None:
    """The budget alert in an SNS envelope, or ``None`` when the notification is about something else."""
    return alert_from_message(read_envelope(raw))


def alert_from_message(sns: dict[str, Any]) -> BudgetAlert | None:
    """The budget alert in an SNS message (as :func:`read_envelope` returns it), or ``None``."""
    if sns.get("Type") not in (None, "Notification"):
        return None  # SubscriptionConfirmation and friends carry no alert
    message = sns.get("Message")
    if not isinstance(message, str) or "AWS Budget Notification" not in message:
        return None
    name = _field(message, "Budget Name")
    alert_type = _field(message, "Alert Type")
    budgeted = _money(message, "Budgeted Amount")
    if name is None or alert_type is None or budgeted is None:
        missing = [lbl for lbl, v in (("Budget Name", name), ("Alert Type", alert_type), ("Budgeted Amount", budgeted)) if v is None]
        raise BudgetEventError(f"budget notification without {', '.join(missing)}")
    if alert_type.upper() not in ALERT_TYPES:  # the only two AWS Budgets sends; the value ends up in reports and stamps
        shown = alert_type if len(alert_type) <= 40 else alert_type[:40] + "…"
        raise BudgetEventError(f"unknown Alert Type {shown!r}: expected {' or '.join(ALERT_TYPES)}")
    amount = _money(message, f"{alert_type} Amount")
    if amount is None:
        raise BudgetEventError(f"budget notification without '{alert_type} Amount'")
    if amount[1] != budgeted[1]:
        raise BudgetEventError(f"amount in {amount[1]} but budget in {budgeted[1]}")
    try:
        threshold = _money(message, "Alert Threshold")  # informative only: never a reason to refuse the alert
    except BudgetEventError:
        threshold = None
    period = "month" if "for the current month" in message else "day" if "per day" in message else "other"
    account = re.search(r"^AWS Account (\d{12})\s*$", message, re.M)
    return BudgetAlert(
        budget_name=name,
        alert_type=alert_type.upper(),
        period=period,
        budgeted_amount=budgeted[0],
        threshold_amount=threshold[0] if threshold else None,
        amount=amount[0],
        currency=budgeted[1],
        account=account.group(1) if account else None,
        timestamp=_timestamp(sns.get("Timestamp", _ABSENT)),
        topic_arn=sns.get("TopicArn") if isinstance(sns.get("TopicArn"), str) else None,
    )


_ABSENT = object()


def _timestamp(value: object) -> str | None:
    """The notification's ``Timestamp`` (ISO 8601, UTC, as SNS writes it); absent: None. One that is
    present but no time (``2024-13-01``, a number) is refused: the alert's budget month comes from it."""
    if value is _ABSENT:
        return None
    if isinstance(value, str) and _SNS_TIME.match(value):
        try:
            dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            pass
        else:
            return value
    raise BudgetEventError(f"Timestamp: expected an ISO 8601 UTC time such as 2024-05-30T12:00:00.000Z, got {value!r}")


#: SNS's own form: date, time to the second (fractions optional), UTC as Z or +00:00
_SNS_TIME = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|\+00:00)$")
