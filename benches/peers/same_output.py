#!/usr/bin/env python3
"""Compares two outputs of fairsort and prints `same`, `same but sources` or `DIFFER`.

    same_output.py A B

`same but sources`: equal once the block naming where each input came from is dropped from both
(the `sources:` lines of a text report's header, the `"sources"` member of a JSON report), which
builds before that block was added do not print, and the home called "home" where those builds
said "server home". Only the first (text) and last (JSON) 64 KiB are searched for it."""
import re
import sys

HEAD = 1 << 16


def without_sources(data: bytes, blank: bool):
    """`data` without its sources block (and the blank line after it when `blank`)."""
    # Text: "sources:" and its continuation lines (indented 12 spaces), at the top.
    text = rb"(?m)^sources: .*\n(?: {12}\S.*\n)*" + (rb"\n" if blank else b"")
    m = re.search(text, data[:HEAD])
    if m:
        return data[: m.start()] + data[m.end():]
    # JSON: a "sources" member (objects nested one level), near the end of the report.
    tail = max(0, len(data) - HEAD)
    m = re.search(rb',?\s*"sources":\s*\{(?:[^{}]|\{[^{}]*\})*\}', data[tail:])
    if m:
        return data[: tail + m.start()] + data[tail + m.end():]
    return data


def renamed(data: bytes) -> bytes:
    """The header's first line with the home's old name replaced by its one name."""
    line, nl, rest = data.partition(b"\n")
    return line.replace(b"server home", b"home") + nl + rest


def main():
    a, b = (open(p, "rb").read() for p in sys.argv[1:3])
    if a == b:
        print("same")
    elif any(renamed(without_sources(a, k)) == renamed(without_sources(b, k)) for k in (False, True)):
        print("same but sources")
    else:
        print("DIFFER")
        sys.exit(1)


main()
