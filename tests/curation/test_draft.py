"""golden draft, against a real local HTTP server replaying hand-written OpenAI-format replies
(tests/fixtures/draft/replies, served by tests/attribution/openai_server.py): what is sampled, what
the server is sent, what each reply becomes, failures, and the key, which must never show."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.curation.draft import DraftOptions, read_question, sample_sections, sections_of
from ragauge.errors import InputError
from ragauge.formats.corpus import read_documents
from tests.attribution.openai_server import openai_server

DATA = Path(__file__).parents[1] / "fixtures" / "draft"
CORPUS, GOLDEN, FOLDER = DATA / "corpus.jsonl", DATA / "golden.jsonl", DATA / "replies"
KEY = "sk-dRaFt-0a1b2c3d4e5f6789-KeY"
REPLIES = {  # a phrase of each section's text -> its recorded reply
    "TunnelPoint client says": "llama-cpp-vpn-token", "Error 809 means": "ollama-vpn-809",
    "Jams on the Kestrel": "vllm-think-paper-jam", "Toner for every office": "llama-cpp-toner",
    "Files larger than 25 MB": "llama-cpp-copied", "A shared mailbox": "ollama-lead-in",
    "Visitors connect to the Guest": "llama-cpp-duplicate", "A battery that lasts": "llama-cpp-answer",
    "set up voicemail": "vllm-null-content", "security awareness course": "llama-cpp-security",
}
ELIGIBLE = 10  # every section but laptop#see-also (5 words)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _draft(server: dict[str, Any], out: Path, *args: str, key: str = KEY) -> Any:
    return CliRunner().invoke(cli, ["golden", "draft", "--corpus", str(CORPUS), "--endpoint", server["url"],
                                    "--model", "qwen2.5-7b-instruct", "-o", str(out), *args],
                              env={"RAGAUGE_DRAFT_API_KEY": key})


def test_drafts_through_the_cli(tmp_path: Path) -> None:
    out = tmp_path / "drafts.jsonl"
    with openai_server(REPLIES, folder=FOLDER) as server:
        result = _draft(server, out, "-n", "20", "--per-document", "5", "--golden", str(GOLDEN), "--seed", "7")
    assert result.exit_code == 0, result.output
    drafts = {next(iter(d["relevant"])): d for d in _lines(out)}
    assert set(drafts) == {"vpn#reset-token", "vpn#error-809", "printer#paper-jam", "printer#toner",
                           "email#large-attachments", "email#shared-mailbox", "security-training"}
    assert drafts["vpn#error-809"]["query"] == "Why can't I connect to the VPN from the hotel?"  # label stripped
    assert drafts["printer#paper-jam"]["query"] == "Why does the Kestrel keep jamming when I print on thick card?"
    assert drafts["email#shared-mailbox"]["query"] == "Why is the support mailbox not showing up in my Outlook?"
    host = server["url"].split("//")[1].split("/")[0]
    for section, d in drafts.items():
        assert d["relevant"] == {section: 1} and d["source"] == "synthetic" and d["status"] == "needs-review"
        assert d["drafted_by"] == {"model": "qwen2.5-7b-instruct", "host": host}
        assert d["id"].startswith("cand-") and d["added"] == date.today().isoformat()
    assert drafts["email#large-attachments"]["leakage"]["copied"] is True
    assert drafts["email#large-attachments"]["leakage"]["run"] == 14
    token = drafts["vpn#reset-token"]["leakage"]  # "token is out of sync": 5 of 16 words, not flagged
    assert token == {"copied": False, "run": 5, "share": 0.312, "phrase": "token is out of sync"}
    # what the server was sent: every long-enough section once, never the short one; model, seed, key
    assert server["calls"] == ELIGIBLE and set(server["paths"]) == {"/v1/chat/completions"}
    assert all(h["Authorization"] == f"Bearer {KEY}" for h in server["headers"])
    assert all(b["model"] == "qwen2.5-7b-instruct" and b["seed"] == 7 and b["temperature"] == 0
               for b in server["bodies"])
    users = [next(m["content"] for m in b["messages"] if m["role"] == "user") for b in server["bodies"]]
    assert not any("docking station" in u for u in users)
    assert any("Document: Printers — Toner" in u and "Write the question in English." in u for u in users)
    err = result.stderr
    assert "corpus: 11 section(s) in 7 document(s); 1 too short" in err
    assert "asked 10: 7 draft(s), 2 unusable repl(y/ies), 0 failed call(s)" in err
    assert "laptop#battery: replied 'The battery is replaced" in err and "phone#voicemail: replied with no text" in err
    assert "dropped 1 duplicate(s) of the golden set" in err
    assert "NOTE: 1 draft(s) copy their section" in err and drafts["email#large-attachments"]["id"] in err
    assert KEY not in result.output + out.read_text(encoding="utf-8")


def test_drafts_merge_into_the_golden_set_as_golden_lines(tmp_path: Path) -> None:
    out, merged = tmp_path / "drafts.jsonl", tmp_path / "golden.jsonl"
    with openai_server(REPLIES, folder=FOLDER) as server:
        assert _draft(server, out, "-n", "20", "--per-document", "5").exit_code == 0
    rows = _lines(out)
    rows[0]["status"] = "rejected"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = CliRunner().invoke(cli, ["golden", "merge", str(GOLDEN), str(out), "-o", str(merged)])
    assert result.exit_code == 0, result.output
    assert f"merged {len(rows) - 1} candidate(s) into 2 question(s), dropped 1 rejected" in result.stderr
    golden = ragauge.load_golden(merged)
    synthetic = [q for q in golden if q.synthetic]
    assert len(golden) == len(rows) + 1 and len(synthetic) == len(rows) - 1
    for q in synthetic:  # review fields stripped, provenance kept
        assert set(q.extra) == {"source", "added", "drafted_by"} and len(q.relevant) == 1
    report = ragauge.validate_golden(merged, corpus=CORPUS)
    assert not [f for f in report.findings if f.severity == "error"]


def test_the_same_seed_gives_the_same_file(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    with openai_server(REPLIES, folder=FOLDER) as server:
        for path, seed in ((a, "3"), (b, "3"), (c, "4")):
            assert _draft(server, path, "-n", "3", "--seed", seed).exit_code == 0
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()


def test_sampling_is_stratified_deterministic_and_skips_short_sections() -> None:
    sections = sections_of(read_documents(CORPUS))
    one_each, short = sample_sections(sections, 100, seed=1)
    assert short == 1 and len(one_each) == 7 and len({s.document for s in one_each}) == 7  # one per document
    assert "laptop#see-also" not in {s.id for s in one_each}
    first, _ = sample_sections(sections, 4, seed=1)
    again, _ = sample_sections(list(reversed(sections)), 4, seed=1)  # the corpus order does not matter
    assert first == again and len({s.document for s in first}) == 4
    assert {s.id for s in first} != {s.id for s in sample_sections(sections, 4, seed=2)[0]}
    every, _ = sample_sections(sections, 100, seed=1, per_document=3)
    assert len(every) == ELIGIBLE and every[:7] == one_each  # the first round is the one-per-document sample
    assert not sample_sections(sections, 5, min_words=1000)[0]
    with pytest.raises(InputError, match="per_document="):  # a Python caller reads its keyword, not --per-document
        sample_sections(sections, 5, per_document=0)


@pytest.mark.parametrize("fail_status", [429, 503])
def test_rate_limits_and_server_errors_are_retried(tmp_path: Path, fail_status: int) -> None:
    with openai_server(REPLIES, folder=FOLDER, fail_first=2, fail_status=fail_status) as server:
        result = ragauge.draft_golden(CORPUS, DraftOptions(server["url"], "m", retries=2, backoff=0), n=2, seed=0)
        assert server["calls"] == 4  # the first section: two failures, then its reply; the second at once
    assert result.report.failed == 0 and result.report.asked == 2


def test_a_section_whose_calls_all_failed_is_listed_and_a_dead_server_stops_early() -> None:
    with openai_server(REPLIES, folder=FOLDER, fail_first=2) as server:
        result = ragauge.draft_golden(CORPUS, DraftOptions(server["url"], "m", retries=1, backoff=0), n=3)
    assert result.report.failed == 1 and "503" in result.report.failures[0][1]
    assert len(result.drafts) + len(result.report.unusable) == 2  # the other two sections got their replies
    assert result.report.to_dict()["failed"][0]["section"] == result.report.failures[0][0]
    with openai_server(REPLIES, folder=FOLDER, fail_first=100) as server:
        with pytest.raises(InputError, match="first 3 calls to the drafting model all failed"):
            ragauge.draft_golden(CORPUS, DraftOptions(server["url"], "m", retries=0, backoff=0), n=8)
        assert server["calls"] == 3


@pytest.mark.parametrize(("reply", "error"), [
    ("vllm-empty-choices", "did not answer a chat completion"), ("truncated", "did not answer a chat completion")])
def test_a_reply_that_is_not_a_chat_completion_stops_with_one_error(tmp_path: Path, reply: str, error: str) -> None:
    out = tmp_path / "drafts.jsonl"
    with openai_server(dict.fromkeys(REPLIES, reply), folder=FOLDER) as server:
        result = _draft(server, out, "-n", "3")
        assert server["calls"] == 1
    assert result.exit_code == 2 and error in result.stderr and "--endpoint" in result.stderr
    assert "Traceback" not in result.output and not out.exists()


@pytest.mark.parametrize("key", [KEY, "p@ss/w0rd+1=2&x"])
def test_a_401_that_quotes_the_key_shows_it_hidden(tmp_path: Path, key: str) -> None:
    out = tmp_path / "drafts.jsonl"
    with openai_server(REPLIES, folder=FOLDER, mode="denied") as server:
        result = _draft(server, out, "-n", "3", key=key)
        assert server["headers"][0]["Authorization"] == f"Bearer {key}"  # the real key was sent
    assert result.exit_code == 2 and "401" in result.stderr and "***" in result.stderr
    assert "RAGAUGE_DRAFT_API_KEY" in result.stderr and key not in result.output and not out.exists()


def test_the_key_comes_from_the_variable_named(tmp_path: Path) -> None:
    with openai_server(REPLIES, folder=FOLDER) as server:
        result = CliRunner().invoke(cli, [
            "golden", "draft", "--corpus", str(CORPUS), "--endpoint", server["url"] + "/chat/completions",
            "--model", "m", "-n", "1", "-o", str(tmp_path / "d.jsonl"), "--api-key-env", "MY_LLM_KEY"],
            env={"MY_LLM_KEY": KEY, "RAGAUGE_DRAFT_API_KEY": "other-key"})
        assert result.exit_code == 0, result.output
        assert server["headers"][0]["Authorization"] == f"Bearer {KEY}"


def test_the_command_defaults_are_the_library_ones() -> None:
    from ragauge.cli.draft import draft_command
    from ragauge.curation.draft import DRAFT_KEY_ENV, MIN_WORDS

    defaults = {p.name: p.default for p in draft_command.params}
    assert defaults["min_words"] == MIN_WORDS and defaults["api_key_env"] == DRAFT_KEY_ENV
    assert (defaults["n"], defaults["seed"], defaults["per_document"], defaults["language"]) == (100, 0, 1, "en")


def test_without_an_endpoint_it_is_a_usage_error_with_a_hint(tmp_path: Path) -> None:
    for args in ([], ["--endpoint", "http://localhost:8080/v1"], ["--model", "m"]):
        result = CliRunner().invoke(cli, ["golden", "draft", "--corpus", str(CORPUS), "-o", str(tmp_path / "d"),
                                          *args])
        assert result.exit_code == 2 and "needs --endpoint and --model" in result.stderr
        assert "hint:" in result.stderr and "golden add --from-log" in result.stderr
    result = CliRunner().invoke(cli, ["golden", "draft", "--corpus", str(CORPUS), "-o", str(tmp_path / "d"),
                                      "--endpoint", "localhost:8080", "--model", "m"])
    assert result.exit_code == 2 and "http:// or https://" in result.stderr


def test_a_python_function_can_draft(tmp_path: Path) -> None:
    def first_words(title: str, text: str) -> str:
        return "Why " + " ".join(text.split()[:9]) + "?"

    out = tmp_path / "drafts.jsonl"
    result = ragauge.draft_golden(CORPUS, first_words, out, n=3, seed=5, today=date(2026, 1, 2))
    assert len(result.drafts) == 3 and _lines(out) == list(result.drafts)
    assert all(d["drafted_by"] == {"function": "first_words"} and d["added"] == "2026-01-02" for d in result.drafts)
    assert len(result.report.leaked) == 3  # nine words of the text in a row: copied


def test_the_recorded_host_never_holds_the_key_path_or_query() -> None:
    described = DraftOptions("https://user:pw@llm.example.com:8443/v1?api_key=sEcReT", "m").describe()
    assert described == {"model": "m", "host": "llm.example.com:8443"}


@pytest.mark.parametrize(("reply", "question"), [
    ("How do I reset my token?", "How do I reset my token?"),
    ("**Question:** Why is the VPN slow?", "Why is the VPN slow?"),
    ('"Where is the toner?"', "Where is the toner?"),
    ("1. Where is the toner kept?", "Where is the toner kept?"),
    ("Q: Where is the toner kept?", "Where is the toner kept?"),
    ("<think>the user wants toner</think>\nWhere is the toner kept?", "Where is the toner kept?"),
    ("Here is a question:\n\n- Where is the toner kept?", "Where is the toner kept?"),
    ("¿Dónde está el tóner de la impresora?", "¿Dónde está el tóner de la impresora?"),
    ("プリンターのトナーはどこで注文しますか？", None),  # one "word" without spaces: under three words
    ("The toner is ordered through the portal.", None), ("I'm sorry, I can't help with that.", None),
    ("Toner?", None), ("", None), (None, None), ("<think>no idea</think>", None), ("x " * 200 + "?", None),
])
def test_reading_the_question_in_a_reply(reply: str | None, question: str | None) -> None:
    assert read_question(reply) == question
