"""Text from outside stays inert in the Markdown reports (PR comments, incidents)."""

from __future__ import annotations

import pytest

from seedance.templating import md_text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # a mention would notify a team; an address would become a mailto or xmpp link
        ("ping @acme/security-leads", "ping @&#8203;acme/security-leads"),
        ("(@octocat)", "(@&#8203;octocat)"),
        ("é@octocat", "é@&#8203;octocat"),
        ("ops@example.com", "ops@&#8203;example.com"),
        ("xmpp:foo@bar.baz", "xmpp:foo@&#8203;bar.baz"),
        # bare addresses would become links
        ("see https://evil.example/x", "see https:&#8203;//evil.example/x"),
        ("or www.evil.example", "or w&#8203;ww.evil.example"),
        ("_www.evil.example", "\\_w&#8203;ww.evil.example"),
        # an entity would become the character it names (&#64; is @)
        ("&#64;acme", "\\&\\#64;acme"),
        ("a | b `c` <b>", "a \\| b \\`c\\` \\<b\\>"),
    ],
)
def test_md_text_leaves_nothing_github_acts_on(text: str, shown: str) -> None:
    assert md_text(text) == shown


def test_fit_never_cuts_inside_a_line() -> None:
    from seedance.templating import fit

    # even the header and counts are too long: the text is cut at a line break, not inside a code span
    head = "**header**\n" + "".join(f"- `item-{i}` with some text\n" for i in range(100))
    out = fit(lambda k: head + "x" * k, 10, limit=500)
    assert len(out) <= 500 and "cut at 500 characters" in out
    body = out.split("\n\n…")[0]
    assert head.startswith(body + "\n") and all(line.count("`") % 2 == 0 for line in out.splitlines())
