"""Every relative Markdown link in the documentation points at something that exists.

Checked files: README.md, docs/**/*.md, examples/**/README.md, crates/testkit/README.md.
A link `[text](path)` or `![alt](path)` must name a file or directory that exists,
relative to the file that holds the link; `[text](path#anchor)` (or `(#anchor)`) into a
Markdown file must also name one of its headings by GitHub's slug (lowercase, spaces to
`-`, punctuation other than `-` and `_` dropped; a repeated heading gets `-1`, `-2`, ...).
Links to http(s):// and mailto: are not followed. Links inside code (fenced blocks and
`inline code`) are not links and are skipped.

    python3 -m unittest tests/docs/test_links.py
"""

from __future__ import annotations

import re
import tempfile
import unittest
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# [text](target) and ![alt](target); the text may hold `code` but no brackets of its own
# beyond one level (enough for this repository's links).
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(([^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")


def documents() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "crates" / "testkit" / "README.md"]
    files += sorted((ROOT / "docs").rglob("*.md"))
    files += sorted((ROOT / "examples").rglob("README.md"))
    # What the adapters install (npm, a venv, cargo's target) is not this repository's docs.
    installed = {"node_modules", ".venv", "target"}
    return [f for f in files if f.is_file() and not installed & set(f.parts)]


def prose_lines(text: str):
    """(line number, line) for every line outside fenced code blocks."""
    fence = None
    for n, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1) == fence:
                fence = None
            continue
        if fence is None:
            yield n, line


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"<[^>]+>", "", heading)  # inline HTML
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links keep their text
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out: set[str] = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        for name in HTML_ANCHOR.findall(line):
            out.add(name)
        m = HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def links(path: Path):
    """(line number, target) of every link in prose."""
    for n, line in prose_lines(path.read_text(encoding="utf-8")):
        for m in LINK.finditer(INLINE_CODE.sub("", line)):
            yield n, m.group(1)


def shown(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def broken_links(files: list[Path], root: Path = ROOT) -> list[str]:
    problems = []
    cache: dict[Path, set[str]] = {}
    for doc in files:
        for n, target in links(doc):
            where = f"{shown(doc)}:{n}: ({target})"
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):  # http:, https:, mailto:, ...
                continue
            path_part, _, anchor = target.partition("#")
            path_part = urllib.parse.unquote(path_part)
            dest = (doc.parent / path_part).resolve() if path_part else doc
            if path_part.startswith("/"):
                problems.append(f"{where}: an absolute path; write it relative to the file")
                continue
            if not dest.exists():
                problems.append(f"{where}: no such file")
                continue
            try:
                dest.relative_to(root.resolve())
            except ValueError:
                problems.append(f"{where}: outside the repository")
                continue
            if anchor and dest.suffix == ".md":
                if dest not in cache:
                    cache[dest] = anchors(dest)
                if urllib.parse.unquote(anchor) not in cache[dest]:
                    problems.append(f"{where}: no heading with anchor #{anchor} in {shown(dest)}")
    return problems


class Slugs(unittest.TestCase):
    def test_github_style(self):
        self.assertEqual(slug("MCP 2026-07-28 (stateless), so far"), "mcp-2026-07-28-stateless-so-far")
        self.assertEqual(slug("`foreign_event`"), "foreign_event")
        self.assertEqual(slug("Writing a scenario"), "writing-a-scenario")
        self.assertEqual(slug("Simulated or live: one engine"), "simulated-or-live-one-engine")

    def test_a_broken_link_is_reported(self):
        with tempfile.TemporaryDirectory() as tmp:
            doc = Path(tmp) / "doc.md"
            doc.write_text(
                "# Title\n\n[ok](#title) [bad](#nope) [gone](missing.md) [self](doc.md#title)\n"
                "```sh\n[in code](missing.md)\n```\n`[inline](missing.md)`\n",
                encoding="utf-8",
            )
            problems = broken_links([doc], root=Path(tmp))
        self.assertEqual(len(problems), 2, problems)
        self.assertIn("#nope", problems[0])
        self.assertIn("missing.md", problems[1])


class Links(unittest.TestCase):
    def test_every_relative_link_resolves(self):
        files = documents()
        self.assertGreater(len(files), 5, files)
        problems = broken_links(files)
        self.assertEqual(problems, [], "broken links:\n" + "\n".join(problems))


if __name__ == "__main__":
    unittest.main()
