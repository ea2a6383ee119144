"""Draft golden questions with an LLM: sample sections of a corpus, ask an OpenAI-compatible endpoint
to write a question each section answers, and write candidates for review (``golden merge`` takes
them in). Optional: ragauge never needs an LLM, and a drafted question is labelled as such.

**Sampling** (:func:`sample_sections`, deterministic for a seed). A corpus line is a *section* of
the document its id names before ``#`` (``accounts/lockout#what-to-do`` belongs to
``accounts/lockout``; an id without ``#`` is a document of its own). Sections whose body has fewer
than ``min_words`` words are skipped: too little to ask about. The documents (sorted by id) are
shuffled with ``random.Random(seed)``, and so is each document's list of sections; then rounds take
one section from each document in turn, until ``n`` are taken or every document has given
``per_document``. So ``n`` questions spread over as many documents as possible, and a long document
counts no more than a short one. The same corpus (in any line order) and seed give the same sample.

**Each draft** is a candidate line: a ``cand-`` id from its text, the question, ``"relevant":
{SECTION_ID: 1}`` (the section it was drafted from), ``"source": "synthetic"``, the date ``added``,
``drafted_by`` (``{"model", "host"}`` for an endpoint: its host and port, never its path, query or
key; ``{"function": name}`` for a Python drafter), ``"status": "needs-review"`` and ``leakage`` (see
:mod:`ragauge.curation.leakage`). ``golden merge`` keeps ``source``, ``added`` and ``drafted_by`` and
strips ``status`` and ``leakage``; set ``"status": "rejected"`` on a draft to drop it. Drafts that
duplicate (or nearly: ``ragauge.curation.similarity``) a question of ``against`` or an earlier draft
are dropped and counted.

**The reply** is the model's text with any ``<think>`` block removed; the question is its first line
that is not a lead-in ("Here is a question:"), without a ``Question:`` label, list marker, quotes or
Markdown emphasis. A reply whose line does not end in a question mark (``?``, ``？`` or ``؟``: a
refusal, an answer, a summary), is over ``MAX_QUESTION_CHARS`` characters or under three words, or
holds no line at all, is *unusable*: the section is listed with the reply and gets no draft.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ragauge.core.numbers import COUNT, WHOLE, check_number
from ragauge.curation import DRAFT_KEY_ENV as DRAFT_KEY_ENV
from ragauge.curation import DRAFT_LANGUAGE, DRAFT_PER_DOCUMENT, DRAFT_QUESTIONS
from ragauge.curation import MIN_WORDS as MIN_WORDS
from ragauge.curation.grow import NEEDS_REVIEW, candidate_id, read_questions
from ragauge.curation.leakage import LEAK_RUN, LEAK_SHARE, LEAK_SHORT_RUN, leakage, words
from ragauge.curation.similarity import near_duplicate_pairs, normalise
from ragauge.data.golden import SYNTHETIC
from ragauge.data.ids import section_parent
from ragauge.errors import InputError, flag
from ragauge.llm import CALL_BACKOFF, CALL_RETRIES, CALL_TIMEOUT
from ragauge.llm.chat import ChatClient, ChatEndpoint, give_up
from ragauge.stats import DEFAULT_SEED

DRAFTER = "the drafting model"

MAX_QUESTION_CHARS = 300
QUESTION_MARKS = ("?", "？", "؟")
LANGUAGES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian", "pt": "Portuguese",
             "nl": "Dutch", "sv": "Swedish", "da": "Danish", "no": "Norwegian", "fi": "Finnish", "pl": "Polish",
             "cs": "Czech", "ja": "Japanese", "zh": "Chinese", "ko": "Korean"}

SYSTEM_PROMPT = (
    "You write test questions for a search system. You are shown one section of a document. Write one "
    "question that a real user of the system might type and that this section answers. Ask it the way "
    "users ask: short, in their own words, without copying phrases from the text, and without mentioning "
    "'the section' or 'the document'. Reply with the question only."
)

Drafter = Callable[[str, str], "str | None"]
"""Any drafter: ``drafter(title, text)`` returns a question about the section, or None."""


@dataclass(frozen=True)
class DraftOptions:
    """An OpenAI-compatible endpoint and model to draft with; the key is read from ``api_key_env``
    (default ``RAGAUGE_DRAFT_API_KEY``). ``timeout`` seconds per call, ``retries`` extra attempts after
    a transient failure, ``backoff`` seconds before the first retry, ``max_chars`` of each section's
    text sent."""

    endpoint: str
    model: str
    api_key_env: str = DRAFT_KEY_ENV
    timeout: float = CALL_TIMEOUT
    retries: int = CALL_RETRIES
    backoff: float = CALL_BACKOFF
    max_chars: int = 6000

    def __post_init__(self) -> None:
        chat = self.chat()  # checks the endpoint, the model, the variable's name and the numbers
        for name in ("timeout", "retries", "backoff"):
            object.__setattr__(self, name, getattr(chat, name))
        object.__setattr__(self, "max_chars", check_number(self.max_chars, "max_chars", COUNT))

    def chat(self) -> ChatEndpoint:
        return ChatEndpoint(self.endpoint, self.model, self.api_key_env, self.timeout, self.retries, self.backoff,
                            who=DRAFTER, flag="--endpoint", model_flag="--model")

    def describe(self) -> dict[str, str]:
        """What each draft records: the model and the endpoint's host (and port); nothing else of the URL."""
        parts = urlsplit(self.chat().url)
        host = parts.hostname or "?"
        try:
            port = parts.port
        except ValueError:
            port = None
        return {"model": self.model, "host": f"{host}:{port}" if port else host}


@dataclass(frozen=True)
class Section:
    """A corpus line drafted from: its id (the label), the document it belongs to, title and body."""

    id: str
    document: str
    title: str
    text: str


@dataclass
class DraftReport:
    """What ``draft_golden`` did: the corpus, the sample, the calls and what became of each reply."""

    sections: int = 0
    documents: int = 0
    too_short: int = 0
    sampled: int = 0
    asked: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)
    """``(section id, the last error)`` for each section whose calls all failed (redacted)."""
    unusable: list[tuple[str, str]] = field(default_factory=list)
    """``(section id, why)`` for each reply that gave no question (the reply, cut and redacted)."""
    duplicates_golden: int = 0
    duplicates_drafts: int = 0
    drafted: int = 0
    leaked: list[str] = field(default_factory=list)
    """Ids of the drafts flagged as copied from their section."""
    shortfall: int = 0
    """How many fewer sections than asked for the corpus could give (too few long enough, or
    ``per_document`` too low)."""

    @property
    def failed(self) -> int:
        return len(self.failures)

    def to_dict(self) -> dict[str, Any]:
        return {"sections": self.sections, "documents": self.documents, "too_short": self.too_short,
                "sampled": self.sampled, "asked": self.asked,
                "failed": [{"section": s, "error": e} for s, e in self.failures],
                "unusable": [{"section": s, "why": w} for s, w in self.unusable],
                "duplicates": {"golden": self.duplicates_golden, "drafts": self.duplicates_drafts},
                "drafted": self.drafted, "leaked": list(self.leaked), "shortfall": self.shortfall}

    def lines(self) -> list[str]:
        """The report for a terminal; ids through :func:`ragauge.core.escape.terminal`."""
        from ragauge.core.escape import terminal as t
        from ragauge.core.notes import LOUD

        out = [f"corpus: {self.sections} section(s) in {self.documents} document(s); {self.too_short} too short "
               "to ask about",
               f"sampled {self.sampled} section(s)" + (f" ({self.shortfall} fewer than asked: raise "
                                                       f"{flag('per_document')} or lower {flag('min_words')})"
                                                       if self.shortfall else ""),
               f"asked {self.asked}: {self.drafted} draft(s), {len(self.unusable)} unusable repl(y/ies), "
               f"{self.failed} failed call(s)"]
        for section, why in self.unusable[:5]:
            out.append(f"  unusable: {t(section)}: {t(why)}")
        for section, error in self.failures[:3]:
            out.append(f"  failed: {t(section)}: {t(error)}")
        if self.duplicates_golden or self.duplicates_drafts:
            out.append(f"dropped {self.duplicates_golden} duplicate(s) of the golden set, "
                       f"{self.duplicates_drafts} of an earlier draft")
        if self.leaked:
            more = f" (+{len(self.leaked) - 5} more)" if len(self.leaked) > 5 else ""
            out.append(f"{LOUD}{len(self.leaked)} draft(s) copy their section ({LEAK_RUN}+ words in a row, or "
                       f"{LEAK_SHORT_RUN}+ making up {LEAK_SHARE:.0%} of the question): rewrite or reject them, a "
                       f"copied question is found by its words alone: {t(', '.join(self.leaked[:5]))}{more}")
        return out


@dataclass(frozen=True)
class DraftResult:
    """The candidate lines (``drafts``, ready for ``golden merge`` after review) and the report."""

    drafts: tuple[dict[str, Any], ...]
    report: DraftReport


def sections_of(docs: Sequence[tuple[str, str, str]]) -> list[Section]:
    """``(id, title, text)`` corpus lines as sections of the documents their ids name."""
    return [Section(i, section_parent(i) or i, title, text) for i, title, text in docs]


def sample_sections(sections: Sequence[Section], n: int, *, seed: int = DEFAULT_SEED,
                    per_document: int = DRAFT_PER_DOCUMENT,
                    min_words: int = MIN_WORDS) -> tuple[list[Section], int]:
    """Up to ``n`` sections of at least ``min_words`` words, stratified across documents (see the
    module docstring), and how many were too short."""
    n = int(check_number(n, f"{flag('n', cli='-n')} (questions to draft)", COUNT))
    per_document = int(check_number(per_document, flag("per_document"), COUNT))
    min_words = int(check_number(min_words, flag("min_words"), WHOLE))
    seed = int(check_number(seed, flag("seed"), WHOLE))
    by_doc: dict[str, list[Section]] = {}
    too_short = 0
    for s in sections:
        if len(words(s.text)) < min_words:
            too_short += 1
        else:
            by_doc.setdefault(s.document, []).append(s)
    rng = random.Random(seed)
    documents = sorted(by_doc)
    rng.shuffle(documents)
    queues = []
    for doc in documents:
        members = sorted(by_doc[doc], key=lambda s: s.id)
        rng.shuffle(members)
        queues.append(members)
    taken: list[Section] = []
    for round_ in range(per_document):
        for members in queues:
            if len(taken) == n:
                return taken, too_short
            if round_ < len(members):
                taken.append(members[round_])
    return taken, too_short


def language_name(language: str) -> str:
    """``"en"`` -> ``"English"`` (a few common ISO 639-1 codes); any other value as given."""
    text = (language or "").strip()
    if not text:
        raise InputError(f"{flag('language')} is empty",
                         hint=f"e.g. {flag('language', 'en')}, or a name: {flag('language', 'Portuguese')}")
    return LANGUAGES.get(text.lower(), text)


def messages(section: Section, language: str, max_chars: int) -> list[dict[str, str]]:
    """The chat messages sent for one section."""
    body = section.text if len(section.text) <= max_chars else section.text[:max_chars] + " [...]"
    head = f"Document: {section.title}\n\n" if section.title else ""
    user = f"{head}Section:\n{body}\n\nWrite the question in {language_name(language)}."
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


_THINK = re.compile(r"(?is)<think>.*?(</think>|$)")
_LABEL = re.compile(r"(?i)^(?:[-*•>#]+\s*|\d+[.)]\s*|(?:\*\*|__)?(?:question|q)\s*\d*\s*[:.]\s*(?:\*\*|__)?\s*)+")
_QUOTES = "\"'`“”‘’«»*_"


def read_question(text: str | None) -> str | None:
    """The question in a reply (see the module docstring), or None when it holds none usable."""
    if not text:
        return None
    for raw in _THINK.sub("\n", text).splitlines():
        line = _LABEL.sub("", raw.strip()).strip().strip(_QUOTES).strip()
        if not line or (line.endswith(":") and not line.endswith("?")):
            continue  # a lead-in such as "Here is a question a user might ask:"
        if len(line) > MAX_QUESTION_CHARS or len(words(line)) < 3 or not line.endswith(QUESTION_MARKS):
            return None
        return line
    return None


def draft_golden(
    corpus: str | Path | Sequence[tuple[str, str, str]],
    drafter: DraftOptions | Drafter,
    output: str | Path | None = None,
    *,
    n: int = DRAFT_QUESTIONS,
    seed: int = DEFAULT_SEED,
    per_document: int = DRAFT_PER_DOCUMENT,
    language: str = DRAFT_LANGUAGE,
    min_words: int = MIN_WORDS,
    against: Sequence[str | Path] = (),
    today: date | None = None,
) -> DraftResult:
    """Draft up to ``n`` questions for sections sampled from ``corpus`` (a corpus file or folder, as
    ``ragauge.formats.corpus.read_documents`` reads it, or ``(id, title, text)`` tuples), asking
    ``drafter``: ``DraftOptions`` for an OpenAI-compatible endpoint (each request carries ``seed``
    and temperature 0), or a function ``drafter(title, text)``. Drafts that duplicate a question of
    the golden sets or candidate files in ``against`` are dropped. With ``output``, the candidates
    are written there as JSONL (atomically). InputError before any call for bad options or an
    empty sample; InputError when the endpoint refuses (4xx), does not speak chat completions, or
    every call (or the first three) failed.
    """
    from ragauge.formats.corpus import read_documents

    language_name(language)
    docs = read_documents(corpus) if isinstance(corpus, (str, Path)) else list(corpus)
    sections = sections_of(docs)
    sample, too_short = sample_sections(sections, n, seed=seed, per_document=per_document, min_words=min_words)
    report = DraftReport(len(sections), len({s.document for s in sections}), too_short, len(sample),
                         shortfall=n - len(sample))
    if not sample:
        raise InputError(f"no section of the corpus has {min_words} words or more to ask about",
                         hint=f"lower {flag('min_words')}, or pass the corpus of sections your retriever indexes")
    existing = [q for path in against for q in read_questions(path)]
    questions = _ask(sample, drafter, language, seed, report)
    drafts = _drafts(questions, existing, drafter, today or date.today(), report)
    if output is not None:
        from ragauge.core.files import atomic_write
        from ragauge.core.jsonl import to_jsonl

        atomic_write(output, to_jsonl(drafts), what="drafts")
    return DraftResult(tuple(drafts), report)


def _ask(sample: Sequence[Section], drafter: DraftOptions | Drafter, language: str, seed: int,
         report: DraftReport) -> list[tuple[Section, str]]:
    """``(section, question)`` for each sampled section the drafter wrote a usable question for."""
    out: list[tuple[Section, str]] = []
    if not isinstance(drafter, DraftOptions):
        for s in sample:
            report.asked += 1
            _keep(s, drafter(s.title, s.text), out, report, None)
        return out
    last_error = ""
    with ChatClient(drafter.chat()) as client:
        for s in sample:
            reply = client.complete(messages(s, language, drafter.max_chars), seed=seed)
            report.asked += 1
            if reply.failed:
                last_error = reply.error or last_error
                report.failures.append((s.id, last_error))
                give_up(report.asked, report.failed, last_error, DRAFTER)
                continue
            _keep(s, reply.text, out, report, client.hide)
    give_up(report.asked, report.failed, last_error, DRAFTER, done=True)
    return out


def _keep(section: Section, reply: str | None, out: list[tuple[Section, str]], report: DraftReport,
          hide: Callable[[str], str] | None) -> None:
    question = read_question(reply if isinstance(reply, str) else None)
    if question is not None:
        out.append((section, question))
        return
    shown = " ".join((reply or "").split())[:200] if isinstance(reply, str) else ""
    shown = hide(shown) if hide else shown
    report.unusable.append((section.id, f"replied {shown!r}" if shown else "replied with no text"))


def _drafts(questions: Sequence[tuple[Section, str]], existing: Sequence[tuple[str, str, str]],
            drafter: DraftOptions | Drafter, today: date, report: DraftReport) -> list[dict[str, Any]]:
    """Candidate lines for the questions, duplicates of ``existing`` and of earlier drafts dropped."""
    texts = [q for _, q, _ in existing] + [q for _, q in questions]
    base = len(existing)
    old = {normalise(q) for _, q, _ in existing}
    duplicate_of: dict[int, int] = {}
    for i, j, _ in near_duplicate_pairs(texts):
        if j >= base and (i < base or i not in duplicate_of):
            duplicate_of.setdefault(j, i)
    by = drafter.describe() if isinstance(drafter, DraftOptions) else {
        "function": getattr(drafter, "__name__", type(drafter).__name__)}
    taken = {qid for qid, _, _ in existing}
    drafts: list[dict[str, Any]] = []
    for offset, (section, question) in enumerate(questions):
        index = base + offset
        if normalise(question) in old or duplicate_of.get(index, base) < base:
            report.duplicates_golden += 1
            continue
        if index in duplicate_of:
            report.duplicates_drafts += 1
            continue
        qid = candidate_id(question, taken)
        taken.add(qid)
        leak = leakage(question, section.title, section.text)
        if leak.flagged:
            report.leaked.append(qid)
        drafts.append({"id": qid, "query": question, "relevant": {section.id: 1}, "source": SYNTHETIC,
                       "added": today.isoformat(), "drafted_by": dict(by), "status": NEEDS_REVIEW,
                       "leakage": leak.to_dict()})
    report.drafted = len(drafts)
    return drafts
