"""Build sections.jsonl and corpus.jsonl from the Markdown files in docs/.

    python examples/helpdesk/make_sections.py

Rules (also stated in README.md):
- doc id = path under docs/ without ".md", with "/" separators (networking/vpn-error-codes);
- the first line is "# Title"; "## Heading" lines start sections;
- section id = doc id + "#" + slug(heading), slug = lowercase, every run of characters other
  than a-z and 0-9 replaced by one "-", leading/trailing "-" removed;
- text between the title and the first "##" (the lead) is a section of its own with the
  reserved slug "overview" (no document may use "## Overview" as a heading);
- sections.jsonl: {"id", "doc_id", "title": doc title + " — " + heading, "text": body without
  the heading line}; corpus.jsonl: {"id", "title", "text": everything after the title line}.

Output is deterministic: files in sorted path order, sections in document order, UTF-8, "\n".
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"
LEAD = "Overview"


def slug(heading: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", heading.lower()).strip("-")


def parse(path: Path) -> tuple[str, str, str, list[tuple[str, str]]]:
    """(doc_id, title, body, [(heading, text), ...]) for one Markdown file."""
    doc_id = path.relative_to(DOCS).with_suffix("").as_posix()
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or not lines[0].startswith("# "):
        sys.exit(f"{path}: the first line must be '# Title'")
    title = lines[0][2:].strip()
    sections: list[tuple[str, list[str]]] = [(LEAD, [])]
    for line in lines[1:]:
        if line.startswith("## "):
            sections.append((line[3:].strip(), []))
        elif line.startswith("# "):
            sys.exit(f"{path}: only one '# Title' line is allowed")
        else:
            sections[-1][1].append(line)
    out = [(h, "\n".join(body).strip()) for h, body in sections]
    if not out[0][1]:
        out = out[1:]
    slugs = [slug(h) for h, _ in out]
    if len(set(slugs)) != len(slugs) or any(not s for s in slugs):
        sys.exit(f"{path}: headings must have distinct, non-empty slugs: {slugs}")
    if sum(1 for h, _ in out if h == LEAD) > 1 or (out[0][0] != LEAD and LEAD in [h for h, _ in out]):
        sys.exit(f"{path}: '## {LEAD}' is reserved for the lead text")
    body = "\n".join(lines[1:]).strip()
    return doc_id, title, body, out


def main() -> None:
    files = sorted(DOCS.rglob("*.md"), key=lambda p: p.relative_to(DOCS).as_posix())
    sections, corpus = [], []
    for path in files:
        doc_id, title, body, parts = parse(path)
        corpus.append({"id": doc_id, "title": title, "text": body})
        for heading, text in parts:
            sections.append({"id": f"{doc_id}#{slug(heading)}", "doc_id": doc_id,
                             "title": f"{title} — {heading}", "text": text})
    for name, rows in (("sections.jsonl", sections), ("corpus.jsonl", corpus)):
        with open(HERE / name, "w", encoding="utf-8", newline="\n") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(corpus)} documents, {len(sections)} sections")


if __name__ == "__main__":
    main()
