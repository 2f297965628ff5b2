#!/usr/bin/env python3
"""File-level import cycles inside the library (src/ without the CLI) and inside the binary
(src/main.rs and src/cli/).

Run from the repository root: `python3 scripts/module_cycles.py [-v]`.

Each .rs file under src/ is one module (`foo/mod.rs` is `foo`, `lib.rs` the crate root). Every
`crate::`, `super::` and `self::` path in a file (`use` trees with braces included) is an edge to
the longest module the path names. Edges from a module to one of its ancestors are ignored (a
child naming its parent's re-exports), and so is whatever only exists in tests: items under
`#[cfg(test)]` and files declared `#[cfg(test)] mod x;`. Comments and string literals are skipped.

Prints each strongly connected component (a set of files that import each other in a cycle) on
one line, then the number of cycles; `-v` also prints, for each edge inside a cycle, where it
comes from. Exits with 1 when there is a cycle.
"""

import collections
import os
import re
import sys

ROOT = "src"


def modpath(f):
    """`src/a/b.rs` -> ('a', 'b'); `src/a/mod.rs` -> ('a',); `src/lib.rs` -> ()."""
    p = f[len(ROOT) + 1 : -3].split("/")
    if p[-1] == "mod":
        p = p[:-1]
    if p == ["lib"]:
        p = []
    return tuple(p)


def in_library(f):
    return not f.startswith(ROOT + "/cli/") and f != ROOT + "/main.rs"


def in_binary(f):
    return not in_library(f)


def bin_modpath(f):
    """`src/main.rs` -> (); `src/cli/a.rs` -> ('cli', 'a')."""
    return () if f == ROOT + "/main.rs" else modpath(f)


def blank(text, a, b):
    """`text` with [a, b) replaced by spaces (newlines kept, so line numbers stay right)."""
    return text[:a] + re.sub(r"[^\n]", " ", text[a:b]) + text[b:]


RAW_STRING = re.compile(r'b?r(#*)"')
IDENT_CHAR = re.compile(r"[A-Za-z0-9_]")
CHAR_LITERAL = re.compile(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'\n])'")


def strip_comments_and_strings(text):
    """`text` with comments and string and char literals blanked (line numbers kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif (m := RAW_STRING.match(text, i)) and not (i and IDENT_CHAR.match(text, i - 1)):
            end = '"' + m.group(1)
            j = text.find(end, m.end())
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'":
            # a char literal ('a', '\n', '\u{1F600}', '"'), else a lifetime or label
            m = CHAR_LITERAL.match(text, i)
            j = m.end() if m else i + 1
            out.append(" " * (j - i) if m else c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def item_end(text, i):
    """End of the item starting at `i` (after its attributes): its `;` or its closing brace."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == ";" and depth == 0:
            return i + 1
        elif c == "{" and depth == 0:
            level = 0
            while i < len(text):
                if text[i] == "{":
                    level += 1
                elif text[i] == "}":
                    level -= 1
                    if level == 0:
                        return i + 1
                i += 1
            return i
        i += 1
    return i


CFG_TEST = re.compile(r"#\[cfg\(test\)\]")


def strip_test_items(text):
    """`text` without the items under `#[cfg(test)]`; also the names of `#[cfg(test)] mod x;`."""
    test_mods = []
    while m := CFG_TEST.search(text):
        i = m.end()
        # skip further attributes on the same item
        while (a := re.match(r"\s*#\[", text[i:])):
            i = item_end(text, i + a.end() - 1)  # the attribute's brackets
        end = item_end(text, i)
        decl = re.match(r"\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;", text[i:end])
        if decl:
            test_mods.append(decl.group(1))
        text = blank(text, m.start(), end)
    return text, test_mods


def use_paths(tree, prefix=""):
    """The paths of a `use` tree: `a::{b, c::{d, e}}` -> a::b, a::c::d, a::c::e."""
    tree = re.sub(r"\s+", "", tree)
    if "{" not in tree:
        yield prefix + tree
        return
    i = tree.index("{")
    head, body = tree[:i], tree[i + 1 : tree.rindex("}")]
    depth, start = 0, 0
    parts = []
    for k, c in enumerate(body):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(body[start:k])
            start = k + 1
    parts.append(body[start:])
    for p in parts:
        if p:
            yield from use_paths(p, prefix + head)


PATH = re.compile(r"(?<![A-Za-z0-9_:$])((?:crate|super|self)(?:::(?:super|[a-z_][a-z0-9_]*))*)")
USE = re.compile(r"\buse\s+([^;]*);")


def paths_of(text):
    """(path, offset) of every crate/super/self path: whole `use` trees, then the other code."""
    found = []
    for m in USE.finditer(text):
        tree = re.sub(r"\s+as\s+[A-Za-z_]\w*", "", m.group(1))
        for p in use_paths(tree):
            found.append((p.lstrip(":"), m.start()))
        text = blank(text, m.start(), m.end())
    for m in PATH.finditer(text):
        found.append((m.group(1), m.start()))
    return found


def main():
    verbose = "-v" in sys.argv[1:]
    every = sorted(
        os.path.join(d, x) for d, _, fs in os.walk(ROOT) for x in fs if x.endswith(".rs")
    )
    total = 0
    for label, keep in (("library", in_library), ("binary", in_binary)):
        found = cycles([f for f in every if keep(f)], verbose)
        print(f"{label}: {found} cycles")
        total += found
    return 1 if total else 0


def cycles(files, verbose):
    """Prints the cycles among `files` (one crate) and returns how many there are."""
    modpath = bin_modpath if files and in_binary(files[0]) else globals()["modpath"]
    known = {modpath(f): f for f in files}
    texts, test_only = {}, set()
    for f in files:
        text = strip_comments_and_strings(open(f, encoding="utf-8").read())
        text, mods = strip_test_items(text)
        texts[f] = text
        test_only.update(modpath(f) + (m,) for m in mods)

    def tested_only(mod):
        return any(mod[: len(t)] == t for t in test_only)

    edges = collections.defaultdict(dict)  # module -> {target: (file, line, path)}
    for f in files:
        me = modpath(f)
        if tested_only(me):
            continue
        text = texts[f]
        for path, at in paths_of(text):
            segs = path.split("::")
            if segs[0] == "crate":
                cur, rest = [], segs[1:]
            elif segs[0] == "self":
                cur, rest = list(me), segs[1:]
            elif segs[0] == "super":
                cur, rest = list(me), segs
            elif me + (segs[0],) in known:
                cur, rest = list(me), segs  # `use child::Item` (2018 relative path)
            else:
                continue  # another crate
            while rest and rest[0] == "super":
                cur, rest = cur[:-1], rest[1:]
            full = cur + rest
            target = next(
                (tuple(full[:k]) for k in range(len(full), 0, -1) if tuple(full[:k]) in known),
                None,
            )
            if target is None or target == me or tested_only(target):
                continue
            if len(me) > len(target) and me[: len(target)] == target:
                continue  # child -> ancestor
            line = text.count("\n", 0, at) + 1
            edges[me].setdefault(target, (f, line, path))

    # Tarjan's strongly connected components.
    index, low, stack, on, sccs = {}, {}, [], set(), []
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    for v in sorted(known):
        if v not in index:
            visit(v)
    name = "::".join
    for comp in sorted(sccs):
        print(" <-> ".join(name(m) for m in comp))
        if verbose:
            for a in comp:
                for b, (f, line, path) in sorted(edges[a].items()):
                    if b in comp:
                        print(f"    {name(a)} -> {name(b)}: {f}:{line}: {path}")
    return len(sccs)


if __name__ == "__main__":
    sys.exit(main())
