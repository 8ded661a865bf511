"""An endpoint that answers with something other than AWS's response (a proxy's or captive portal's
HTML page with status 200, a truncated body) is an unreadable answer: exit 1 with a message naming
the call, never an internal error, and no overlay written. The endpoint is a real local HTTP server."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from seedance.cli import main

REPO = Path(__file__).resolve().parents[2]
DEV = REPO / "stacks" / "policies" / "dev.yaml"
EU_PROD = REPO / "stacks" / "policies" / "eu-prod.yaml"
SNS_ALERT = "sre-bot.sns-http-notification.budget-monthly-actual.json"

BODIES = {
    "html": ("text/html", b"<html><body><h1>Sign in to the guest network</h1></body></html>"),
    "broken-xml": ("text/xml", b"<DescribeAutoScalingGroupsResponse><Describe"),
    "broken-json": ("application/x-amz-json-1.1", b'{"Budget": {"BudgetName": '),
}


@pytest.fixture(params=sorted(BODIES))
def not_aws(request: pytest.FixtureRequest, aws_env: None) -> Iterator[tuple[str, list[str]]]:
    """A local HTTP server answering every request with status 200 and a body that is not AWS's."""
    content_type, body = BODIES[request.param]
    seen: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server API
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            seen.append(self.headers.get("X-Amz-Target") or self.path)
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", seen
    server.shutdown()
    server.server_close()


def _clean_error(err: str) -> None:
    assert "internal error" not in err and "Traceback" not in err and "KeyError" not in err.split("(")[0]


def test_poll_refuses_a_budget_answer_that_is_not_aws(not_aws, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
                                                      tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url, seen = not_aws
    monkeypatch.setenv("AWS_ENDPOINT_URL_BUDGETS", url)
    out = tmp_path / "dev.budget.yaml"
    assert main(["budget", "poll", str(DEV), "--stack", "dev", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert seen, "the command did not reach the server"
    assert "error seedance-dev-monthly: DescribeBudget 'seedance-dev-monthly':" in err
    assert "not an AWS Budgets response" in err and "AWS_ENDPOINT_URL_BUDGETS" in err
    _clean_error(err)
    assert not out.exists()


def test_poll_refuses_a_caller_identity_that_is_not_aws(not_aws, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
                                                        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a policy that names no account: poll asks STS whose credentials these are
    url, seen = not_aws
    monkeypatch.setenv("AWS_ENDPOINT_URL_STS", url)
    policy = tmp_path / "noaccount.yaml"
    policy.write_text(f"apiVersion: seedance.io/v1\nkind: CostPolicy\nextends: {DEV}\ncloud:\n  accountId: null\n",
                      encoding="utf-8")
    from seedance.policy import load_policy

    assert load_policy(policy).policy.cloud.account_id is None
    assert main(["budget", "poll", str(policy), "--stack", "dev"]) == 1
    err = capsys.readouterr().err
    assert seen and "error seedance-dev-monthly: GetCallerIdentity:" in err and "--account-id" in err
    _clean_error(err)


def test_live_sizes_refuse_an_auto_scaling_answer_that_is_not_aws(not_aws, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
                                                                  tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    import os

    shared = Path(os.environ.get("SEEDANCE_SHARED_DATA") or REPO.parent / "shared" / "data")
    url, seen = not_aws
    monkeypatch.setenv("AWS_ENDPOINT_URL_AUTO_SCALING", url)
    out = tmp_path / "eu-prod.budget.yaml"
    event = shared / "fixtures" / "aws-sns-budgets" / SNS_ALERT
    assert main(["budget", "respond", str(EU_PROD), str(event), "--stack", "eu-prod", "--live-sizes",
                 "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert seen, "the command did not reach the server"
    assert "error --live-sizes: DescribeAutoScalingGroups: the answer is not an Auto Scaling response" in err
    assert "AWS_ENDPOINT_URL_AUTO_SCALING" in err
    _clean_error(err)
    assert not out.exists()
