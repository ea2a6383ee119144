"""The chat-model client that curation and attribution use (an OpenAI-compatible endpoint).

The call settings every caller starts from live here, light to import (``--help`` reads them)."""

CALL_TIMEOUT = 60.0
"""Seconds per chat call."""
CALL_RETRIES = 2
"""Extra attempts after a transient failure."""
CALL_BACKOFF = 1.0
"""Seconds before the first retry, doubled each time."""
