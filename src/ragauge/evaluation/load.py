"""Load a saved result, or evaluate a run file on the spot."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ragauge.core.jsonl import read_json
from ragauge.errors import InputError, flag
from ragauge.evaluation.options import EvalOptions
from ragauge.evaluation.result import Evaluation


def read_result(path: str | Path, corpus: str | Path | Mapping[str, str] | None = None) -> Evaluation:
    """The one reader of a result written by ``ragauge eval --format json`` (report, compare and
    every other command that loads one): InputError naming the file for anything else, a
    malformed field or a number that is not finite. With ``corpus`` (a corpus file or folder,
    or ``{doc_id: text}``) its misses are classified again with the texts, which adds the
    text-based failure patterns (the scores stay as saved)."""
    if corpus is not None:
        from ragauge.evaluation.failures import classify_result
        from ragauge.formats.corpus import corpus_texts

        return classify_result(read_result(path), corpus_texts(corpus))
    path = Path(path)
    hint = "pass a file written by 'ragauge eval ... --format json -o result.json'"
    data = read_json(path, what="result", hint=hint)
    if not isinstance(data, dict) or "ragauge_result" not in data:
        raise InputError("not a ragauge result: no 'ragauge_result' version field", where=str(path), hint=hint)
    try:
        return Evaluation.from_dict(data)
    except InputError as exc:
        exc.where = exc.where or str(path)
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        what = f"missing field {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
        raise InputError(f"a malformed ragauge result ({what})", where=str(path), hint=hint) from None


def is_result_file(path: str | Path) -> bool:
    """True for a JSON object file carrying the ``ragauge_result`` marker."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(64).lstrip()
    except OSError:
        return False
    return head.startswith(b"{") and b'"ragauge_result"' in head


def result_or_evaluate(path: str | Path, golden_path: str | Path | None, options: EvalOptions | None = None, *,
                       run_format: str = "auto") -> Evaluation:
    """A saved result as is, or the run at ``path`` scored against ``golden_path``."""
    if is_result_file(path):
        return read_result(path)
    if golden_path is None:
        raise InputError(f"{path} is a run file, so {flag('golden')} is needed to score it",
                         hint=f"pass {flag('golden', 'golden.jsonl')}, or compare saved results from "
                              "'ragauge eval --format json'")
    from ragauge.evaluation.evaluate import score_run
    from ragauge.formats.golden import load_golden
    from ragauge.formats.runs import run_source

    if options is None:
        options = EvalOptions()
    return score_run(load_golden(golden_path), run_source(path, run_format), options)
