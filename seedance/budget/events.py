"""AWS Budgets notifications as they reach a pipeline through SNS.

Three envelopes are accepted, each as AWS sends it: the JSON body of an SNS HTTP(S) notification,
the whole HTTP POST (``x-amz-sns-*`` headers, blank line, JSON body), and the Lambda SNS event
(``Records[].Sns``).  The budget facts come from the notification text that AWS Budgets writes
("Budget Name: …", "Budgeted Amount: $5.00", "Alert Type: ACTUAL", "ACTUAL Amount: $1.70").
AWS does not document that text, so the parser reads only those labelled lines and says which one
is missing instead of guessing.  Reading is separate from trusting: :mod:`seedance.budget.signature`
verifies the envelope's SNS signature before the alert is acted on.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

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


def _money(text: str, label: str) -> tuple[float, str] | None:
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
    return float(m.group("num").replace(",", "")), _SYMBOLS[sym]


def _field(text: str, label: str) -> str | None:
    m = re.search(rf"^{re.escape(label)}:\s*(.+?)\s*$", text, re.M)
    return m.group(1) if m else None


def _envelope(raw: str) -> dict[str, Any]:
    text = raw.lstrip("\ufeff")
    if not text.strip():
        raise BudgetEventError("event is empty")
    if text.startswith(("POST ", "PUT ")):  # a whole HTTP request: the body follows the blank line
        head, sep, body = text.replace("\r\n", "\n").partition("\n\n")
        if not sep:
            raise BudgetEventError("HTTP request without a body")
        text = body
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BudgetEventError(f"not JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    if not isinstance(doc, dict):
        raise BudgetEventError("expected a JSON object (an SNS notification or a Lambda SNS event)")
    if isinstance(doc.get("Records"), list):  # Lambda event: SNS invokes a function with one record
        records = [r for r in doc["Records"] if isinstance(r, dict) and isinstance(r.get("Sns"), dict)]
        if not records:
            raise BudgetEventError("Lambda event without an SNS record")
        if len(doc["Records"]) != 1:  # never from SNS; acting on one record would drop (and not verify) the rest
            raise BudgetEventError(
                f"Lambda event with {len(doc['Records'])} records; SNS delivers one message per invocation"
            )
        return records[0]["Sns"]
    return doc


def read_envelope(raw: str | bytes) -> dict[str, Any]:
    """The SNS message inside any of the accepted envelopes (not yet trusted)."""
    if isinstance(raw, bytes):
        if len(raw) > MAX_EVENT_BYTES:
            raise BudgetEventError(f"event is {len(raw):,} bytes; SNS messages are at most {MAX_EVENT_BYTES:,}")
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise BudgetEventError("event is not UTF-8 text") from None
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
        timestamp=sns.get("Timestamp") if isinstance(sns.get("Timestamp"), str) else None,
        topic_arn=sns.get("TopicArn") if isinstance(sns.get("TopicArn"), str) else None,
    )
