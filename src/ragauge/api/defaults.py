"""The defaults the commands show and the library applies, each from its one home; light to import
(``--help`` reads them)."""

from __future__ import annotations

from ragauge.curation import ASSESS_KEY_ENV as ASSESS_KEY_ENV
from ragauge.curation import DEFAULT_DEPTH as DEFAULT_DEPTH
from ragauge.curation import DEFAULT_FEEDBACK as DEFAULT_FEEDBACK
from ragauge.curation import DRAFT_KEY_ENV as DRAFT_KEY_ENV
from ragauge.curation import DRAFT_LANGUAGE as DRAFT_LANGUAGE
from ragauge.curation import DRAFT_PER_DOCUMENT as DRAFT_PER_DOCUMENT
from ragauge.curation import DRAFT_QUESTIONS as DRAFT_QUESTIONS
from ragauge.curation import MAX_RELEVANT as MAX_RELEVANT
from ragauge.curation import MIN_PER_TAG as MIN_PER_TAG
from ragauge.curation import MIN_WORDS as MIN_WORDS
from ragauge.curation import NER_MODEL as NER_MODEL
from ragauge.curation import PHONE_REGIONS as PHONE_REGIONS
from ragauge.curation import SCRUB_FIELDS as SCRUB_FIELDS
from ragauge.curation import VERDICT_METRIC as VERDICT_METRIC
from ragauge.data.relevance import RELEVANCE_LEVEL as RELEVANCE_LEVEL
from ragauge.experiments import DEFAULT_FACTOR as DEFAULT_FACTOR
from ragauge.experiments import SWEEP_OUTPUT as SWEEP_OUTPUT
from ragauge.formats import BEIR_SPLIT as BEIR_SPLIT
from ragauge.formats import TOPIC_FIELD as TOPIC_FIELD
from ragauge.llm import CALL_TIMEOUT as CALL_TIMEOUT
from ragauge.metrics.spec import DEFAULT_K as DEFAULT_K
from ragauge.reports import DEFAULT_FORMAT as DEFAULT_FORMAT
from ragauge.reports import WORST as WORST
from ragauge.stats import DEFAULT_ALPHA as DEFAULT_ALPHA
from ragauge.stats import DEFAULT_CORRELATION as DEFAULT_CORRELATION
from ragauge.stats import DEFAULT_POWER as DEFAULT_POWER
from ragauge.stats import DEFAULT_SEED as DEFAULT_SEED
from ragauge.stats import SEQUENTIAL_METRIC as SEQUENTIAL_METRIC

__all__ = ["BEIR_SPLIT", "CALL_TIMEOUT", "DEFAULT_ALPHA", "DEFAULT_CORRELATION", "DEFAULT_DEPTH", "DEFAULT_FACTOR",
           "DEFAULT_FEEDBACK", "DEFAULT_FORMAT", "DEFAULT_K", "DEFAULT_POWER", "DEFAULT_SEED", "DRAFT_KEY_ENV",
           "DRAFT_LANGUAGE", "DRAFT_PER_DOCUMENT", "DRAFT_QUESTIONS", "MAX_RELEVANT", "MIN_PER_TAG", "MIN_WORDS",
           "NER_MODEL", "PHONE_REGIONS", "RELEVANCE_LEVEL", "SCRUB_FIELDS", "SEQUENTIAL_METRIC", "SWEEP_OUTPUT",
           "TOPIC_FIELD", "VERDICT_METRIC", "WORST"]
