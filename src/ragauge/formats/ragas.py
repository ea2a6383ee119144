"""ragas test sets: questions labelled with the text of their reference contexts.

What ``Testset.to_jsonl`` / ``to_list`` and ``EvaluationDataset.to_jsonl`` write (ragas >= 0.2), as
JSON Lines or as one JSON array: each sample is flat, or nested as ``{"eval_sample": {...},
"synthesizer_name": "..."}``. Read per sample:

- ``user_input`` (required): the question. A list is a multi-turn conversation: refused.
- ``reference_contexts`` (required, non-empty): the passages the question was written from; they
  become the relevant documents (see :mod:`ragauge.formats.passages` for how a text gets an id).
  Multi-hop synthesizers prefix each with ``<1-hop>``, ``<2-hop>``, ...: the prefix is dropped.
- ``synthesizer_name``: kept as the question's tag, and the question is marked
  ``"source": "synthetic"`` (the test set generator wrote it).
- ``reference`` (the reference answer) is kept; ``retrieved_contexts``, ``response`` and the other
  fields describe one system's answer, not the labels, and are ignored (a note says so).

Question ids are ``ragas-`` + a hash of the question text (ragas samples have no id): stable across
imports; the same question twice is an error naming both lines. ragas 0.1 test sets (``question``,
``contexts``, ``ground_truth``) are refused with a hint: their ``contexts`` were retrieved or
reference contexts depending on the file, which cannot be told apart.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ragauge.core.jsonl import read_records
from ragauge.errors import InputError, where
from ragauge.formats.passages import Draft, question_id

HOP = re.compile(r"^\s*<\d+-hop>\s*")
IGNORED = ("retrieved_contexts", "response", "multi_responses")


def read_ragas(path: str | Path) -> tuple[list[Draft], list[str]]:
    """The samples of a ragas test set as drafts (passages still text), and the notes."""
    path = Path(path)
    drafts: list[Draft] = []
    first: dict[str, int] = {}
    ignored = 0
    for number, obj in read_records(path, what="ragas test set"):
        loc = where(path, number)
        sample: Any = obj.get("eval_sample", obj)
        if not isinstance(sample, dict):
            raise InputError("'eval_sample' must be an object", where=loc)
        synthesizer = obj.get("synthesizer_name", sample.get("synthesizer_name"))
        question = sample.get("user_input")
        if question is None and "question" in sample:
            raise InputError("a ragas 0.1 sample (question, contexts, ground_truth)", where=loc,
                             hint="rename 'question' to 'user_input' and, if they are the contexts the question "
                                  "was written from, 'contexts' to 'reference_contexts'")
        if isinstance(question, list):
            raise InputError("a multi-turn sample (user_input is a conversation): not a retrieval question",
                             where=loc, hint="keep single-turn samples only")
        if not isinstance(question, str) or not question.strip():
            raise InputError(f"'user_input' must be a non-empty string, got {question!r}", where=loc)
        contexts = sample.get("reference_contexts")
        if not isinstance(contexts, list) or not contexts:
            raise InputError("the sample has no 'reference_contexts': nothing says which passages answer it",
                             where=loc, hint="a ragas test set from TestsetGenerator has them; label this "
                                             "question by hand, or leave it out")
        if not all(isinstance(c, str) for c in contexts):
            raise InputError("'reference_contexts' must be a list of strings", where=loc)
        qid = question_id("ragas", question)
        if qid in first:
            raise InputError(f"the same question as line {first[qid]}", where=loc, hint="keep one of the two")
        first[qid] = number
        ignored += any(sample.get(key) is not None for key in IGNORED)
        extra: dict[str, Any] = {}
        if isinstance(sample.get("reference"), str):
            extra["reference"] = sample["reference"]
        if isinstance(synthesizer, str) and synthesizer:
            extra["source"] = "synthetic"
        tags = (synthesizer,) if isinstance(synthesizer, str) and synthesizer else ()
        drafts.append(Draft(qid, question.strip(), loc, {}, tuple(HOP.sub("", c) for c in contexts), tags, extra))
    notes = []
    if ignored:
        notes.append(f"{ignored} sample(s) carry {'/'.join(IGNORED)}: one system's answer, not labels; ignored")
    if not drafts:
        raise InputError("the ragas test set has no sample", where=str(path))
    return drafts, notes
