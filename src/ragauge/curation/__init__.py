"""Upkeep of golden sets: validate, scrub, pool and judge, import, draft and grow them.

The defaults the commands show live here, light to import (``--help`` reads them)."""

DEFAULT_DEPTH = 10
"""Documents pooled from each system for judging (``golden pool --depth``)."""
MIN_PER_TAG = 5
"""A tag with fewer questions is flagged by ``golden validate`` (``--min-per-tag``)."""
MAX_RELEVANT = 20
"""A question with more relevant documents is flagged by ``golden validate`` (``--max-relevant``; 0: no limit)."""
DRAFT_QUESTIONS = 100
"""Questions ``golden draft`` asks for (sections it samples, ``-n``)."""
DRAFT_PER_DOCUMENT = 1
"""At most this many sections of one document are sampled for drafting (``--per-document``)."""
MIN_WORDS = 25
"""A section with fewer words is too little to ask about (``--min-words``)."""
DRAFT_LANGUAGE = "en"
"""The language ``golden draft`` asks for its questions in (``--language``: a code or a name)."""
DRAFT_KEY_ENV = "RAGAUGE_DRAFT_API_KEY"
"""The environment variable holding the drafting endpoint's key (``--api-key-env``)."""
DEFAULT_FEEDBACK = ("thumbs_down", "missed")
"""The feedback of the log lines ``golden add --from-log`` keeps (``--feedback``)."""
SCRUB_FIELDS = ("query",)
"""The string fields of each line ``golden scrub`` scrubs (``--fields``)."""
PHONE_REGIONS = ("US",)
"""The regions whose phone numbers ``golden scrub`` finds (``--regions``; +CC numbers for any region)."""
NER_MODEL = "en_core_web_lg"
"""The spaCy model ``golden scrub --ner`` finds person names with (Presidio's default English model;
``en_core_web_sm`` is smaller and misses more names)."""
ASSESS_KEY_ENV = "RAGAUGE_ASSESS_API_KEY"
"""The environment variable the ``llm:`` assessor reads its key from (never a flag, never a file)."""
VERDICT_METRIC = "ndcg@10"
"""The metric whose comparison ``golden pool --for-verdict`` orders the judging for (``--metric``)."""
