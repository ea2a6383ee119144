"""Write the generated parts of docs/reference/retrievers.md from the adapter registry.

Each retriever module registers one ``ADAPTER`` value (``ragauge.retrieve.adapter.Adapter``: its schemes,
a summary, an example, the extra it needs, its spec options and, for a store, its ``index`` call). The page
holds, between ``<!-- generated: KEY -->`` and ``<!-- end generated -->`` lines, the table of every scheme
(KEY ``schemes``) and each adapter's fields (KEY ``spec NAME``); everything else on the page is written by
hand. ``tests/test_docs.py`` fails when a block differs from what this script writes.

    python docs/make_reference.py          # rewrite the blocks in place
    python docs/make_reference.py --check  # exit 1 when a block is stale
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "reference" / "retrievers.md"
BLOCK = re.compile(r"(<!-- generated: (?P<key>[^>]+?) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.S)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _anchor(adapter: Any) -> str:
    """The page's heading for an adapter is its schemes (``## http:, https:``); this is its slug."""
    return "-".join(adapter.schemes)


def _adapters() -> list[Any]:
    from ragauge.retrieve.registry import ADAPTERS, adapter

    found: dict[str, Any] = {}
    for scheme in ADAPTERS:  # the built-in ones only: an installed plugin is not ragauge's to document
        value = adapter(scheme)
        found.setdefault(value.name, value)
    return list(found.values())


def schemes_table() -> str:
    lines = ["| scheme | what it calls | extra |", "|---|---|---|"]
    for a in _adapters():
        schemes = " / ".join(f"`{s}:`" for s in a.schemes)
        extra = f"`{a.extra}`" if a.extra else "none"
        lines.append(f"| [{schemes}](#{_anchor(a)}) | {_cell(a.summary)} | {extra} |")
    return "\n".join(lines) + "\n"


def spec_fields(name: str) -> str:
    a = next(a for a in _adapters() if a.name == name)
    lines = [f"- **What**: {a.summary}.", f"- **Example**: `{a.example}`"]
    needs = f"`pip install 'ragauge[{a.extra}]'`" if a.extra else "nothing beyond ragauge"
    lines.append(f"- **Needs**: {needs}")
    if a.index is not None:
        flags = ", ".join(f"`{o.flag}`" for o in a.index.options)
        lines.append(f"- **Loaded by**: `ragauge index {a.name} CORPUS {a.index.target}`"
                     + (f" (its own options: {flags})" if flags else ""))
    if a.options:
        lines += ["", "| option | default | values | what it does |", "|---|---|---|---|"]
        for o in a.options:
            default = f"`{o.default}`" if o.default is not None else ""
            values = ", ".join(f"`{c}`" for c in o.choices) if o.choices else ""
            lines.append(f"| `{o.name}` | {default} | {values} | {_cell(o.help)} |")
    return "\n".join(lines) + "\n"


def render(key: str) -> str:
    if key == "schemes":
        return schemes_table()
    if key.startswith("spec "):
        return spec_fields(key.removeprefix("spec "))
    raise SystemExit(f"{PAGE.relative_to(ROOT)}: unknown generated block {key!r}")


def expected(page: str) -> str:
    """The page with every generated block rewritten."""
    return BLOCK.sub(lambda m: m.group(1) + "\n" + render(m.group("key")) + "\n" + m.group(4), page)


def keys(page: str) -> list[str]:
    return [m.group("key") for m in BLOCK.finditer(page)]


def main() -> None:
    page = PAGE.read_text(encoding="utf-8")
    new = expected(page)
    if "--check" in sys.argv[1:]:
        if new != page:
            raise SystemExit(f"{PAGE.relative_to(ROOT)} is stale: run python docs/make_reference.py")
        return
    PAGE.write_text(new, encoding="utf-8")
    print(f"wrote {len(keys(new))} generated blocks of {PAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
