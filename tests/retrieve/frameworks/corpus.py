"""The helpdesk sections (examples/helpdesk/sections.jsonl) that each framework test indexes, and
the golden set whose relevant ids are section ids."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "helpdesk"
GOLDEN = EXAMPLE / "golden.jsonl"


def sections() -> list[dict[str, Any]]:
    """Each section: ``id`` (what the golden set labels), ``doc_id`` (its page), ``title``, ``text``."""
    with open(EXAMPLE / "sections.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def questions() -> list[dict[str, Any]]:
    with open(GOLDEN, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def page(section: dict[str, Any]) -> str:
    return f"{section['title']}\n\n{section['text']}"
