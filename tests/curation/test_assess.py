"""golden assess: every assessor for real (the bundled MiniLM, a tiny ONNX cross-encoder made here, a
python: function, and an llm: endpoint served by a real local HTTP server replaying recorded
OpenAI-format replies), the calibration on the human labels, resuming from -o and the cache, the file
against its schema, and the refusals (exit 2 with file:line and a fix, no key shown)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner, Result

from ragauge.cli.main import cli
from ragauge.curation.assessors import UMBRELA, read_grade
from ragauge.formats.autolabels import read_auto_labels
from tests.attribution.openai_server import openai_server

REPLIES = Path(__file__).parents[1] / "fixtures" / "assess" / "replies"
KEY = "sk-aSsEsS-0a1b2c3d4e5f6789-KeY"
DOCS = {
    "vpn-reset": "Reset your VPN token: open the TunnelPoint client, choose Settings, then Reset token.",
    "vpn-809": "Error 809 on the VPN means the hotel network blocks the L2TP ports; switch to the SSTP profile.",
    "printer-jam": "Paper jams on the Kestrel printer: open tray 2, remove the jammed sheet, use paper under 120 gsm.",
    "toner": "Toner cartridges for every office printer are kept in the supply room on floor 3.",
    "mailbox": "A shared mailbox appears in Outlook after you restart Outlook, once IT has granted you access.",
    "attach": "Files larger than 25 MB cannot be attached to an e-mail; share a OneDrive link instead.",
    "lunch": "The canteen serves lunch from noon to two; the menu changes every week.",
    "parking": "Visitor parking is behind building B; register the car at reception.",
}
QUESTIONS = [
    ("q1", "How do I reset my VPN token?", ["vpn-reset"], ["vpn-reset", "lunch", "parking"]),
    ("q2", "VPN error 809 in a hotel", ["vpn-809"], ["parking", "vpn-809", "vpn-reset"]),
    ("q3", "The printer keeps jamming paper", ["printer-jam"], ["printer-jam", "toner", "lunch"]),
    ("q4", "Where do I get toner for the printer?", ["toner"], ["lunch", "toner", "printer-jam"]),
    ("q5", "Shared mailbox not showing in Outlook", None, ["mailbox", "parking", "lunch"]),
    ("q6", "Can I e-mail a 40 MB file?", None, ["lunch", "attach", "mailbox"]),
]
PAIRS = sum(len(run) for *_, run in QUESTIONS)
LABELLED_PAIRS = sum(len(run) for _, _, labels, run in QUESTIONS if labels is not None)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    golden, run, corpus = tmp_path / "golden.jsonl", tmp_path / "run.jsonl", tmp_path / "corpus.jsonl"
    golden.write_text("".join(json.dumps({"id": q, "query": text, "relevant": rel}) + "\n"
                              for q, text, rel, _ in QUESTIONS), encoding="utf-8")
    run.write_text("".join(json.dumps({"id": q, "hits": [{"doc_id": d, "score": 10.0 - i} for i, d in enumerate(docs)]})
                           + "\n" for q, _, _, docs in QUESTIONS), encoding="utf-8")
    corpus.write_text("".join(json.dumps({"_id": d, "title": "", "text": t}) + "\n" for d, t in DOCS.items()),
                      encoding="utf-8")
    return {"golden": golden, "run": run, "corpus": corpus, "out": tmp_path / "auto.jsonl", "dir": tmp_path}


def assess(files: dict[str, Path], assessor: str, *args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, ["golden", "assess", str(files["golden"]), "--run", str(files["run"]),
                                    "--corpus", str(files["corpus"]), "--assessor", assessor,
                                    "-o", str(files["out"]), *args], env=env)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def word_overlap(query: str, documents: list[str]) -> list[float]:
    """A python: assessor: the share of the question's words found in each document."""
    words = {w.strip("?,.").lower() for w in query.split()}
    return [len(words & {w.strip("?,.:;").lower() for w in d.split()}) / len(words) for d in documents]


# --- each assessor, for real ---------------------------------------------------------------------------------

def test_minilm_grades_every_pair_calibrated_on_the_human_labels(files: dict[str, Path]) -> None:
    pytest.importorskip("onnxruntime")
    result = assess(files, "minilm", "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    got = lines(files["out"])
    assert len(got) == PAIRS == report["pairs"] and report["labelled_pairs"] == LABELLED_PAIRS
    assert {(x["question"], x["doc_id"]) for x in got} == {(q, d) for q, _, _, run in QUESTIONS for d in run}
    assert all(x["assessor"].startswith("minilm@8199be6f699a") for x in got)
    calibration = got[0]["calibration"]
    assert calibration["grades"] == [0, 1] and calibration["fitted_on"] == LABELLED_PAIRS
    assert calibration["kappa"] == pytest.approx(1.0)  # MiniLM tells these documents apart
    grade = {(x["question"], x["doc_id"]): x["grade"] for x in got}
    # the unlabelled questions got grades too, by the same cutoff
    assert grade[("q5", "mailbox")] == 1 and grade[("q6", "attach")] == 1
    assert grade[("q5", "lunch")] == 0 and grade[("q6", "lunch")] == 0
    assert all((x["score"] >= calibration["cutoffs"][0]) == (x["grade"] == 1) for x in got)
    assert report["cost"]["calls"] == len(QUESTIONS) and report["scored"] == PAIRS


def test_a_re_run_resumes_from_the_output_and_the_cache(files: dict[str, Path], tmp_path: Path) -> None:
    assert assess(files, "python:tests.curation.test_assess:word_overlap").exit_code == 0
    first = files["out"].read_bytes()
    again = assess(files, "python:tests.curation.test_assess:word_overlap", "--format", "json")
    assert again.exit_code == 0 and json.loads(again.stdout)["reused"] == PAIRS
    assert json.loads(again.stdout)["cost"]["calls"] == 0 and files["out"].read_bytes() == first
    files["out"].unlink()  # the cache still has every score
    third = assess(files, "python:tests.curation.test_assess:word_overlap", "--format", "json")
    assert json.loads(third.stdout)["cached"] == PAIRS and files["out"].read_bytes() == first
    # a question whose text changed is scored again; the others are reused
    text = files["golden"].read_text(encoding="utf-8").replace("VPN error 809 in a hotel", "VPN error 809 abroad")
    files["golden"].write_text(text, encoding="utf-8")
    fourth = json.loads(assess(files, "python:tests.curation.test_assess:word_overlap", "--format", "json").stdout)
    assert fourth["scored"] == 3 and fourth["reused"] == PAIRS - 3
    assert fourth["notes"] == ["3 label(s) of the output were for another question or document text: assessed again"]


def test_python_assessor_scores_are_the_functions(files: dict[str, Path]) -> None:
    assert assess(files, "python:tests.curation.test_assess:word_overlap").exit_code == 0
    got = lines(files["out"])
    query = dict((q, t) for q, t, _, _ in QUESTIONS)
    for x in got:
        assert x["score"] == pytest.approx(word_overlap(query[x["question"]], [DOCS[x["doc_id"]]])[0])
    assert got[0]["assessor"].startswith("python@tests.curation.test_assess:word_overlap#")


def test_cross_encoder_assessor_runs_the_onnx_model(files: dict[str, Path]) -> None:
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from ragauge.models.cross_encoder import CrossEncoder
    from tests.retrieve.tiny_models import make_cross_encoder, words_of

    folder = files["dir"] / "ce"
    make_cross_encoder(folder, sorted({w for t in [*DOCS.values(), *(q[1] for q in QUESTIONS)] for w in words_of(t)}))
    result = assess(files, f"cross-encoder:{folder}")
    assert result.exit_code == 0, result.output
    got = lines(files["out"])
    encoder = CrossEncoder(folder)
    assert got[0]["assessor"] == f"cross-encoder@{encoder.sha256[:16]}"
    q1 = [x for x in got if x["question"] == "q1"]
    expected = encoder.scores(QUESTIONS[0][1], [DOCS[x["doc_id"]] for x in q1], [x["doc_id"] for x in q1])
    assert np.allclose([x["score"] for x in q1], expected, atol=1e-6)


# --- the llm: assessor against a local OpenAI-compatible server ---------------------------------------------

PHRASES = {"Reset your VPN token": "llama-cpp-grade-3", "Error 809": "vllm-think-grade-2",
           "Paper jams": "llama-cpp-grade-3", "Toner cartridges": "llama-cpp-grade-3",
           "shared mailbox appears": "ollama-grade-1", "25 MB": "llama-cpp-grade-3",
           "canteen": "ollama-grade-0", "Visitor parking": "ollama-grade-0"}


def test_llm_assessor_asks_the_umbrela_prompt_and_reads_the_grade(files: dict[str, Path]) -> None:
    with openai_server(PHRASES, folder=REPLIES) as server:
        result = assess(files, f"llm:{server['url']}", "--model", "qwen2.5-7b-instruct", "--format", "json",
                        env={"RAGAUGE_ASSESS_API_KEY": KEY})
    assert result.exit_code == 0, result.output
    assert server["calls"] == PAIRS and set(server["paths"]) == {"/v1/chat/completions"}
    assert all(h["Authorization"] == f"Bearer {KEY}" for h in server["headers"])
    body = server["bodies"][0]
    assert body["model"] == "qwen2.5-7b-instruct" and body["temperature"] == 0
    assert body["messages"][0]["content"] == UMBRELA.format(query=QUESTIONS[0][1], passage=DOCS["vpn-reset"])
    got = {(x["question"], x["doc_id"]): x for x in lines(files["out"])}
    assert got[("q2", "vpn-809")]["score"] == 2 and got[("q1", "lunch")]["score"] == 0
    assert got[("q5", "mailbox")]["score"] == 1 and got[("q6", "attach")]["score"] == 3
    report = json.loads(result.stdout)
    assert report["cost"]["calls"] == PAIRS and report["cost"]["chars_received"] > 0
    assert got[("q1", "vpn-reset")]["assessor"].startswith("llm@qwen2.5-7b-instruct/umbrela-")
    text = result.output + files["out"].read_text(encoding="utf-8")
    assert KEY not in text


def test_an_llm_reply_without_a_grade_is_refused(files: dict[str, Path]) -> None:
    with openai_server({**PHRASES, "canteen": "llama-cpp-no-grade"}, folder=REPLIES) as server:
        result = assess(files, f"llm:{server['url']}", "--model", "m", env={"RAGAUGE_ASSESS_API_KEY": KEY})
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "gave no grade for document 'lunch'" in result.output and "I cannot judge" in result.output
    assert "##final score" in result.output and "hint:" in result.output and KEY not in result.output
    assert not files["out"].exists()
    # what was graded before is cached: the re-run with a model that answers asks only the rest
    with openai_server(PHRASES, folder=REPLIES) as server:
        again = assess(files, f"llm:{server['url']}", "--model", "m", "--format", "json")
    assert again.exit_code == 0, again.output
    assert server["calls"] == PAIRS - json.loads(again.stdout)["cached"] and json.loads(again.stdout)["cached"] >= 1


@pytest.mark.parametrize("reply, grade", [
    ("##final score: 3", 3), ("M: 2\nT: 1\n##final score: 1", 1), ("**##Final Score:** 2", 2), ("0", 0),
    ("<think>##final score: 3</think>\n##final score: 0", 0), ("## final score = 2.", 2),
    ("The final score is 3", None), ("7", None), ("", None), (None, None), ("##final score: 5", None),
])
def test_read_grade(reply: str | None, grade: int | None) -> None:
    assert read_grade(reply) == grade


# --- the file ------------------------------------------------------------------------------------------------

def test_the_labels_validate_against_their_schema_and_read_back(files: dict[str, Path]) -> None:
    from jsonschema import Draft202012Validator

    from ragauge import schemas
    from ragauge.formats.autolabels import SCHEMES

    assert assess(files, "python:tests.curation.test_assess:word_overlap").exit_code == 0
    validator = Draft202012Validator(schemas.schema("autolabels"))
    assert all(validator.is_valid(x) for x in lines(files["out"]))
    assert schemas.schema("autolabels")["properties"]["assessor"]["pattern"] == f"^({'|'.join(SCHEMES)})@.+$"
    read = read_auto_labels(files["out"])
    assert len(read.labels) == PAIRS and read.name == "python" and read.calibration.fitted_on == LABELLED_PAIRS
    from ragauge.formats.golden import load_golden

    assert read.golden == load_golden(files["golden"], unlabelled=True).questions_hash  # every line says so


# --- refusals: exit 2, where, what, how to fix ------------------------------------------------------------------

def _write(files: dict[str, Path], edit: Any) -> None:
    rows = lines(files["out"])
    edit(rows)
    files["out"].write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.mark.parametrize("edit, says", [
    (lambda rows: rows[2].update(v=2), ":3: unknown automatic-labels version 2"),
    (lambda rows: rows[1].update(assessor="bing@4"), ":2: unknown assessor 'bing'"),
    (lambda rows: rows.append({**rows[0], "doc_id": "toner"}), ":19: a label for document 'toner' of question "
                                                                "'q1', which no run given has in its top k"),
    (lambda rows: rows.append(dict(rows[0])), ":19: a second label for document 'vpn-reset'"),
    (lambda rows: rows[4].update(grade=2), ":5: grade 2 is not one of the calibration's grades"),
    (lambda rows: rows[3].update(golden="sha256:0123"), ":4: a label of another golden set than line 1's"),
    (lambda rows: [r.update(assessor="minilm@0123") for r in rows], "holds labels of assessor 'minilm@0123'"),
])
def test_a_bad_output_to_resume_from_is_refused(files: dict[str, Path], edit: Any, says: str) -> None:
    assert assess(files, "python:tests.curation.test_assess:word_overlap").exit_code == 0
    _write(files, edit)
    result = assess(files, "python:tests.curation.test_assess:word_overlap")
    assert result.exit_code == 2 and says in result.output, result.output
    assert "hint:" in result.output and "Traceback" not in result.output


def test_refusals_of_the_inputs(files: dict[str, Path]) -> None:
    result = assess(files, "bing")
    assert result.exit_code == 2 and "unknown assessor 'bing'" in result.output
    result = assess(files, "llm:http://127.0.0.1:9")
    assert result.exit_code == 2 and "needs a model name" in result.output
    result = assess(files, "minilm", "--model", "x")
    assert result.exit_code == 2 and "--model is the llm: assessor's" in result.output
    files["corpus"].write_text(json.dumps({"_id": "lunch", "text": DOCS["lunch"]}) + "\n", encoding="utf-8")
    result = assess(files, "python:tests.curation.test_assess:word_overlap")
    assert result.exit_code == 2 and "7 document(s) of the runs' top k are not in the corpus" in result.output


def test_no_human_label_to_calibrate_on_is_refused_unless_the_assessor_has_a_scale(files: dict[str, Path]) -> None:
    files["golden"].write_text("".join(json.dumps({"id": q, "query": t, "relevant": None}) + "\n"
                                       for q, t, _, _ in QUESTIONS), encoding="utf-8")
    result = assess(files, "python:tests.curation.test_assess:word_overlap")
    assert result.exit_code == 2 and "no pair in the runs' top k has a human label" in result.output
    with openai_server(PHRASES, folder=REPLIES) as server:
        result = assess(files, f"llm:{server['url']}", "--model", "m")
    assert result.exit_code == 0, result.output
    got = {(x["question"], x["doc_id"]): x for x in lines(files["out"])}
    assert got[("q2", "vpn-809")]["grade"] == 1 and got[("q5", "mailbox")]["grade"] == 0  # 2-3 relevant
    assert got[("q1", "lunch")]["calibration"] == {"cutoffs": [2.0], "grades": [0, 1], "fitted_on": 0, "kappa": None}
    assert "default" in result.output
