"""The optional answer judge: ask an OpenAI-compatible chat-completions endpoint whether an answer is
supported by the documents retrieved for its question. ragauge never needs it: verdicts can come from
anywhere, and this only fills in answers that have text and no verdict.

The endpoint is any OpenAI-compatible chat-completions server, called through
``ragauge.llm.chat`` (URL forms, retries, timeouts, the key and its redaction are described
there). The key is read from the environment variable ``RAGAUGE_JUDGE_API_KEY`` (or the one named by
``api_key_env``); it is never written into a result.

The judge sees the question, the top-k documents of the run (titles and texts from the corpus, each
cut to ``max_chars``) and the answer, and is asked to reply ``SUPPORTED`` or ``UNSUPPORTED``. A reply
that starts with one of them, or names only one, is the verdict (SUPPORTED: good); any other reply
leaves the question without a verdict, listed with the reply. A question whose calls all failed has no
verdict; a 4xx answer (a wrong key, model or URL) and a reply that is not a chat completion stop at
once with one message.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragauge.core.numbers import COUNT, check_number
from ragauge.data.answers import BAD, GOOD, Answers, parse_verdict
from ragauge.errors import InputError, flag
from ragauge.evaluation.result import Evaluation
from ragauge.llm import CALL_BACKOFF, CALL_RETRIES, CALL_TIMEOUT
from ragauge.llm.chat import ChatClient, ChatEndpoint, give_up

JUDGE_KEY_ENV = "RAGAUGE_JUDGE_API_KEY"
JUDGE = "the judge"

SYSTEM_PROMPT = (
    "You check the answers of a question-answering assistant against the documents it retrieved. "
    "Reply with one word. SUPPORTED: everything the answer states is backed by the documents. "
    "UNSUPPORTED: the answer states something the documents do not back or contradict, or it does not "
    "answer the question."
)

Document = tuple[str, str, str]
"""``(doc_id, title, text)``, as ``ragauge.retrieve.corpus.read_documents`` reads them."""


@dataclass(frozen=True)
class JudgeReply:
    """What a judge said about one answer: ``verdict`` ``"good"``/``"bad"`` or None (undecided or
    failed), and a ``note`` saying why there is none (the reply, or the last error)."""

    verdict: str | None
    note: str | None = None
    failed: bool = False


Judge = Callable[[str, str, Sequence[Document]], JudgeReply | str | bool | None]
"""Any judge: ``judge(question, answer, documents)`` returns a JudgeReply, ``"good"``/``"bad"``, a bool,
or None for no verdict. ``JudgeOptions`` describes the HTTP one."""


@dataclass(frozen=True)
class JudgeOptions:
    """An OpenAI-compatible endpoint and model to judge with; ``timeout`` seconds per call, ``retries``
    extra attempts after a transient failure, ``backoff`` seconds before the first retry (doubled each
    time), ``max_chars`` of each document's text sent."""

    endpoint: str
    model: str
    api_key_env: str = JUDGE_KEY_ENV
    timeout: float = CALL_TIMEOUT
    retries: int = CALL_RETRIES
    backoff: float = CALL_BACKOFF
    max_chars: int = 4000

    def __post_init__(self) -> None:
        chat = self.chat()  # checks the endpoint, the model and the numbers it shares
        for name in ("timeout", "retries", "backoff"):
            object.__setattr__(self, name, getattr(chat, name))
        object.__setattr__(self, "max_chars", check_number(self.max_chars, "max_chars", COUNT))

    def chat(self) -> ChatEndpoint:
        """The endpoint as ``ragauge.llm.chat`` calls it."""
        return ChatEndpoint(self.endpoint, self.model, self.api_key_env, self.timeout, self.retries, self.backoff,
                            who=JUDGE, flag="--judge-endpoint", model_flag="--judge-model")

    @property
    def url(self) -> str:
        """The chat-completions URL (see ``ragauge.llm.chat.chat_url``)."""
        return self.chat().url

    def describe(self) -> dict[str, Any]:
        """What a result records of the judge: never the key, the URL with its secrets hidden."""
        return self.chat().describe()


def messages(question: str, answer: str, documents: Sequence[Document], max_chars: int) -> list[dict[str, str]]:
    """The chat messages the judge is sent."""
    shown = []
    for i, (doc_id, title, text) in enumerate(documents, start=1):
        body = text if len(text) <= max_chars else text[:max_chars] + " [...]"
        shown.append(f"[{i}] {doc_id}" + (f": {title}" if title else "") + f"\n{body}")
    context = "\n\n".join(shown) or "(no documents)"
    user = (f"Question:\n{question}\n\nDocuments:\n{context}\n\nAnswer:\n{answer}\n\n"
            "Is the answer supported by the documents? Reply SUPPORTED or UNSUPPORTED.")
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


_THINK = re.compile(r"(?is)<think>.*?(</think>|$)")
_WORD = re.compile(r"(?i)\b(unsupported|not\s+supported|supported)\b")


def read_reply(text: str) -> str | None:
    """``"good"`` for SUPPORTED, ``"bad"`` for UNSUPPORTED (or NOT SUPPORTED), None otherwise: the
    reply's first word decides; failing that, the only verdict word it holds. A ``<think>`` block is
    skipped."""
    text = _THINK.sub(" ", text)
    words = [m.group(1).lower().split()[0] for m in _WORD.finditer(text)]
    verdicts = [GOOD if w == "supported" else BAD for w in words]
    first = _WORD.match(re.sub(r"^[\s*_#>`\"'\[(]+", "", text))
    if first:
        return GOOD if first.group(1).lower() == "supported" else BAD
    return verdicts[0] if len(set(verdicts)) == 1 else None


class HttpJudge:
    """The judge of ``JudgeOptions``: one chat client, calls made one at a time."""

    def __init__(self, options: JudgeOptions) -> None:
        self.options = options
        self.client = ChatClient(options.chat())

    def __call__(self, question: str, answer: str, documents: Sequence[Document]) -> JudgeReply:
        reply = self.client.complete(messages(question, answer, documents, self.options.max_chars))
        if reply.failed:
            return JudgeReply(None, f"the judge failed: {reply.error}", failed=True)
        if reply.text is None:
            return JudgeReply(None, "the judge replied with no text")
        verdict = read_reply(reply.text)
        shown = self.client.hide(" ".join(reply.text.split()))[:200]
        return JudgeReply(verdict, None if verdict else f"the judge replied {shown!r}")

    def close(self) -> None:
        self.client.close()


@dataclass(frozen=True)
class Judged:
    """Answers with the judge's verdicts filled in (source ``judge:MODEL``), why the others it was
    asked about have none, what it did (for the result's metadata) and notes for the reader."""

    answers: Answers
    why_unjudged: dict[str, str]
    meta: dict[str, Any]
    notes: tuple[str, ...]


def judge_answers(answers: Answers, evaluation: Evaluation, judge: Judge, corpus: Mapping[str, tuple[str, str]],
                  *, k: int, name: str) -> Judged:
    """Ask ``judge`` about every answerable question of ``evaluation`` whose answer line has text and
    neither a verdict nor a score, showing it the question's top-``k`` documents found in ``corpus``
    (``doc_id -> (title, text)``). No-answer questions are not judged (nothing relevant to be supported
    by), nor questions missing from the run or failed in the retriever. InputError when every call
    failed, or when the corpus holds none of the documents to show (the wrong corpus)."""
    asked: dict[str, str] = {}
    why: dict[str, str] = {}
    counts = {"asked": 0, GOOD: 0, BAD: 0, "undecided": 0, "failed": 0}
    absent: set[str] = set()
    last_error = ""
    pending = [q for q in evaluation.queries if _needs_judge(answers, q.id)]
    for na in evaluation.no_answer.get("questions", []):
        if _needs_judge(answers, na["id"]):
            why[na["id"]] = "a no-answer question: the judge only judges answers to answerable questions"
    shown_any = False
    for q in pending:
        if q.status != "ok":
            why[q.id] = "no retrieved documents to judge against"
            continue
        top = [r.doc_id for r in q.top[:k]]
        documents = [(d, *corpus[d]) for d in top if d in corpus]
        absent.update(d for d in top if d not in corpus)
        if not documents:
            why[q.id] = "none of its top-k documents is in the corpus"
            continue
        shown_any = True
        reply = _as_reply(judge(q.query, answers.by_id[q.id].answer or "", documents))
        counts["asked"] += 1
        if reply.verdict is not None:
            asked[q.id] = reply.verdict
            counts[reply.verdict] += 1
        else:
            counts["failed" if reply.failed else "undecided"] += 1
            why[q.id] = reply.note or "the judge gave no verdict"
            if reply.failed:
                last_error = reply.note or last_error
                give_up(counts["asked"], counts["failed"], last_error, JUDGE)
    if pending and not shown_any and absent:
        raise InputError(f"the corpus holds none of the documents the run retrieved (e.g. {sorted(absent)[0]!r})",
                         hint=f"pass the {flag('corpus')} the run's retriever searched (its ids are the run's doc ids)")
    give_up(counts["asked"], counts["failed"], last_error, JUDGE, done=True)
    notes = []
    if absent:
        notes.append(f"{len(absent)} retrieved document id(s) are not in the corpus: the judge did not see them")
    if not pending:
        notes.append("the judge had nothing to judge: no answer line with text lacks a verdict or score")
    source = f"judge:{name}"
    return Judged(answers.with_verdicts({qid: (v, source) for qid, v in asked.items()}), why,
                  {"judge": {**counts, "not_in_corpus": len(absent)}}, tuple(notes))


def _needs_judge(answers: Answers, qid: str) -> bool:
    line = answers.by_id.get(qid)
    return line is not None and bool(line.answer and line.answer.strip()) and line.verdict is None \
        and line.score is None


def _as_reply(value: JudgeReply | str | bool | None) -> JudgeReply:
    if isinstance(value, JudgeReply):
        return value
    verdict = parse_verdict(value, "the judge's reply")
    return JudgeReply(verdict, None if verdict else "the judge gave no verdict")
