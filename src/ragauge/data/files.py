"""Reading input files with errors a user can act on."""

from __future__ import annotations

from pathlib import Path

from ragauge.errors import InputError


def read_input(path: str | Path, what: str) -> bytes:
    """The bytes of ``path`` without a leading UTF-8 BOM; InputError naming the file (and ``what``
    it should be) when it is missing or unreadable."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{what} file not found", where=str(path), hint="check the path") from None
    except OSError as exc:
        raise InputError(f"cannot read {what} file: {exc.strerror}", where=str(path)) from None
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data
