"""A judging session: one annotator grading a pool's candidates, every action appended to a log at once.

The session is the page's model (:mod:`ragauge.curation.judge_app` serves it). It knows the pool, the
texts of its candidates, and the annotator's state replayed from the judgements log, so a new
session resumes where the last one stopped: candidates already graded or skipped show as such, and
the first candidate left is where it starts. Each action is on disk (appended and flushed, see
:mod:`ragauge.formats.judgements`) before the session's state changes and before the page hears
that it was saved.

Order: questions in pool order, candidates in pool order (best rank first). "Next" is the first
candidate after the current one, in that order and wrapping around, that is neither graded nor
skipped; when none is left, the first skipped one; when none is left either, judging is done.

A pool made for a comparison's verdict (``golden pool --for-verdict``) is judged in the order that
decides the verdict soonest instead (:mod:`ragauge.curation.verdict`), recomputed after every action
from the pool's labels and this annotator's grades: "next" is the open candidate of highest priority,
then the skipped ones in that order. The progress then carries the verdict's status, so the page can
say when it is certain. (Adjudicating disagreements keeps pool order.)

Pace and ETA: the median time between the annotator's consecutive actions, counting only gaps of
at most :data:`BREAK_SECONDS` (a longer gap is a break), times the candidates still to judge; none
before :data:`MIN_PACE` such gaps, and none when nothing is left.
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragauge.core.numbers import GRADE, check_number
from ragauge.data.judgements import AnnotatorState, Item, Judgement, now_utc, parse_time, replay
from ragauge.data.pool import Pool
from ragauge.errors import InputError, flag

BREAK_SECONDS = 300.0
MIN_PACE = 3
Position = tuple[int, int]
"""(question index, candidate index) in the pool."""


def default_annotator() -> str:
    """The login name, or ``"annotator"`` when there is none."""
    import getpass

    try:
        return getpass.getuser() or "annotator"
    except (OSError, KeyError, ImportError):
        return "annotator"


def load_documents(corpus: str | Path | Mapping[str, Any], wanted: Iterable[str]) -> dict[str, tuple[str, str]]:
    """``{doc_id: (title, text)}`` for the ``wanted`` ids found in ``corpus``: a corpus file or folder
    (read one document at a time, keeping only those wanted), or a mapping of id to text or to a
    ``(title, text)`` pair. InputError when a wanted id is in the corpus twice."""
    wanted = set(wanted)
    out: dict[str, tuple[str, str]] = {}
    if isinstance(corpus, Mapping):
        for doc_id, value in corpus.items():
            if doc_id in wanted:
                out[str(doc_id)] = ("", value) if isinstance(value, str) else (str(value[0]), str(value[1]))
        return out
    from ragauge.formats.corpus import iter_documents

    for doc_id, title, text in iter_documents(corpus):
        if doc_id in wanted:
            if doc_id in out:
                raise InputError(f"duplicate document id {doc_id!r} in the corpus", where=str(corpus))
            out[doc_id] = (title, text)
    return out


@dataclass(frozen=True)
class Progress:
    """Counts over the pool's candidates for one annotator; ``pace`` in seconds per action and
    ``eta`` in seconds (None until there is a pace)."""

    total: int
    graded: int
    skipped: int
    questions: int
    questions_done: int
    pace: float | None
    eta: float | None
    verdict: dict[str, Any] | None = None
    """In a pool made for a verdict: its status (``VerdictStatus.to_dict``), with the verdicts as -1, 0, 1."""

    @property
    def left(self) -> int:
        return self.total - self.graded - self.skipped

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"total": self.total, "graded": self.graded, "skipped": self.skipped, "left": self.left,
               "questions": self.questions, "questions_done": self.questions_done, "pace": self.pace,
               "eta": self.eta}
        if self.verdict is not None:
            out["verdict"] = self.verdict
        return out


def pace(times: Iterable[str]) -> float | None:
    """Median seconds between consecutive actions, breaks left out (module docstring)."""
    stamps = sorted(parse_time(t) for t in times)
    gaps = [(b - a).total_seconds() for a, b in zip(stamps, stamps[1:])]
    gaps = [g for g in gaps if 0 < g <= BREAK_SECONDS]
    return statistics.median(gaps) if len(gaps) >= MIN_PACE else None


class JudgeSession:
    """One annotator judging ``pool``; ``documents`` holds the candidates' ``(title, text)``; each
    action goes to the judgements log at ``log`` (created on the first action). ``records`` are
    the log's records so far (every annotator's; read them with
    :func:`ragauge.formats.judgements.open_log`). Thread-safe: the page's requests may overlap."""

    def __init__(self, pool: Pool, documents: Mapping[str, tuple[str, str]], log: str | Path, annotator: str,
                 records: Iterable[Judgement] = (), *, clock: Callable[[], str] = now_utc,
                 notes: Iterable[str] = (), only: Mapping[Item, Mapping[str, float]] | None = None) -> None:
        if not annotator or not isinstance(annotator, str):
            raise InputError("the annotator needs a name", hint=flag("annotator", "NAME"))
        self.pool = pool
        self.documents = documents
        self.log = Path(log)
        self.annotator = annotator
        self.clock = clock
        self.index: dict[Item, Position] = {(q.id, c.doc_id): (qi, ci) for qi, q in enumerate(pool.questions)
                                            for ci, c in enumerate(q.candidates)}
        self.only = only
        """In adjudication mode, the items offered and the other annotators' grades of each."""
        self.order: list[Position] = [pos for item, pos in self.index.items() if only is None or item in only]
        records = list(records)
        self.state: AnnotatorState = replay(records).get(annotator) or AnnotatorState(annotator)
        self.notes = list(notes)
        foreign = sum(1 for r in records if r.annotator == annotator and r.item not in self.index)
        if foreign:
            self.notes.append(f"{foreign} record(s) of {annotator} in the log are for questions or documents this "
                              "pool does not hold (another pool?); they are kept and merged on --finish")
        missing = sum(1 for q in pool.questions for c in q.candidates if c.doc_id not in documents)
        if missing:
            self.notes.append(f"{missing} of {len(self.order)} candidates are not in the corpus: the page shows "
                              "their id only (is it the corpus the pooled systems index, with the same ids?)")
        self.verdict = None
        """The verdict a pool made with ``--for-verdict`` decides, as this annotator judges (None: pool order)."""
        if pool.verdict is not None and only is None:
            from ragauge.curation.verdict import VerdictState

            grades = self.state.grades()
            self.verdict = VerdictState(pool, {item: g for item, g in grades.items() if item in self.index})
        self.lock = threading.RLock()
        """Held while the state changes; hold it to read a consistent state from another thread."""

    # --- reading ----------------------------------------------------------------------------------

    def item(self, pos: Position) -> tuple[str, str]:
        qi, ci = pos
        q = self.pool.questions[qi]
        return q.id, q.candidates[ci].doc_id

    def check(self, qi: Any, ci: Any) -> Position:
        """``(qi, ci)`` when they name a candidate of the pool this session offers; InputError otherwise."""
        if (isinstance(qi, bool) or isinstance(ci, bool) or not isinstance(qi, int) or not isinstance(ci, int)
                or not 0 <= qi < len(self.pool.questions) or not 0 <= ci < len(self.pool.questions[qi].candidates)
                or not self.offers((qi, ci))):
            raise InputError(f"no candidate {ci!r} in question {qi!r}")
        return qi, ci

    def offers(self, pos: Position) -> bool:
        return self.only is None or self.item(pos) in self.only

    def status(self, pos: Position) -> dict[str, Any]:
        """``{"grade": grade or None, "skipped": bool}`` of a candidate for this annotator."""
        record = self.state.current(self.item(pos))
        return {"grade": None if record is None else record.grade,
                "skipped": record is not None and record.action == "skip"}

    def next_position(self, after: Position | None = None) -> Position | None:
        """The next candidate to judge after ``after`` (from the start when None; in a pool made for a
        verdict, ``after`` does not matter); module docstring."""
        if not self.order:
            return None
        if self.verdict is not None:
            ranked = [self.index[item] for item, _ in self.verdict.order()]
            for pos in ranked:
                if self.state.current(self.item(pos)) is None:
                    return pos
            return ranked[0] if ranked else None  # only skipped ones are left: the first of them
        start = 0 if after is None else self.order.index(after) + 1
        ring = self.order[start:] + self.order[:start]
        for wanted in ("open", "skipped"):
            for pos in ring:
                record = self.state.current(self.item(pos))
                if (record is None) if wanted == "open" else (record is not None and record.action == "skip"):
                    return pos
        return None

    def sizes(self) -> list[int]:
        """How many candidates the session offers in each question."""
        out = [0] * len(self.pool.questions)
        for qi, _ in self.order:
            out[qi] += 1
        return out

    def progress(self) -> Progress:
        graded = skipped = 0
        left = [0] * len(self.pool.questions)
        for pos in self.order:
            record = self.state.current(self.item(pos))
            if record is None:
                left[pos[0]] += 1
            elif record.action == "skip":
                skipped += 1
            else:
                graded += 1
        questions = len(self.pool.questions) if self.only is None else sum(n > 0 for n in self.sizes())
        done = questions - sum(n > 0 for n in left)
        per = pace(self.state.times)
        todo = len(self.order) - graded - skipped
        verdict = None
        if self.verdict is not None:
            from ragauge.curation.verdict import VERDICTS

            status = self.verdict.status()
            verdict = {**status.to_dict(), **{k: getattr(status, k) for k in ("now", "low", "high")},
                       "words": {str(code): word for code, word in VERDICTS.items()}}
        return Progress(len(self.order), graded, skipped, questions, done, per,
                        None if per is None or todo == 0 else per * todo, verdict)

    def question(self, qi: int) -> dict[str, Any]:
        """The page's view of question ``qi`` (see :func:`ragauge.curation.judge_view.question_view`)."""
        from ragauge.curation.judge_view import question_view

        q = self.pool.questions[qi]
        states: list[dict[str, Any] | None] = []
        for ci, c in enumerate(q.candidates):
            if not self.offers((qi, ci)):
                states.append(None)
            else:
                others = {} if self.only is None else dict(self.only[(q.id, c.doc_id)])
                states.append({**self.status((qi, ci)), "others": others})
        return question_view(q, self.documents, states)

    # --- acting -----------------------------------------------------------------------------------

    def _append(self, pos: Position, action: str, grade: float | None = None) -> Judgement:
        from ragauge.formats.judgements import append_judgement

        question, doc = self.item(pos)
        record = Judgement(question, doc, action, self.annotator, self.clock(), grade)
        append_judgement(self.log, record)  # on disk first: a failed write changes nothing
        self.state.apply(record)
        self._sync(record.item)
        return record

    def _sync(self, item: Item) -> None:
        """Tell the verdict (if any) this annotator's judgement of ``item`` now."""
        if self.verdict is not None and item in self.index:
            record = self.state.current(item)
            self.verdict.set(item, record.grade if record is not None and record.action == "grade" else None)

    def grade(self, qi: Any, ci: Any, grade: Any) -> Judgement:
        """Grade a candidate (any grade a golden set can hold; the page sends 0, 1 or 2)."""
        value = check_number(grade, "grade", GRADE)
        with self.lock:
            return self._append(self.check(qi, ci), "grade", int(value) if value.is_integer() else value)

    def skip(self, qi: Any, ci: Any) -> Judgement:
        """Pass over a candidate: it stays unjudged, and "next" comes back to it when nothing else is left."""
        with self.lock:
            return self._append(self.check(qi, ci), "skip")

    def undo(self) -> Judgement | None:
        """Take back this annotator's last grade or skip still in effect (made in this session or an
        earlier one) by appending an undo record; the record taken back, None when there is none."""
        with self.lock:
            last = self.state.last()
            if last is None:
                return None
            from ragauge.formats.judgements import append_judgement

            record = Judgement(last.question, last.doc_id, "undo", self.annotator, self.clock())
            append_judgement(self.log, record)
            self.state.apply(record)
            self._sync(record.item)
            return last


# --- the one call --------------------------------------------------------------------------------------

def open_session(pool: Pool | str | Path, corpus: str | Path | Mapping[str, Any], *, log: str | Path | None = None,
                 annotator: str | None = None, disagreements: bool = False) -> JudgeSession:
    """A session on ``pool`` (a Pool or a pool file) with the texts of ``corpus`` (see
    :func:`load_documents`), resuming from the judgements ``log`` (default: beside the pool file,
    ``POOL.judgements.jsonl``; its unfinished last record, if any, cut off) for ``annotator``
    (default: the login name). With ``disagreements``, an adjudication session: only the items
    that the log's other annotators graded differently are offered, each with their grades."""
    from ragauge.formats.judgements import default_log_path, open_log
    from ragauge.formats.pool import read_pool

    pool = pool if isinstance(pool, Pool) else read_pool(pool)
    if not pool.candidates:
        raise InputError("the pool has no candidate to judge", where=pool.source,
                         hint="every pooled document is judged already: pool deeper (--depth) or more systems")
    if log is None:
        if pool.source is None:
            raise InputError("name the judgements log (log=...)", hint="a pool read from a file has a default log")
        log = default_log_path(pool.source)
    read = open_log(log)
    wanted = {d.doc_id for q in pool.questions for d in (*q.candidates, *q.judged)}
    documents = load_documents(corpus, wanted)
    annotator = annotator or default_annotator()
    only = None
    if disagreements:
        from ragauge.curation.agreement import item_grades

        others = {name: state for name, state in replay(read.records).items() if name != annotator}
        pooled = {(q.id, c.doc_id) for q in pool.questions for c in q.candidates}
        only = {item: grades for item, grades in item_grades(others).items()
                if len(set(grades.values())) > 1 and item in pooled}
        if not only:
            raise InputError("no disagreement to adjudicate: the other annotators agree on every candidate they "
                             "both graded", where=str(log))
    return JudgeSession(pool, documents, log, annotator, read.records, notes=read.notes, only=only)


def judge_pool(pool: Pool | str | Path, corpus: str | Path | Mapping[str, Any], *, golden: str | Path | None = None,
               output: str | Path | None = None, annotator: str | None = None, log: str | Path | None = None,
               adjudicator: str | None = None, disagreements: bool = False, open_browser: bool = True,
               announce: Callable[[str], None] | None = None) -> JudgeSession:
    """Serve the judging page for ``pool`` on 127.0.0.1 until interrupted (Ctrl-C), and return the
    session. ``announce`` gets the lines to show (the URL with its access token first; default: the
    standard error); the URL is opened in the browser unless ``open_browser`` is false. The page's
    Finish button runs :func:`ragauge.curation.judge_finish.merge_judgements` with ``golden``,
    ``output`` and ``adjudicator``. See :func:`open_session` for the other arguments
    (``disagreements``: offer only the items the other annotators graded differently)."""
    import functools
    import sys
    import webbrowser

    from ragauge.core.escape import terminal as t
    from ragauge.curation.judge_app import JudgeServer, create_app, new_token
    from ragauge.curation.judge_finish import merge_judgements

    session = open_session(pool, corpus, log=log, annotator=annotator, disagreements=disagreements)
    if disagreements and adjudicator is None:
        adjudicator = session.annotator  # the Finish button of an adjudication session settles with its grades
    token = new_token()
    finish = functools.partial(merge_judgements, session.pool, session.log, golden=golden, output=output,
                               adjudicator=adjudicator)
    server = JudgeServer(create_app(session, token, finish=finish), token)
    say = announce or (lambda line: print(line, file=sys.stderr, flush=True))
    progress = session.progress()
    say(f"judging page for {t(session.annotator)}: {server.url}")
    say(f"  {progress.graded + progress.skipped} of {progress.total} candidates done; judgements go to "
        f"{t(session.log)}; Ctrl-C stops (nothing is lost)")
    for note in session.notes:
        say(f"NOTE: {t(note)}")
    if open_browser:
        webbrowser.open(server.url)
    server.run()
    progress = session.progress()
    say(f"stopped: {progress.graded} graded, {progress.skipped} skipped, {progress.left} left of {progress.total}; "
        f"every judgement is in {t(session.log)}")
    return session
