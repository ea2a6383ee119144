"""Upkeep of golden sets: validate them, and scrub personal and secret data out of them."""

from __future__ import annotations

from ragauge.curation.scrub import (
    Redaction,
    ScrubOptions,
    ScrubResult,
    scrub_records,
    scrub_text,
)
from ragauge.curation.validate import (
    Finding,
    ValidationReport,
    validate_file,
    validate_lines,
)

__all__ = [
    "Finding",
    "Redaction",
    "ScrubOptions",
    "ScrubResult",
    "ValidationReport",
    "scrub_records",
    "scrub_text",
    "validate_file",
    "validate_lines",
]
