"""boto3 clients for the commands that read AWS, with bounded waits.

botocore's defaults wait 60 s for a reply and retry, so an endpoint that accepts connections but
never answers held `seedance prices refresh` for three minutes. A pipeline step should fail within
about a minute, with the reason, instead.
"""

from __future__ import annotations

from typing import Any

CONNECT_TIMEOUT_S = 5
READ_TIMEOUT_S = 20
MAX_ATTEMPTS = 2  # the first try and one retry


def client(service: str, region: str) -> Any:
    """A boto3 client for ``service`` in ``region`` (the usual credentials and endpoint settings)."""
    import boto3
    from botocore.config import Config

    config = Config(connect_timeout=CONNECT_TIMEOUT_S, read_timeout=READ_TIMEOUT_S,
                    retries={"total_max_attempts": MAX_ATTEMPTS, "mode": "standard"})
    return boto3.client(service, region_name=region, config=config)


def unreadable_answer_errors() -> tuple[type[Exception], ...]:
    """What botocore raises when an endpoint's answer is not the service's (a proxy's or captive
    portal's HTML page with status 200, say): ``ResponseParserError`` for a body it cannot parse, or a
    ``KeyError`` from a query-protocol (XML) parser looking for the result element the page lacks.
    Catch these around one client call only, so no other ``KeyError`` is taken for one."""
    from botocore.parsers import ResponseParserError

    return (ResponseParserError, KeyError)


def error_code(exc: BaseException) -> str | None:
    """The AWS error code of a botocore ``ClientError`` (``OptInRequired``, ...); None for anything else."""
    response = getattr(exc, "response", None)
    if not isinstance(response, dict):
        return None
    code = (response.get("Error") or {}).get("Code")
    return str(code) if code else None
