"""The defaults the commands show and the library applies, each from its one home; light to import
(``--help`` reads them)."""

from __future__ import annotations

from ragauge.curation import DEFAULT_DEPTH as DEFAULT_DEPTH
from ragauge.curation import DRAFT_PER_DOCUMENT as DRAFT_PER_DOCUMENT
from ragauge.curation import DRAFT_QUESTIONS as DRAFT_QUESTIONS
from ragauge.curation import MAX_RELEVANT as MAX_RELEVANT
from ragauge.curation import MIN_PER_TAG as MIN_PER_TAG
from ragauge.curation import MIN_WORDS as MIN_WORDS
from ragauge.llm import CALL_TIMEOUT as CALL_TIMEOUT
from ragauge.metrics.spec import DEFAULT_K as DEFAULT_K
from ragauge.reports import WORST as WORST
from ragauge.stats import DEFAULT_ALPHA as DEFAULT_ALPHA
from ragauge.stats import DEFAULT_CORRELATION as DEFAULT_CORRELATION
from ragauge.stats import DEFAULT_POWER as DEFAULT_POWER

__all__ = ["CALL_TIMEOUT", "DEFAULT_ALPHA", "DEFAULT_CORRELATION", "DEFAULT_DEPTH", "DEFAULT_K", "DEFAULT_POWER",
           "DRAFT_PER_DOCUMENT", "DRAFT_QUESTIONS", "MAX_RELEVANT", "MIN_PER_TAG", "MIN_WORDS", "WORST"]
