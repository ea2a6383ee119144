"""The golden set's upkeep, one call per ``ragauge golden`` verb: validate, scrub, pool, judge and
merge judgements, import, draft, add from a log, agreement between judges, automatic assessors."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ragauge.curation.agreement import judge_stats as judge_stats
from ragauge.curation.assess import assess_golden as assess_golden
from ragauge.curation.assessors import ASSESS_KEY_ENV as ASSESS_KEY_ENV
from ragauge.curation.audit import assessor_agreement as assessor_agreement
from ragauge.curation.draft import draft_golden as draft_golden
from ragauge.curation.grow import add_from_log as add_from_log
from ragauge.curation.importing import import_golden as import_golden
from ragauge.curation.judge import judge_pool as judge_pool
from ragauge.curation.judge_finish import merge_judgements as merge_judgements
from ragauge.curation.pool import pool_golden as pool_golden
from ragauge.curation.scrub import scrub_golden as scrub_golden
from ragauge.curation.validate import validate_golden as validate_golden

if TYPE_CHECKING:
    from ragauge.curation.merge import MergeReport

__all__ = ["ASSESS_KEY_ENV", "add_from_log", "assess_golden", "assessor_agreement", "draft_golden", "import_golden",
           "judge_pool", "judge_stats", "merge_candidates", "merge_judgements", "pool_golden", "scrub_golden",
           "validate_golden"]


def merge_candidates(golden: str | Path, candidates: str | Path, output: str | Path) -> MergeReport:
    """Append the reviewed candidates (``golden add``'s file after review) to the golden set and write
    the result to ``output`` (atomically; it may be the golden set itself). The golden set's own lines
    are copied unchanged; candidates marked ``"status": "rejected"`` are dropped, review fields
    stripped. Raises InputError listing every refused candidate (nothing is written then)."""
    from ragauge.core.files import atomic_write
    from ragauge.curation.merge import merge_text

    text, report = merge_text(Path(golden), Path(candidates))
    atomic_write(output, text)
    return report
