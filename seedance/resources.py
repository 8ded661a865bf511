"""Where Seedance's own files are: the gate's Rego policies and the report templates.

Each is looked up in this order:

1. an explicit override: ``$SEEDANCE_POLICIES`` / ``$SEEDANCE_TEMPLATES`` (a directory; when set it
   must exist — a wrong override is an error, never silently replaced by another copy);
2. the copy bundled inside the installed package, ``seedance/_bundled/policies`` and
   ``seedance/_bundled/templates`` (a wheel or sdist install; ``setup.py`` puts them there);
3. the checkout's top-level ``policies/`` and ``templates/`` (an editable install, or running from
   the repository), so edits there take effect without reinstalling.

When none exists :class:`ResourceNotFoundError` names every place that was tried.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

PACKAGE_DIR = Path(__file__).resolve().parent
#: Inside the installed package: the copies a wheel carries (absent in a checkout).
BUNDLED_DIR = PACKAGE_DIR / "_bundled"
#: The directory holding the ``seedance`` package: the repository root in a checkout or editable install.
CHECKOUT_DIR = PACKAGE_DIR.parent

POLICIES_ENV = "SEEDANCE_POLICIES"
TEMPLATES_ENV = "SEEDANCE_TEMPLATES"


class ResourceNotFoundError(FileNotFoundError):
    """A directory Seedance ships (policies, templates) is in none of the places it looks."""

    def __init__(self, what: str, tried: list[str]):
        self.what = what
        self.tried = tried
        super().__init__(f"{what} not found; looked in: {'; '.join(tried)}")


@dataclass(frozen=True)
class Located:
    path: Path
    source: str  # "env" | "bundled" | "checkout"


def locate(
    name: str,
    env_var: str,
    *,
    what: str,
    environ: Mapping[str, str] | None = None,
    bundled_dir: Path | None = None,
    checkout_dir: Path | None = None,
) -> Located:
    """The directory ``name`` (``policies`` or ``templates``): env override, bundled copy, checkout.

    ``environ``, ``bundled_dir`` and ``checkout_dir`` default to ``os.environ``, :data:`BUNDLED_DIR`
    and :data:`CHECKOUT_DIR`.
    """
    env = os.environ if environ is None else environ
    override = env.get(env_var, "").strip()
    if override:
        path = Path(override).expanduser().resolve()
        if not path.is_dir():
            raise ResourceNotFoundError(what, [f"${env_var}={override} (not a directory)"])
        log.debug("%s from $%s: %s", what, env_var, path)
        return Located(path, "env")
    tried = [f"${env_var} (unset)"]
    for source, base in (("bundled", bundled_dir or BUNDLED_DIR), ("checkout", checkout_dir or CHECKOUT_DIR)):
        path = base / name
        if path.is_dir():
            log.debug("%s from the %s copy: %s", what, source, path)
            return Located(path, source)
        tried.append(f"{path} ({source})")
    raise ResourceNotFoundError(what, tried)


def policies_dir() -> Path:
    """The Rego policy directory (``gdpr/``, ``mlps/``, ``budget/``, ``lib/``, ``pack/``)."""
    return locate("policies", POLICIES_ENV, what="Rego policies").path


def templates_dir() -> Path:
    """The Jinja2 report templates directory."""
    return locate("templates", TEMPLATES_ENV, what="report templates").path
