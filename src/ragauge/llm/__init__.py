"""The chat-model client that curation and attribution use (an OpenAI-compatible endpoint)."""
