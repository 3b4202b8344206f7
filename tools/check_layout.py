#!/usr/bin/env python3
"""check_layout.py - the size rules of issue 18: no file in bot/,
adapters/ or present/ over 1,000 lines, no C function over 120 lines.

    tools/check_layout.py [--all] [--allow FILE] [ROOT]

Prints one line per offender, "path:line name length" (name is "-" for a
whole file), and exits 1 when any offender is not in the allowlist
(tools/layout_allow.txt by default).  --all also prints the allowed ones,
marked "(allowed: reason)".  Allowlist entries that no longer match an
offender are reported as stale, so the list only ever shrinks.

Functions are found by a simple scan: comments, strings, character
literals and preprocessor lines are blanked, then every brace at the top
level whose header ends in a parameter list opens a function body, which
ends at the matching brace.  A function's length counts its lines from
its name to its closing brace.
"""
import argparse
import os
import re
import sys

DIRS = ("bot", "adapters", "present")
MAX_FILE_LINES = 1000
MAX_FUNCTION_LINES = 120
EXTENSIONS = (".c", ".h")


def blank(text):
    """text with comments, strings, character literals and preprocessor
    lines replaced by spaces; newlines kept, so line numbers stay."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":
            # A directive, with its backslash continuations.
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        if c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        if c == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            continue
        out.append(c)
        if c == "\n":
            at_line_start = True
        elif not c.isspace():
            at_line_start = False
        i += 1
    return "".join(out)


HEADER = re.compile(r"(\w+)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*"
                    r"(?:__attribute__\s*\(\(.*?\)\)\s*)*$", re.S)


def functions(text):
    """(name, first line, length in lines) of each top-level function."""
    code = blank(text)
    found = []
    depth = 0
    start = 0              # where the current top-level header begins
    body = None            # (name, name line) of the function being read
    for i, c in enumerate(code):
        if c == "{":
            if depth == 0:
                header = code[start:i]
                m = HEADER.search(header)
                # A header that ends in a parameter list opens a
                # function; an initializer (= {) or a struct does not.
                if m is not None and "=" not in header:
                    line = code.count("\n", 0, start + m.start(1)) + 1
                    body = (m.group(1), line)
                else:
                    body = None
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                if body is not None:
                    end = code.count("\n", 0, i) + 1
                    found.append((body[0], body[1], end - body[1] + 1))
                    body = None
                start = i + 1
        elif c == ";" and depth == 0:
            start = i + 1
    return found


def offenders(root):
    """(key, "path:line name length") for every file and function over."""
    result = []
    for top in DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(EXTENSIONS):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                lines = text.count("\n")
                if lines > MAX_FILE_LINES:
                    result.append((rel, "%s:1 - %d" % (rel, lines)))
                if not name.endswith(".c"):
                    continue
                for fn, line, length in functions(text):
                    if length > MAX_FUNCTION_LINES:
                        result.append(("%s:%s" % (rel, fn), "%s:%d %s %d" %
                                       (rel, line, fn, length)))
    return result


def read_allow(path):
    """{key: reason} from the allowlist; every entry needs a reason."""
    allow = {}
    if not os.path.exists(path):
        return allow
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 1)
            if len(parts) < 2:
                sys.exit("%s:%d: %s has no reason" % (path, number,
                                                      parts[0]))
            allow[parts[0]] = parts[1]
    return allow


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", nargs="?", default=os.path.dirname(here))
    ap.add_argument("--allow", default=os.path.join(here, "layout_allow.txt"))
    ap.add_argument("--all", action="store_true",
                    help="also print the allowed offenders")
    args = ap.parse_args()
    allow = read_allow(args.allow)
    found = offenders(args.root)
    bad = 0
    for key, text in found:
        if key in allow:
            if args.all:
                print("%s (allowed: %s)" % (text, allow[key]))
        else:
            print(text)
            bad += 1
    keys = {key for key, _ in found}
    for key in sorted(set(allow) - keys):
        print("stale allowlist entry: %s" % key)
    print("%d over the limits (%d files over %d lines, %d functions over %d"
          " lines), %d not allowed" % (
              len(found), sum(1 for k, _ in found if ":" not in k),
              MAX_FILE_LINES, sum(1 for k, _ in found if ":" in k),
              MAX_FUNCTION_LINES, bad), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
