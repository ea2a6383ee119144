"""Where ragauge caches what it builds (indexes, embeddings, downloaded models)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """``$RAGAUGE_CACHE``, else ``~/.cache/ragauge``. Not created here: each user makes its own
    subfolder when it writes."""
    return Path(os.environ.get("RAGAUGE_CACHE") or Path.home() / ".cache" / "ragauge")
