"""The Jinja2 environment for the report templates (Markdown, so no HTML escaping).

The templates directory is found by :func:`seedance.resources.templates_dir`: ``$SEEDANCE_TEMPLATES``,
else the copy bundled in the installed package, else the checkout's ``templates/``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template, TemplateNotFound

from seedance.resources import ResourceNotFoundError, templates_dir

__all__ = ["COMMENT_LIMIT", "ReportTemplateError", "environment", "fit", "get_template", "md_cell", "md_code", "md_code_cell", "md_code_span",
           "md_text", "templates_dir", "yaml_str"]

#: The most characters a pull-request comment Seedance renders may hold. GitHub refuses a comment
#: body over 65,536 characters ("body is too long"); the margin leaves room for a CI step that wraps
#: the comment (a marker, a heading) before posting it.
COMMENT_LIMIT = 60_000


def __getattr__(name: str) -> Any:
    # ``TEMPLATES`` (the templates directory) is kept for callers of the old constant; it is resolved
    # when asked for, so $SEEDANCE_TEMPLATES set after import still applies.
    if name == "TEMPLATES":
        return templates_dir()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def md_cell(text: Any) -> str:
    """Escape a value for a Markdown table cell."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#!~&])")  # & too: an entity (&#64;) would become the character
#: What GitHub acts on in plain text: an @ (a mention, or an email or xmpp address it links), a
#: URL's "://" and a "www." address (which it links after any of several characters)
_AUTOLINK = re.compile(r"@|://|www\.", re.IGNORECASE)
_ZWSP = "&#8203;"


def md_text(text: Any) -> str:
    """A value as inert Markdown text: every character Markdown or its HTML could act on is escaped.

    For text from outside (a budget name, a message) that must not become a link, an image, HTML or
    emphasis in a PR comment or an incident report; also safe inside a table cell.
    """
    escaped = _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\r", " ").replace("\n", " ")
    # GitHub turns @name into a mention (a notification) and addresses into links: a zero-width space
    # after every @, in every "://" and "www." leaves them as text
    return _AUTOLINK.sub(lambda m: m.group(0)[:1] + _ZWSP + m.group(0)[1:], escaped)


def md_code(text: Any) -> str:
    """A value for a Markdown code span: backticks and line breaks removed (a code span renders the rest literally)."""
    return str(text).replace("`", "'").replace("\r", " ").replace("\n", " ")


def md_code_span(text: Any) -> str:
    """A whole Markdown code span holding ``text`` exactly (a path or command to copy): fenced by one more
    backtick than its longest run of them, padded with a space when it starts or ends with one (CommonMark
    strips one such space); line breaks become spaces."""
    value = str(text).replace("\r", " ").replace("\n", " ")
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") or (value.startswith(" ") and value.endswith(" ")
                                                                  and value.strip()) else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def md_code_cell(text: Any) -> str:
    """A value for a code span inside a table cell: as :func:`md_code`, with ``|`` escaped (GFM splits cells on it)."""
    return md_code(text).replace("|", "\\|")


def clip(text: Any, limit: int = 200) -> str:
    """``text`` shortened to ``limit`` characters, ending in an ellipsis when cut: for a name in a report's
    heading (a hand-written document's stack may be any length; the JSON and SARIF keep it whole)."""
    value = str(text)
    return value if len(value) <= limit else value[: max(limit - 1, 0)] + "…"


def environment(directory: Path | None = None) -> Environment:
    """The report environment over ``directory`` (default: :func:`templates_dir`)."""
    env = Environment(
        loader=FileSystemLoader(str(directory or templates_dir())),
        undefined=StrictUndefined,
        autoescape=False,  # Markdown, not HTML
        keep_trailing_newline=True,
    )
    env.filters["md"] = md_cell
    env.filters["md_text"] = md_text
    env.filters["clip"] = clip
    env.filters["code"] = md_code
    env.filters["code_span"] = md_code_span
    env.filters["code_cell"] = md_code_cell
    env.filters["yaml_str"] = yaml_str
    return env


class ReportTemplateError(Exception):
    """A template Seedance renders is not where it looks (a wrong ``$SEEDANCE_TEMPLATES``, a broken install)."""


def get_template(name: str) -> Template:
    """``name`` from the templates directory; :class:`ReportTemplateError` when it cannot be found."""
    try:
        return environment().get_template(name)
    except (ResourceNotFoundError, TemplateNotFound) as exc:
        raise ReportTemplateError(f"template {name} not found: {exc}") from None


def fit(render: Callable[[int], str], total: int, limit: int = COMMENT_LIMIT) -> str:
    """``render(k)`` for the largest ``k <= total`` whose text has at most ``limit`` characters.

    ``render(k)`` shows the first ``k`` items (in the order that matters most) and says how many it
    leaves out; its length must grow with ``k``.  When even ``render(0)`` (the header and counts) is
    too long, its text is cut at the last line break within the limit (never inside a line, so never
    inside a code span or emphasis) with a note, so the result never exceeds ``limit``.
    """
    text = render(total)
    if len(text) <= limit:
        return text
    lo, hi = 0, total - 1  # render(hi + 1) is too long
    best: str | None = None
    while lo <= hi:
        mid = (lo + hi) // 2
        candidate = render(mid)
        if len(candidate) <= limit:
            best, lo = candidate, mid + 1
        else:
            hi = mid - 1
    if best is not None:
        return best
    tail = f"\n\n… cut at {limit:,} characters: see the JSON output for the rest.\n"
    head = render(0)[: max(limit - len(tail), 0)]
    return head[: max(head.rfind("\n"), 0)].rstrip("\n") + tail if len(tail) <= limit else tail[:limit]


def yaml_str(value: Any) -> str:
    """A value as a double-quoted YAML scalar (JSON string syntax), whatever characters it holds."""
    return json.dumps(str(value), ensure_ascii=False)
