"""The evaluation history: record results in a local SQLite file, read each metric over time.

``store`` holds the file (schema versioned), ``model`` the recorded value, ``report`` the pure series,
markers, flips and the text/JSON renderings, ``html`` the offline chart page.
"""

from pathlib import Path

DEFAULT_HISTORY = Path(".ragauge") / "history.sqlite"
"""Where ``eval --record`` and ``history`` look by default: relative to the working directory."""
