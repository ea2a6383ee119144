"""The defaults the commands show and the library applies, each from its one home; light to import
(``--help`` reads them)."""

from __future__ import annotations

from ragauge.metrics.spec import DEFAULT_K as DEFAULT_K
from ragauge.reports import WORST as WORST
from ragauge.stats import DEFAULT_ALPHA as DEFAULT_ALPHA
from ragauge.stats import DEFAULT_CORRELATION as DEFAULT_CORRELATION
from ragauge.stats import DEFAULT_POWER as DEFAULT_POWER

__all__ = ["DEFAULT_ALPHA", "DEFAULT_CORRELATION", "DEFAULT_K", "DEFAULT_POWER", "WORST"]
