"""The JSON Schemas in ``ragauge.schemas``: valid draft 2020-12, shipped, in step with the code's own
constants, and holding every bundled example, every fixture of a ragauge format and every file
ragauge writes. Where a reader refuses a golden line's shape, ``golden validate`` and the schema agree."""

from __future__ import annotations

import fnmatch
import gzip
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

import ragauge
from ragauge import schemas
from ragauge.cli.main import cli
from ragauge.errors import InputError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).parents[2]
SCIFACT, HELPDESK, FIXTURES = ROOT / "examples" / "scifact", ROOT / "examples" / "helpdesk", ROOT / "tests" / "fixtures"

HELD = {
    "examples/*/golden*.jsonl": "golden", "tests/fixtures/*/golden.jsonl": "golden",
    "tests/fixtures/grow/reviewed.jsonl": "candidates",
    "examples/*/*.run.jsonl": "run", "tests/fixtures/*/run.jsonl": "run",
    "examples/*/corpus.jsonl*": "corpus", "examples/helpdesk/sections.jsonl": "corpus",
    "tests/fixtures/*/corpus.jsonl": "corpus",
    "examples/*/answers.jsonl": "answers", "tests/fixtures/*/answers.jsonl": "answers",
    "examples/*/baseline.json": "baseline", "examples/*/baseline.history.jsonl": "baseline-history",
    "examples/*/ragauge.toml": "config", "examples/*/sweep*.toml": "sweep-config",
}
"""Bundled examples and fixtures, by the schema each is held to."""
FOREIGN = (
    "tests/fixtures/*/replies/*.json",  # LLM servers' chat replies
    "tests/fixtures/search_contracts/*/*.json",  # Elasticsearch / OpenSearch answers
    "tests/fixtures/importers/*",  # ragas, DeepEval, LlamaIndex, BEIR, TREC, MS MARCO files
    "tests/fixtures/grow/log.jsonl",  # a production log: any shape, read leniently by golden add
    "tests/fixtures/curation/pii_labelled.jsonl",  # PII-labelled questions for the scrubber's tests
    "tests/fixtures/minilm/reference.json", "tests/fixtures/confseq/*.json", "tests/fixtures/scifact_pairs/*",
)
"""Data files that are not in a ragauge format (other tools' formats, reference values)."""
SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz", ".toml")


def documents(path: Path) -> Iterator[tuple[str, Any]]:
    """``(where, value)`` of each record: each non-blank line of JSON Lines (gzipped or not), the one
    document of a JSON file, the parsed tables of a TOML file."""
    if path.suffix == ".toml":
        yield str(path), tomllib.loads(path.read_text(encoding="utf-8"))
    elif path.suffix == ".json":
        yield str(path), json.loads(path.read_text(encoding="utf-8"))
    else:
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        for number, line in enumerate(raw.decode("utf-8-sig").split("\n"), start=1):
            if line.strip():
                yield f"{path}:{number}", json.loads(line)


def problems(name: str, path: Path) -> list[str]:
    """Every schema error of ``path``, as ``where json-path: message``."""
    validator = Draft202012Validator(schemas.schema(name))
    return [f"{where} {e.json_path}: {e.message[:200]}" for where, value in documents(path)
            for e in validator.iter_errors(value)]


def held(relative: str) -> str | None:
    names = {name for pattern, name in HELD.items() if fnmatch.fnmatch(relative, pattern)}
    assert len(names) <= 1, f"{relative} matches the patterns of {names}"
    return names.pop() if names else None


def data_files() -> list[str]:
    found = [p for folder in (ROOT / "examples", FIXTURES) for p in folder.rglob("*") if p.name.endswith(SUFFIXES)]
    return sorted(str(p.relative_to(ROOT)) for p in found)


# --- the schemas themselves --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", schemas.NAMES)
def test_each_schema_is_a_valid_draft_2020_12_schema_with_its_id(name: str) -> None:
    found = schemas.schema(name)
    Draft202012Validator.check_schema(found)
    assert found["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert found["$id"] == f"https://ragauge.dev/schemas/{name}.schema.json"
    assert found["title"] and len(found["description"]) > 80


CONSTRAINTS = ("if", "then", "else", "not", "contains", "dependentSchemas")
"""Keywords whose subschemas constrain fields described elsewhere: not searched for undescribed fields."""


def _undescribed(node: Any, at: str) -> Iterator[str]:
    """Fields (``properties`` entries) without a description, at any depth: a field described by the
    definition it refers to, or by its alternatives, counts as described."""
    if isinstance(node, list):
        for i, sub in enumerate(node):  # alternatives: those that define a value; the others constrain
            if isinstance(sub, dict) and ("type" in sub or "properties" in sub and "required" not in sub):
                yield from _undescribed(sub, f"{at}[{i}]")
        return
    if not isinstance(node, dict):
        return
    for field, sub in node.get("properties", {}).items():
        if sub is not True and "description" not in sub and "$ref" not in sub and \
                not all("description" in s for s in sub.get("anyOf", [{}])):
            yield f"{at}.{field}"
    for key, sub in node.items():
        if key not in CONSTRAINTS:
            yield from _undescribed(sub, f"{at}.{key}")


@pytest.mark.parametrize("name", schemas.NAMES)
def test_every_field_is_described(name: str) -> None:
    found = schemas.schema(name)
    definitions = found.get("$defs", {})
    assert [d for d, sub in definitions.items() if "description" not in sub and d not in ("golden_line",)] == []
    assert list(_undescribed(found, name)) == []


def test_names_are_the_shipped_files_and_schema_returns_a_fresh_dict() -> None:
    folder = Path(schemas.__file__).parent
    assert sorted(schemas.NAMES) == sorted(p.name.removesuffix(".schema.json") for p in folder.glob("*.schema.json"))
    first = schemas.schema("golden")
    first["title"] = "changed"
    assert schemas.schema("golden")["title"] != "changed"
    with pytest.raises(InputError, match="no schema called 'gold'") as raised:
        schemas.schema("gold")
    assert "golden" in (raised.value.hint or "")


def test_the_schema_files_are_package_data() -> None:
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    patterns = setup["package-data"]["ragauge"]
    for name in schemas.NAMES:
        assert any(fnmatch.fnmatch(f"schemas/{name}.schema.json", p) for p in patterns), name


SHARED = [("contract", "result", "baseline"), ("drop", "baseline", "baseline-history"),
          ("git", "baseline", "baseline-history"), ("label", "golden", "candidates")]


@pytest.mark.parametrize(("definition", "one", "other"), SHARED)
def test_a_definition_two_schemas_hold_is_the_same_in_both(definition: str, one: str, other: str) -> None:
    assert schemas.schema(one)["$defs"][definition] == schemas.schema(other)["$defs"][definition]


def test_a_candidate_line_is_checked_as_a_golden_line() -> None:
    golden = schemas.schema("golden")
    line = {k: v for k, v in golden.items() if k not in ("$schema", "$id", "title", "description", "$defs")}
    assert schemas.schema("candidates")["$defs"]["golden_line"] == line


def test_the_schemas_spell_the_codes_own_constants() -> None:
    from ragauge.data.golden import MAX_GROUPS, MAX_QUERY_CHARS
    from ragauge.data.judgements import ACTIONS, LOG_VERSION
    from ragauge.data.pool import POOL_VERSION, SYSTEM_KINDS, VERDICT_VERSION
    from ragauge.evaluation.result import RESULT_VERSION
    from ragauge.evaluation.rows import STATUSES
    from ragauge.experiments import grid
    from ragauge.experiments.result import READS
    from ragauge.gating.baseline import BASELINE_VERSION
    from ragauge.gating.config import FAIL_IF, KNOWN

    assert schemas.schema("golden")["properties"]["query"]["maxLength"] == MAX_QUERY_CHARS
    assert schemas.schema("golden")["properties"]["evidence"]["maxItems"] == MAX_GROUPS
    judgements = schemas.schema("judgements")["properties"]
    assert (judgements["v"]["const"], tuple(judgements["action"]["enum"])) == (LOG_VERSION, ACTIONS)
    header = schemas.schema("pool")["$defs"]["header"]["properties"]["_pool"]["properties"]
    assert header["version"]["enum"] == [POOL_VERSION, VERDICT_VERSION]
    assert tuple(header["systems"]["items"]["properties"]["kind"]["enum"]) == SYSTEM_KINDS
    result = schemas.schema("result")
    assert result["properties"]["ragauge_result"]["const"] == RESULT_VERSION
    assert tuple(result["$defs"]["row"]["properties"]["status"]["enum"]) == STATUSES
    assert schemas.schema("baseline")["properties"]["ragauge_baseline"]["const"] == BASELINE_VERSION
    assert tuple(schemas.schema("sweep")["properties"]["ragauge_sweep"]["enum"]) == READS
    gate = schemas.schema("config")["properties"]["gate"]["properties"]
    assert sorted(gate) == sorted(KNOWN) and gate["fail_if"]["enum"] == list(FAIL_IF)
    sweep = schemas.schema("sweep-config")
    assert sorted(sweep["properties"]["sweep"]["properties"]) == sorted(grid.SWEEP_KEYS)
    assert tuple(sweep["properties"]["config"]["items"]["properties"]["retriever"]["enum"]) == grid.RETRIEVERS
    for retriever, options in grid.OPTIONS.items():
        assert set(sweep["$defs"][f"options_{retriever}"]["properties"]) == {"retriever", "name", *options}
    for option, (low, high) in grid.NUMBERS.items():
        spelled = sweep["$defs"][option]
        assert (spelled["minimum"], spelled.get("maximum")) == (low, high), option
        assert spelled["type"] == ("integer" if option in grid.INTEGERS else "number"), option
    assert all(sweep["$defs"][flag]["type"] == "boolean" for flag in grid.FLAGS)


# --- bundled examples and fixtures -------------------------------------------------------------------------

def test_every_data_file_is_held_to_a_schema_or_named_as_another_tools() -> None:
    unplaced = [f for f in data_files() if held(f) is None and not any(fnmatch.fnmatch(f, p) for p in FOREIGN)]
    assert unplaced == []
    assert {held(f) for f in data_files()} - {None} == set(HELD.values())  # every pattern still finds a file


@pytest.mark.parametrize("relative", [f for f in data_files() if held(f)])
def test_a_bundled_example_or_fixture_validates(relative: str) -> None:
    assert problems(held(relative) or "", ROOT / relative) == []


# --- files ragauge writes ----------------------------------------------------------------------------------

def invoke(*args: str | Path) -> None:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("args", [
    (SCIFACT / "golden.jsonl", "--run", SCIFACT / "bm25.run.jsonl", "-k", "10"),
    (HELPDESK / "golden.jsonl", "--run", HELPDESK / "bm25.run.jsonl", "--doc-id-sep", "#"),
    (HELPDESK / "golden-spans.jsonl", "--run", HELPDESK / "bm25.run.jsonl", "--corpus", HELPDESK / "corpus.jsonl"),
], ids=["scifact", "helpdesk-tags-no-answer", "helpdesk-spans"])
def test_a_result_ragauge_eval_writes_validates(tmp_path: Path, args: tuple[str | Path, ...]) -> None:
    invoke("eval", *args, "--format", "json", "-o", tmp_path / "result.json")
    assert problems("result", tmp_path / "result.json") == []


def test_a_baseline_and_its_history_validate_after_two_updates(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    common = ("baseline", "update", SCIFACT / "golden.jsonl", "--baseline", baseline, "--config",
              SCIFACT / "ragauge.toml")
    invoke(*common, "--run", SCIFACT / "bm25.run.jsonl", "--reason", "first")
    invoke(*common, "--run", SCIFACT / "bm25-nostem.run.jsonl", "--reason", "no stemming", "--accept-drop")
    record = json.loads(baseline.read_text(encoding="utf-8"))
    assert record["accepted_drops"] and record["digest"]  # the second update recorded its drops
    assert problems("baseline", baseline) == []
    assert problems("baseline-history", tmp_path / "baseline.history.jsonl") == []


def test_a_run_ragauge_run_writes_validates(tmp_path: Path) -> None:
    spec = f"bm25:{HELPDESK / 'corpus.jsonl'}?chunk_size=50&chunk_overlap=10"
    ragauge.run_retriever(HELPDESK / "golden.jsonl", spec, tmp_path / "run.jsonl", fetch=5)
    text = (tmp_path / "run.jsonl").read_text(encoding="utf-8")
    assert text.startswith('{"_meta":') and '"start":' in text and '"length":' in text
    assert problems("run", tmp_path / "run.jsonl") == []


def test_a_pool_and_a_judgements_log_validate(tmp_path: Path) -> None:
    from ragauge.data.judgements import Judgement, now_utc
    from ragauge.formats.judgements import append_judgement

    ragauge.pool_golden(HELPDESK / "golden.jsonl", runs=[HELPDESK / "bm25.run.jsonl", HELPDESK / "dense.run.jsonl"],
                        output=tmp_path / "pool.jsonl", depth=5)
    assert problems("pool", tmp_path / "pool.jsonl") == []
    ragauge.pool_golden(HELPDESK / "golden.jsonl", output=tmp_path / "verdict.jsonl", depth=5, verdict_metric="ndcg@5",
                        for_verdict=[HELPDESK / "bm25.run.jsonl", HELPDESK / "dense.run.jsonl"])
    assert problems("pool", tmp_path / "verdict.jsonl") == []
    header = json.loads((tmp_path / "verdict.jsonl").read_text(encoding="utf-8").splitlines()[0])
    for spoiled in ({**header["_pool"], "version": 1}, {k: v for k, v in header["_pool"].items() if k != "verdict"}):
        assert not Draft202012Validator(schemas.schema("pool")).is_valid({"_pool": spoiled})
    log = tmp_path / "pool.judgements.jsonl"
    for action, grade in (("grade", 2), ("grade", 0.5), ("skip", None), ("undo", None)):
        append_judgement(log, Judgement("hd-001", "kb-7", action, "ana", now_utc(), grade))
    assert problems("judgements", log) == []


def test_a_sweep_result_validates_with_a_holdout_and_with_halving(tmp_path: Path) -> None:
    for folder, options in (("holdout", {"holdout": 0.3}), ("halving", {"budget": 160})):
        ragauge.sweep(HELPDESK / "golden.jsonl", HELPDESK / "sections.jsonl", HELPDESK / "sweep.toml",
                      tmp_path / folder, **options)
        assert problems("sweep", tmp_path / folder / "sweep.json") == []
    halved = json.loads((tmp_path / "halving" / "sweep.json").read_text(encoding="utf-8"))
    assert halved["halving"] and any(row.get("dropped") for row in halved["rows"])


def test_golden_sets_and_answers_ragauge_writes_validate(tmp_path: Path) -> None:
    for source in (SCIFACT / "golden.jsonl", HELPDESK / "golden.jsonl", HELPDESK / "golden-spans.jsonl"):
        ragauge.write_golden(ragauge.load_golden(source), tmp_path / source.name)
        assert problems("golden", tmp_path / source.name) == []
    answers = tmp_path / "answers.jsonl"
    read = ragauge.read_answers(HELPDESK / "answers.jsonl")
    answers.write_text("".join(json.dumps(a.to_dict()) + "\n" for a in read), encoding="utf-8")
    assert problems("answers", answers) == []


def test_the_files_ragauge_init_writes_validate(tmp_path: Path) -> None:
    ragauge.init_project(tmp_path)
    assert problems("config", tmp_path / "ragauge.toml") == []
    assert problems("golden", tmp_path / "eval" / "golden.jsonl") == []


def test_candidates_validate_once_reviewed_as_golden_merge_takes_them(tmp_path: Path) -> None:
    from ragauge.curation.merge import reviewed_entry

    written, _ = ragauge.add_from_log(FIXTURES / "grow" / "log.jsonl", FIXTURES / "grow" / "golden.jsonl")
    validator = Draft202012Validator(schemas.schema("candidates"))
    assert len(written) >= 4 and all(c["relevant"] is None for c in written)  # one per review below
    for candidate in written:  # as written: not reviewed, refused by both
        assert not validator.is_valid(candidate)
        with pytest.raises(InputError, match="not reviewed"):
            reviewed_entry(candidate, "c")
    for candidate, reviewed in zip(written, ({"relevant": ["sso"]}, {"relevant": [], "no_answer": True},
                                             {"status": "rejected"}, {"relevant": {"sso": 2}})):
        line = {**candidate, **reviewed}
        assert validator.is_valid(line), line
        reviewed_entry(line, "c")


def test_the_examples_on_the_formats_page_validate() -> None:
    """Each JSON line shown under a ``### Title (`name`)`` heading of docs/formats.md validates."""
    page = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    shown = 0
    for section in page.split("\n### ")[1:]:
        name = section.split("`", 2)[1]
        for block in section.split("\n## ")[0].split("```json\n")[1:]:
            for line in block.split("```")[0].splitlines():
                shown += 1
                errors = [e.message for e in Draft202012Validator(schemas.schema(name)).iter_errors(json.loads(line))]
                assert errors == [], f"{name}: {line}"
    assert shown >= 6


# --- where golden validate refuses a line's shape, so does the schema ---------------------------------------

REFUSED = [
    {"query": "no id", "relevant": []},
    {"id": 7, "query": "an id that is a number", "relevant": []},
    {"id": "", "query": "an empty id", "relevant": []},
    {"id": "q", "relevant": ["d"]},
    {"id": "q", "query": "no relevant"},
    {"id": "q", "query": "relevant is text", "relevant": "d1"},
    {"id": "q", "query": "relevant is null", "relevant": None},
    {"id": "q", "query": "an id in relevant is a number", "relevant": ["d1", 2]},
    {"id": "q", "query": "an empty id in relevant", "relevant": [""]},
    {"id": "q", "query": "a grade that is text", "relevant": {"d1": "2"}},
    {"id": "q", "query": "a grade that is true", "relevant": {"d1": True}},
    {"id": "q", "query": "a grade too large", "relevant": {"d1": 1e10}},
    {"id": "q", "query": "an empty document id", "relevant": {"": 1}},
    {"id": "q", "query": "tags are text", "relevant": [], "tags": "networking"},
    {"id": "q", "query": "a tag is a number", "relevant": [], "tags": ["a", 1]},
    {"id": "q", "query": ["a list"], "relevant": []},
    {"id": "q", "query": "x" * 100_001, "relevant": []},
    {"id": "q", "query": "a span without doc", "relevant": [{"start": 1, "end": 4}]},
    {"id": "q", "query": "start without end", "relevant": [{"doc": "d", "start": 1}]},
    {"id": "q", "query": "a negative start", "relevant": [{"doc": "d", "start": -1, "end": 4}]},
    {"id": "q", "query": "a blank quote", "relevant": [{"doc": "d", "quote": "  "}]},
    {"id": "q", "query": "an unknown span field", "relevant": [{"doc": "d", "page": 3}]},
]
ACCEPTED = [
    {"id": "q", "query": "", "relevant": []},
    {"id": "q", "query": "graded", "relevant": {"d1": 2, "d2": 0.5, "d3": -1}, "tags": None, "notes": {"any": 1}},
    {"id": "q", "query": "spans", "relevant": ["d1", {"doc": "d2", "start": 0, "end": 9, "quote": "x", "grade": 2},
                                              {"doc": "d3", "quote": None, "grade": 3}], "tags": ["a", "a"]},
]


def test_golden_validate_and_the_schema_refuse_the_same_lines(tmp_path: Path) -> None:
    lines = REFUSED + ACCEPTED
    path = tmp_path / "golden.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    report = ragauge.validate_golden(path)
    refused_by_ragauge = sorted({f.line for f in report.findings if f.code == "schema"})
    validator = Draft202012Validator(schemas.schema("golden"))
    refused_by_schema = [n for n, line in enumerate(lines, start=1) if not validator.is_valid(line)]
    assert refused_by_ragauge == refused_by_schema == list(range(1, len(REFUSED) + 1))
