"""Overlay merge: a stack policy that ``extends`` a base policy.

The merge rule (documented in the README and tested):

* mappings merge key by key, recursively; the overlay's value wins for every key it sets;
* lists of mappings that all carry a ``name`` (fleets, storage classes, checkpoint buckets)
  merge by name: an overlay item with a known name is merged into the base item (recursively),
  new names are appended in overlay order, and an item ``{name: X, $remove: true}`` drops ``X``;
* every other value (scalars, plain lists) is replaced whole by the overlay;
* an empty overlay list over a non-empty named base list is an error (it would silently keep
  every base item): items are removed one by one with ``$remove``;
* ``extends`` itself is resolved relative to the file that names it; chains are allowed up to
  :data:`MAX_CHAIN` files and cycles are an error.
"""

from __future__ import annotations

from typing import Any

from seedance.policy.errors import Problem, got as _got
from seedance.policy.yamlsrc import LList, LMap

REMOVE_KEY = "$remove"
MAX_CHAIN = 8


def _named_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(i, dict) and isinstance(i.get("name"), str) for i in value)


def merge(base: Any, overlay: Any, problems: list[Problem] | None = None, path: str = "") -> Any:
    """Merge ``overlay`` onto ``base`` (both located trees); returns a new located tree.

    An empty list in the overlay over a non-empty named list of the base would keep every base
    item (named lists merge by name), which reads as "clear the list" but is not: it is reported
    in ``problems``, naming ``$remove``.
    """
    if (
        isinstance(base, LList) and isinstance(overlay, LList) and not overlay and base and _named_list(base)
        and problems is not None
    ):
        names = ", ".join(repr(item["name"]) for item in base)
        problems.append(
            Problem(
                overlay.loc,
                path,
                f"an empty list does not clear the base policy's items ({names}): items merge by name; drop one "
                f"with {{name: X, {REMOVE_KEY}: true}}",
            )
        )
    if isinstance(base, LMap) and isinstance(overlay, LMap):
        out = LMap(overlay.loc)
        for key, value in base.items():
            out[key] = value
            out.key_locs[key] = base.key_locs[key]
            out.val_locs[key] = base.val_locs[key]
        for key, value in overlay.items():
            out[key] = merge(base[key], value, problems, f"{path}.{key}" if path else key) if key in base else value
            out.key_locs[key] = overlay.key_locs[key]
            out.val_locs[key] = overlay.val_locs[key]
        return out
    # an overlay item that is not a named mapping (null, a scalar, a mapping without a name) over a
    # named base list cannot merge by name: it is reported where it is and the others merge without it
    # (replacing the list whole would report its `$remove` markers as stray and the item not at all)
    unnamed = problems is not None and bool(base) and not _named_list(overlay)
    if isinstance(base, LList) and isinstance(overlay, LList) and _named_list(base) and (unnamed or _named_list(overlay)):
        out_l = LList(overlay.loc)
        by_name: dict[str, tuple[Any, Any]] = {}
        for i, (item, loc) in enumerate(zip(overlay, overlay.item_locs)):
            if not (isinstance(item, dict) and isinstance(item.get("name"), str)):
                if problems is not None:
                    problems.append(_unnamed_item(item, loc, f"{path}[{i}]"))
                continue
            if item["name"] in by_name and problems is not None:  # one edit per name: a second would be lost
                first = by_name[item["name"]][0].val_locs["name"]
                problems.append(Problem(item.val_locs["name"], f"{path}[{i}].name",
                                        f"name {item['name']!r} is used twice in this overlay list (also at line "
                                        f"{first.line}): an overlay item merges into the base item of its name, so give "
                                        "each name one item"))
                continue
            by_name[item["name"]] = (item, loc)
            extra = sorted(k for k in item if k not in ("name", REMOVE_KEY))
            if item.get(REMOVE_KEY) is True and extra and problems is not None:
                problems.append(Problem(item.key_locs[extra[0]], f"{path}[{i}].{extra[0]}",
                                        f"an item with '{REMOVE_KEY}: true' drops {item['name']!r} and takes only its "
                                        f"name; got also {', '.join(extra)}"))
        for item, loc in zip(base, base.item_locs):
            if item["name"] in by_name:
                o_item, o_loc = by_name.pop(item["name"])
                if o_item.get(REMOVE_KEY) is True:
                    continue
                merged = merge(item, o_item, problems, f"{path}[{len(out_l)}]")
                if REMOVE_KEY in o_item and problems is not None:  # a marker that is not true: say so here
                    problems.append(Problem(o_item.val_locs[REMOVE_KEY], f"{path}[{len(out_l)}].{REMOVE_KEY}",
                                            f"expected true (to drop the base policy's item {item['name']!r}; "
                                            f"it takes no other value), got {_got(o_item[REMOVE_KEY])}"))
                    _drop_marker(merged)
                out_l.append(merged)
                out_l.item_locs.append(o_loc)
            else:
                out_l.append(item)
                out_l.item_locs.append(loc)
        names = ", ".join(repr(item["name"]) for item in base)
        for item, loc in by_name.values():  # new names
            if REMOVE_KEY in item and problems is not None:  # nothing of that name to drop
                problems.append(Problem(item.key_locs[REMOVE_KEY], path,
                                        f"'{REMOVE_KEY}' drops the base policy's item of the same name, and the base "
                                        f"has no item {item['name']!r} here (it has {names})"))
                _drop_marker(item)
            out_l.append(item)
            out_l.item_locs.append(loc)
        return out_l
    return overlay


def _unnamed_item(item: Any, loc: Any, path: str) -> Problem:
    """The problem of an overlay item that cannot merge into a named base list: not a mapping, or
    one without a string ``name``."""
    if not isinstance(item, dict):
        return Problem(loc, path, f"expected a mapping, got {_got(item)}")
    if "name" not in item:
        return Problem(loc, f"{path}.name", "missing required field 'name' (an overlay item merges into the base "
                                            "policy's item of its name, or adds one of a new name)")
    return Problem(item.val_locs["name"], f"{path}.name", f"expected a string, got {_got(item['name'])}")


def _drop_marker(item: Any) -> None:
    """Take a reported ``$remove`` out of an item so it is not reported again as stray."""
    if isinstance(item, LMap) and REMOVE_KEY in item:
        del item[REMOVE_KEY]
        item.key_locs.pop(REMOVE_KEY, None)
        item.val_locs.pop(REMOVE_KEY, None)


def strip_remove_markers(tree: Any, problems: list[Problem], path: str = "") -> None:
    """Report ``$remove`` markers that removed nothing (not in a base list)."""
    if isinstance(tree, LMap):
        if REMOVE_KEY in tree:
            problems.append(
                Problem(tree.key_locs[REMOVE_KEY], path, f"'{REMOVE_KEY}' only applies to an item of the base policy's list with the same name")
            )
        for key, value in tree.items():
            strip_remove_markers(value, problems, f"{path}.{key}" if path else key)
    elif isinstance(tree, LList):
        for i, value in enumerate(tree):
            strip_remove_markers(value, problems, f"{path}[{i}]")
