#!/usr/bin/env python3
"""The counted-call list of lessons/README.md, written from `iolab list --json` (it_schema).

  readme_calls.py IOLAB README           exit 1 and say what differs when the list is not
                                         iolab's own (counted_calls, in its order)
  readme_calls.py IOLAB README --write   rewrite the list between its markers

The list sits between the lines `<!-- counted-calls: begin -->` and `<!-- counted-calls: end -->`
as backquoted names, each line indented as the markers are, ending with a full stop. Both come
from one table (iolab_call_info in sandbox/count/iolab_counters.h), so a call added to the
counter and not to the format's documentation fails the test.
"""
import json
import subprocess
import sys

BEGIN = "<!-- counted-calls: begin -->"
END = "<!-- counted-calls: end -->"
WIDTH = 98


def names(iolab):
    out = subprocess.run([iolab, "list", "--json"], check=True, capture_output=True, text=True)
    return [c["name"] for c in json.loads(out.stdout)["counted_calls"]]


def block(calls, indent):
    lines, line = [], indent
    words = ["`%s`%s" % (c, "." if i == len(calls) - 1 else ",") for i, c in enumerate(calls)]
    for w in words:
        if line.strip() and len(line) + 1 + len(w) > WIDTH:
            lines.append(line)
            line = indent
        line += ("" if not line.strip() else " ") + w
    lines.append(line)
    return lines


def main():
    iolab, readme = sys.argv[1], sys.argv[2]
    write = "--write" in sys.argv[3:]
    with open(readme, encoding="utf-8") as f:
        text = f.read().split("\n")
    starts = [i for i, l in enumerate(text) if l.strip() == BEGIN]
    ends = [i for i, l in enumerate(text) if l.strip() == END]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        print("%s: one %s line, then one %s line, around the counted calls" % (readme, BEGIN, END))
        return 1
    b, e = starts[0], ends[0]
    indent = text[b][: len(text[b]) - len(text[b].lstrip())]
    calls = names(iolab)
    want = block(calls, indent)
    have = text[b + 1 : e]
    if write:
        with open(readme, "w", encoding="utf-8") as f:
            f.write("\n".join(text[: b + 1] + want + text[e:]))
        return 0
    listed = [w.strip("`,.") for l in have for w in l.split()]
    if listed == calls and have == want:
        print("%d counted calls, as iolab lists them" % len(calls))
        return 0
    for c in calls:
        if c not in listed:
            print("%s is counted (iolab list --json) but not in %s" % (c, readme))
    for c in listed:
        if c not in calls:
            print("%s is in %s but iolab does not count it" % (c, readme))
    if set(listed) == set(calls):
        print("the list is not in iolab's order or not laid out as the script writes it")
    print("run: %s %s %s --write" % (sys.argv[0], iolab, readme))
    return 1


if __name__ == "__main__":
    sys.exit(main())
