"""One problem a check of the golden set found: what ``golden validate`` and the pool's health report."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Finding:
    """One problem: ``severity`` (error, warning, info), a stable ``code``, a message, the line it
    is on (when it is on one), the question ids involved and how to fix it."""

    severity: str
    code: str
    message: str
    line: int | None = None
    ids: tuple[str, ...] = ()
    hint: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"severity": self.severity, "code": self.code, "message": self.message,
                               "line": self.line, "ids": list(self.ids)}
        if self.hint:
            out["hint"] = self.hint
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Finding:
        return cls(data["severity"], data["code"], data["message"], data.get("line"),
                   tuple(data.get("ids", ())), data.get("hint"))
