"""DeepEval goldens, as ``EvaluationDataset.save_as`` writes them: a JSON array (``"json"``) or
JSON Lines (``"jsonl"``) of single-turn goldens::

    {"input": "...", "expected_output": "...", "context": ["passage", ...], "source_file": "docs/a.md",
     "retrieval_context": null, "actual_output": null, "name": null, "comments": null,
     "additional_metadata": null, "custom_column_key_values": null, "tools_called": null, "expected_tools": null}

- ``input`` (required): the question. Multi-turn goldens (``scenario``, ``turns``) are refused.
- ``context``: the ideal passages, a list of strings (JSONL files written by DeepEval join the list
  with ``|`` into one string: it is split on ``|`` again, as DeepEval reads it back, so a passage
  holding a ``|`` cannot be told apart). By default they become the relevant documents (see
  :mod:`ragauge.formats.passages` for how a text gets an id).
- ``source_file``: the document a synthesized golden came from. With ``relevant="source-file"`` it is
  the relevant document's id instead, as written (a path); otherwise it is kept as a field.
- ``expected_output``, ``name``, ``comments``, ``additional_metadata``, ``custom_column_key_values``
  are kept; ``retrieval_context`` and ``actual_output`` are one system's answer, not labels: ignored.

Question ids are ``deepeval-`` + a hash of the question text; the same question twice is an error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragauge.core.jsonl import read_records
from ragauge.errors import InputError, flag, where
from ragauge.formats.passages import Draft, question_id

DELIMITER = "|"
RELEVANT_FROM = ("context", "source-file")
KEPT = ("expected_output", "source_file", "name", "comments", "additional_metadata", "custom_column_key_values")


def _contexts(value: Any, loc: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(value.split(DELIMITER)) if value else ()
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise InputError(f"'context' must be a list of strings, got {type(value).__name__}", where=loc)


def read_deepeval(path: str | Path, relevant: str = "context") -> tuple[list[Draft], list[str]]:
    """The goldens of a DeepEval dataset file as drafts, and the notes. ``relevant`` says what labels
    a golden: its ``context`` passages (texts) or its ``source_file`` (an id)."""
    if relevant not in RELEVANT_FROM:
        raise InputError(f"relevant must be one of {', '.join(RELEVANT_FROM)}, got {relevant!r}")
    path = Path(path)
    drafts: list[Draft] = []
    first: dict[str, int] = {}
    ignored = 0
    for number, obj in read_records(path, what="DeepEval dataset"):
        loc = where(path, number)
        if obj.get("scenario") is not None or obj.get("turns") is not None:
            raise InputError("a multi-turn (conversational) golden: not a retrieval question", where=loc)
        question = obj.get("input")
        if not isinstance(question, str) or not question.strip():
            raise InputError(f"'input' must be a non-empty string, got {question!r}", where=loc)
        qid = question_id("deepeval", question)
        if qid in first:
            raise InputError(f"the same question as line {first[qid]}", where=loc, hint="keep one of the two")
        first[qid] = number
        extra = {k: obj[k] for k in KEPT if obj.get(k) is not None}
        extra["source"] = "deepeval"
        ignored += obj.get("retrieval_context") is not None
        if relevant == "source-file":
            source = obj.get("source_file")
            if not isinstance(source, str) or not source:
                raise InputError("the golden has no 'source_file' to label it with", where=loc,
                                 hint="label by its context instead (the default)")
            drafts.append(Draft(qid, question.strip(), loc, {source: 1}, (), (), extra))
            continue
        contexts = _contexts(obj.get("context"), loc)
        if not contexts:
            raise InputError("the golden has no 'context': nothing says which passages answer it", where=loc,
                             hint="goldens synthesized from documents have one; or label by 'source_file' "
                                  f"({flag('relevant', 'source-file')})")
        drafts.append(Draft(qid, question.strip(), loc, {}, contexts, (), extra))
    if not drafts:
        raise InputError("the DeepEval dataset has no golden", where=str(path))
    notes = [f"{ignored} golden(s) carry a retrieval_context: one system's retrieval, not labels; ignored"] \
        if ignored else []
    return drafts, notes
