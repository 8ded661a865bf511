"""Safe YAML reading that keeps the location of every key and value.

Layer one of validation: bytes -> a tree of :class:`LMap` / :class:`LList` / scalars, each
container remembering where its keys and items came from (file, line, column).  Rejects
oversized files, non-UTF-8 input, several documents in one file, duplicate keys (and duplicate
``<<`` merge keys), non-scalar keys, tags other than the standard map/seq ones on mappings and
lists (scalars with unknown tags fail to construct), recursive aliases and alias "bombs" whose
expansion exceeds a node budget.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from typing import Any

import yaml

from seedance.policy.errors import Location, PolicySyntaxError, Problem

MAX_BYTES = 1 << 20  # 1 MiB: a cost policy is a few KiB
MAX_NODES = 100_000  # after alias expansion
MAX_DEPTH = 64


class LMap(dict):
    """A mapping that remembers the location of itself, its keys and its values."""

    def __init__(self, loc: Location):
        super().__init__()
        self.loc = loc
        self.key_locs: dict[str, Location] = {}
        self.val_locs: dict[str, Location] = {}


class LList(list):
    """A list that remembers the location of itself and its items."""

    def __init__(self, loc: Location):
        super().__init__()
        self.loc = loc
        self.item_locs: list[Location] = []


def _loc(file: str, mark: Any) -> Location:
    if mark is None:
        return Location(file, 1, 1)
    return Location(file, mark.line + 1, mark.column + 1)


def _fail(file: str, mark: Any, message: str, path: str = "") -> PolicySyntaxError:
    return PolicySyntaxError([Problem(_loc(file, mark), path, message)])


def read_bytes(path: str, max_bytes: int = MAX_BYTES) -> bytes:
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        raise PolicySyntaxError([Problem(Location(path, 1, 1), "", f"cannot read file: {exc.strerror or exc}")]) from None
    except ValueError:  # a NUL character: no file can have this name
        raise PolicySyntaxError([Problem(Location(path, 1, 1), "", "cannot read file: the path holds a NUL character")]) from None
    if size > max_bytes:
        raise PolicySyntaxError(
            [Problem(Location(path, 1, 1), "", f"file is {size:,} bytes; a policy may be at most {max_bytes:,} bytes")]
        )
    try:
        with open(path, "rb") as fh:
            return fh.read(max_bytes + 1)
    except OSError as exc:
        raise PolicySyntaxError([Problem(Location(path, 1, 1), "", f"cannot read file: {exc.strerror or exc}")]) from None


def _decode(file: str, data: bytes) -> str:
    if b"\x00" in data:
        off = data.index(b"\x00")
        line = data.count(b"\n", 0, off) + 1
        raise PolicySyntaxError([Problem(Location(file, line, 1), "", "binary data: expected a UTF-8 YAML text")])
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise PolicySyntaxError(
            [Problem(Location(file, line, 1), "", f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})")]
        ) from None


def parse(file: str, data: bytes) -> Any:
    """Parse one YAML document into a located tree (or raise :class:`PolicySyntaxError`)."""
    text = _decode(file, data)
    _check_line_breaks(file, text)
    if not text.strip() or all(ln.strip().startswith("#") or not ln.strip() for ln in text.splitlines()):
        raise PolicySyntaxError([Problem(Location(file, 1, 1), "", "empty document: expected a CostPolicy mapping")])
    _check_depth(file, text)
    try:
        loader = yaml.SafeLoader(text)
    except yaml.YAMLError as exc:  # the reader checks characters up front
        raise _reader_error(file, text, exc) from None
    try:
        try:
            node = loader.get_single_node()
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            what = exc.problem or "invalid YAML"
            if exc.context and "expected a single document" in exc.context:
                what = "expected a single YAML document, found several"
            elif exc.context and exc.context_mark is not None and mark is not None \
                    and exc.context_mark.line != mark.line:
                # the error is often found lines after its cause (a quote never closed, a key without
                # ': '): name where the construct it was reading starts
                what += (f" ({exc.context} that starts at line {exc.context_mark.line + 1}, "
                         f"column {exc.context_mark.column + 1})")
            raise _fail(file, mark, f"YAML syntax error: {what}") from None
        except yaml.YAMLError as exc:  # ReaderError and friends
            raise _reader_error(file, text, exc) from None
        if node is None:
            raise PolicySyntaxError([Problem(Location(file, 1, 1), "", "empty document: expected a CostPolicy mapping")])
        builder = _Builder(file, loader)
        tree = builder.build(node)
        if builder.duplicates:  # every key given twice, at once
            raise PolicySyntaxError(sorted(builder.duplicates, key=lambda p: (p.location.line, p.location.column)))
        return tree
    finally:
        loader.dispose()


#: characters YAML 1.1 (PyYAML) reads as line breaks that editors and line counts do not: every line
#: number after one would be off
_HIDDEN_BREAKS = {"\x85": "NEXT LINE", "\u2028": "LINE SEPARATOR", "\u2029": "PARAGRAPH SEPARATOR"}


def _check_line_breaks(file: str, text: str) -> None:
    """Refuse a line break only YAML sees (U+0085, U+2028, U+2029), at the line an editor shows it on."""
    problems: list[Problem] = []
    for lineno, line in enumerate(re.split(r"\r\n|\r|\n", text), start=1):
        for col, ch in enumerate(line, start=1):
            if ch in _HIDDEN_BREAKS:
                problems.append(Problem(Location(file, lineno, col), "", (
                    f"U+{ord(ch):04X} ({_HIDDEN_BREAKS[ch]}): YAML reads it as a line break, which editors do not "
                    "show; remove it (or write it as an escape in a double-quoted string)")))
    if problems:
        raise PolicySyntaxError(problems[:20])


def _check_depth(file: str, text: str) -> None:
    """Fail on nesting deeper than MAX_DEPTH before PyYAML builds the tree: its composer recurses once
    per level (a 1 KB file of brackets exhausts Python's stack), its event parser does not.  Errors of
    the YAML itself are left to the full parse, which reports them with their location."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH + 1:  # the top-level mapping is level 0 for build()
                    raise _fail(file, event.start_mark, f"document nests deeper than {MAX_DEPTH} levels")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return


def _reader_error(file: str, text: str, exc: yaml.YAMLError) -> PolicySyntaxError:
    pos = getattr(exc, "position", None)
    if isinstance(pos, int) and 0 <= pos <= len(text):
        line = text.count("\n", 0, pos) + 1
        col = pos - (text.rfind("\n", 0, pos) + 1) + 1
        char = getattr(exc, "character", None)
        what = f"character {char!r} is not allowed in YAML" if char is not None else "unreadable YAML"
        return PolicySyntaxError([Problem(Location(file, line, col), "", what)])
    return PolicySyntaxError([Problem(Location(file, 1, 1), "", f"YAML error: {exc}"[:300])])


_MERGE = "tag:yaml.org,2002:merge"
#: The number forms a policy reads as numbers: plain decimals (and YAML's .inf/.nan, which the schema
#: refuses by name). YAML 1.1 also reads base 60 (2:00), octal (010), hex, binary and 1_000 as numbers.
_NUMBER_FORMS = {
    "tag:yaml.org,2002:int": re.compile(r"[-+]?(?:0|[1-9][0-9]*)"),
    # a dot or not: YAML resolves a plain float only with one, and an explicit !!float 1000 is fine
    "tag:yaml.org,2002:float": re.compile(r"[-+]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|\.(?:inf|Inf|INF|nan|NaN|NAN))"),
}
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
#: The only tags a mapping or a list may carry: the standard ones (implicit, or written !!map / !!seq).
_PLAIN_TAGS = frozenset({"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"})


#: The tags a mapping key may carry: those YAML gives a plain scalar (or the same written out, !!str).
_KEY_TAGS = frozenset(f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "timestamp"))


def _tag_text(tag: str) -> str:
    prefix = "tag:yaml.org,2002:"
    return "!!" + tag[len(prefix):] if tag.startswith(prefix) else tag


class _Builder:
    def __init__(self, file: str, loader: yaml.SafeLoader):
        self.file = file
        self.loader = loader
        self.count = 0
        self.stack: set[int] = set()
        self.splits: dict[int, tuple[list[Any], list[Any]]] = {}  # id(mapping node) -> (own, merged) pairs
        self.splitting: set[int] = set()  # mappings whose merges are being resolved (recursion guard)
        self.duplicates: list[Problem] = []  # keys given twice: all reported at once, after the whole tree

    def _split(self, node: yaml.MappingNode, path: str) -> tuple[list[Any], list[Any]]:
        """A mapping's own pairs and the pairs its ``<<`` merge key brings in, in precedence order:
        each merged mapping's own pairs, then what it merges itself (so a chain of merges keeps the
        nearest value), earlier mappings of a ``<<: [*a, *b]`` list before later ones.  Computed once
        per node (an alias visits the same node again); PyYAML's ``flatten_mapping`` is not used, as
        it lets a merged mapping's own merges override its own keys."""
        cached = self.splits.get(id(node))
        if cached is not None:
            return cached
        merge_pairs = [(k, v) for k, v in node.value if k.tag == _MERGE]
        if len(merge_pairs) > 1:
            raise _fail(
                self.file,
                merge_pairs[1][0].start_mark,
                f"duplicate merge key '<<' (first at line {merge_pairs[0][0].start_mark.line + 1}); merge several "
                "mappings with one key: '<<: [*a, *b]'",
                path,
            )
        own = [(k, v) for k, v in node.value if k.tag != _MERGE]
        # every mapping's own keys are checked here, once per node: one only merged (``<<: &defaults
        # {...}``) is never built itself, and a key given twice in it would silently keep one value
        first_at: dict[str, Any] = {}
        for key_node, _ in own:
            if isinstance(key_node, yaml.ScalarNode):
                if key_node.value in first_at:
                    self.duplicates.append(Problem(
                        _loc(self.file, key_node.start_mark),
                        f"{path}.{key_node.value}" if path else key_node.value,
                        f"duplicate key {key_node.value!r} (first defined at line {first_at[key_node.value].line + 1})"))
                    continue
                first_at[key_node.value] = key_node.start_mark
        merged: list[Any] = []
        if merge_pairs:
            source = merge_pairs[0][1]
            sources = source.value if isinstance(source, yaml.SequenceNode) else [source]
            if id(node) in self.splitting:
                raise _fail(self.file, node.start_mark, "recursive merge: a mapping merges itself", path)
            self.splitting.add(id(node))
            try:
                for src in sources:
                    if not isinstance(src, yaml.MappingNode):
                        raise _fail(self.file, src.start_mark,
                                    "invalid merge key: '<<' takes a mapping or a list of mappings", path)
                    if src.tag not in _PLAIN_TAGS:
                        raise _fail(self.file, src.start_mark,
                                    f"YAML tag {_tag_text(src.tag)!r} is not allowed on a mapping: a policy uses plain "
                                    "mappings, lists and scalars (no custom tags)", path)
                    src_own, src_merged = self._split(src, path)
                    merged.extend(src_own + src_merged)
            finally:
                self.splitting.discard(id(node))
        self.splits[id(node)] = (own, merged)
        return own, merged

    def build(self, node: yaml.Node, depth: int = 0, path: str = "") -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise _fail(self.file, node.start_mark, f"document expands to more than {MAX_NODES:,} nodes (alias bomb?)")
        if depth > MAX_DEPTH:
            raise _fail(self.file, node.start_mark, f"document nests deeper than {MAX_DEPTH} levels")
        if id(node) in self.stack:
            raise _fail(self.file, node.start_mark, "recursive alias: a node contains itself", path)
        loc = _loc(self.file, node.start_mark)
        if isinstance(node, yaml.ScalarNode):
            if node.tag in _NUMBER_FORMS and not _NUMBER_FORMS[node.tag].fullmatch(node.value.strip()):
                # YAML 1.1's other number forms (2:00 is 120, 010 is 8, 0x18, 1_000): kept as the text
                # written, so the schema reports it at its field as not a number
                return node.value
            try:
                value = self.loader.construct_object(node, deep=True)
                if isinstance(value, bytes):  # !!binary: no field of a policy holds bytes
                    raise _fail(self.file, node.start_mark, f"YAML tag {_tag_text(node.tag)!r} is not allowed: a "
                                "policy holds text, numbers, booleans and dates, not binary data", path)
                if isinstance(value, str):
                    value = _join_surrogates(value)
                # a date and time (2024-01-01 10:00:00): the text as written, not a rewritten form
                # (2024-01-01T10:00:00), for a string field and for the error a date field gives
                return node.value if isinstance(value, dt.datetime) else value
            except yaml.YAMLError as exc:
                raise _fail(
                    self.file, node.start_mark, f"invalid value {node.value!r}: {getattr(exc, 'problem', exc)}", path
                ) from None
            except _LoneSurrogate as exc:
                raise _fail(self.file, node.start_mark, str(exc), path) from None
            except (ValueError, OverflowError) as exc:
                if node.tag == _TIMESTAMP:
                    # date-shaped but no date (2024-13-45): keep the text, so the schema reports it
                    # at its field like any other bad date, with the document's other errors
                    return node.value
                raise _fail(self.file, node.start_mark, f"invalid value {node.value!r}: {exc}", path) from None
        if node.tag not in _PLAIN_TAGS:
            kind = "mapping" if isinstance(node, yaml.MappingNode) else "list"
            raise _fail(
                self.file,
                node.start_mark,
                f"YAML tag {_tag_text(node.tag)!r} is not allowed on a {kind}: a policy uses plain mappings, lists "
                "and scalars (no custom tags)",
                path,
            )
        self.stack.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                out = LList(loc)
                for item in node.value:
                    out.append(self.build(item, depth + 1, f"{path}[{len(out)}]"))
                    out.item_locs.append(_loc(self.file, item.start_mark))
                return out
            if isinstance(node, yaml.MappingNode):
                own, merged = self._split(node, path)
                out_m = LMap(loc)
                for i, (key_node, value_node) in enumerate(own + merged):
                    if not isinstance(key_node, yaml.ScalarNode):
                        raise _fail(self.file, key_node.start_mark, "mapping keys must be plain strings")
                    if key_node.tag not in _KEY_TAGS:
                        raise _fail(self.file, key_node.start_mark,
                                    f"YAML tag {_tag_text(key_node.tag)!r} is not allowed on a key: a policy uses plain "
                                    "mappings, lists and scalars (no custom tags)", path)
                    try:
                        key = _join_surrogates(key_node.value)
                    except _LoneSurrogate as exc:
                        raise _fail(self.file, key_node.start_mark, str(exc), path) from None
                    if key in out_m:
                        # explicit keys override merged ones, the first merged mapping wins; a key given
                        # twice in the mapping itself was recorded by _split (its first value is kept
                        # while the rest of the document is read)
                        continue
                    out_m.key_locs[key] = _loc(self.file, key_node.start_mark)
                    out_m.val_locs[key] = _loc(self.file, value_node.start_mark)
                    out_m[key] = self.build(value_node, depth + 1, f"{path}.{key}" if path else key)
                return out_m
            raise _fail(self.file, node.start_mark, f"unsupported YAML node {type(node).__name__}")
        finally:
            self.stack.discard(id(node))


class _LoneSurrogate(ValueError):
    """Half of a UTF-16 surrogate pair in a YAML string."""


def _join_surrogates(text: str) -> str:
    """``text`` with each pair of UTF-16 surrogates YAML's \\u escapes give (\\ud83d\\ude00) joined into
    its character; :class:`_LoneSurrogate` for half a pair, which is no character (no JSON or UTF-8
    reader further on accepts it)."""
    if not any("\ud800" <= ch <= "\udfff" for ch in text):
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if "\ud800" <= ch <= "\udbff" and "\udc00" <= nxt <= "\udfff":
            out.append(chr(0x10000 + ((ord(ch) - 0xD800) << 10) + (ord(nxt) - 0xDC00)))
            i += 2
            continue
        if "\ud800" <= ch <= "\udfff":
            raise _LoneSurrogate(f"invalid escape \\u{ord(ch):04x}: a lone UTF-16 surrogate is no character; write "
                                 "the character itself, its \\U escape (\\U0001F600) or both halves of its pair")
        out.append(ch)
        i += 1
    return "".join(out)

