"""The control ids of a gate policy directory, for ``seedance validate`` to check waivers against.

Read from the same files the gate loads (:func:`seedance.gate.bundle.load_bundle`: the ``.rego``
files of ``gdpr/``, ``mlps/`` and ``budget/``, tests left out): the ``control_id`` line of each
``# METADATA`` comment block.  No Rego engine and no YAML parse (validate stays fast); the gate
itself refuses a directory whose blocks are malformed.
"""

from __future__ import annotations

import re
from pathlib import Path

#: the folders of control rules (as seedance.gate.bundle.CONTROL_DIRS, not imported: the gate
#: package loads its Rego engine)
CONTROL_DIRS = ("gdpr", "mlps", "budget")

_CONTROL_ID = re.compile(r"^#\s+control_id:\s*[\"']?([^\s\"'#]+)")


def control_ids(root: Path) -> frozenset[str]:
    """The ``custom.control_id`` of every METADATA block under ``root``'s control folders."""
    found: set[str] = set()
    for sub in CONTROL_DIRS:
        for path in sorted((root / sub).rglob("*.rego")):
            if path.name.endswith("_test.rego"):
                continue
            in_block = False
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                text = line.strip()
                if text == "# METADATA":
                    in_block = True
                elif not text.startswith("#"):
                    in_block = False
                elif in_block and (m := _CONTROL_ID.match(text)):
                    found.add(m.group(1))
    return frozenset(found)
