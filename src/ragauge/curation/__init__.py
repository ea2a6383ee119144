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
