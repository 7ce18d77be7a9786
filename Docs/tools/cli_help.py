#!/usr/bin/env python3
"""Rewrites the `--help` blocks of Docs/CLI.md from the binary, so that the page says what `--help` says.

A block is a fenced block whose first line is `OVERVIEW:` and which holds `USAGE: routetiles COMMAND`; it is
replaced by `routetiles COMMAND --help` as the binary prints it (80 columns).

    python3 Docs/tools/cli_help.py [path/to/routetiles]     # default: .build/debug/routetiles
"""
import os
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parents[2]
binary = sys.argv[1] if len(sys.argv) > 1 else str(root / ".build/debug/routetiles")
page = root / "Docs/CLI.md"
text = page.read_text(encoding="utf-8")


def rewrite(match: re.Match) -> str:
    block = match.group(1)
    command = re.search(r"^USAGE: routetiles (\w+)", block, re.M)
    if not command:
        return match.group(0)
    helped = subprocess.run([binary, command.group(1), "--help"], capture_output=True, text=True, check=True,
                            env={**os.environ, "COLUMNS": "80"}).stdout.rstrip("\n")
    return "```\n" + helped + "\n```"


new = re.sub(r"```\n(OVERVIEW:.*?)\n```", rewrite, text, flags=re.S)
if new != text:
    page.write_text(new, encoding="utf-8")
    print("Docs/CLI.md: help blocks rewritten")
else:
    print("Docs/CLI.md: help blocks already true")
