"""The Jinja2 environment for the reports in ``templates/`` (Markdown, so no HTML escaping)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"


def md_cell(text: Any) -> str:
    """Escape a value for a Markdown table cell."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def environment(directory: Path = TEMPLATES) -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(directory)),
        undefined=StrictUndefined,
        autoescape=False,  # Markdown, not HTML
        keep_trailing_newline=True,
    )
    env.filters["md"] = md_cell
    return env
