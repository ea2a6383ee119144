"""The optional judge, against a real local HTTP server replaying OpenAI-format replies
(tests/attribution/openai_server.py): verdicts, what it is sent, retries, failures, and the key,
which must never show in a report, a saved result or a message."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

import ragauge
from ragauge.attribution.judge import JudgeOptions, read_reply
from ragauge.attribution.result import FOUND_BAD, FOUND_GOOD, UNJUDGED
from ragauge.cli.main import cli
from ragauge.errors import InputError

from .openai_server import openai_server

DATA = Path(__file__).parents[1] / "fixtures" / "attribution"
GOLDEN, RUN, CORPUS = DATA / "golden.jsonl", DATA / "run.jsonl", DATA / "corpus.jsonl"
KEY = "sk-tEsT-9f8e7d6c5b4a3210-KeY"

ANSWERS = [
    {"id": "g1", "answer": "Open the VPN client and choose Reset token."},
    {"id": "g5", "answer": "Put it on a USB stick and post it."},
    {"id": "g7", "answer": "Start Outlook in safe mode, then rebuild the profile."},
    {"id": "g3", "answer": "Ask reception for a voucher."},
    {"id": "g2", "verdict": "bad", "answer": "Already judged: the judge is not asked."},
    {"id": "g8", "answer": "Missing from the run: nothing retrieved to judge against."},
    {"id": "n1", "answer": "A no-answer question: not judged."},
]
REPLIES = {"reset my vpn token": "llama-cpp-supported", "send a large file": "ollama-unsupported",
           "outlook is stuck": "vllm-think-supported", "guest wifi": "llama-cpp-undecided"}


def _answers(tmp_path: Path, rows: list[dict[str, str]] = ANSWERS) -> Path:
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _user_message(body: dict[str, object]) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")  # type: ignore[index,union-attr]


def test_the_judge_fills_in_verdicts_through_the_cli(tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    with openai_server(REPLIES) as server:
        result = CliRunner().invoke(cli, [
            "attribute", str(GOLDEN), "--run", str(RUN), "--answers", str(_answers(tmp_path)), "-k", "1",
            "--corpus", str(CORPUS), "--judge-endpoint", server["url"], "--judge-model", "qwen2.5-7b-instruct",
            "--format", "json", "-o", str(out)], env={"RAGAUGE_JUDGE_API_KEY": KEY})
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text(encoding="utf-8"))
    rows = {r["id"]: r for r in data["questions"]}
    assert rows["g1"]["cell"] == FOUND_GOOD and rows["g1"]["source"] == "judge:qwen2.5-7b-instruct"
    assert rows["g5"]["cell"] == FOUND_BAD                                  # **UNSUPPORTED** (Ollama)
    assert rows["g7"]["cell"] == FOUND_GOOD                                 # after a <think> block (vLLM)
    assert rows["g3"]["cell"] == UNJUDGED and "I cannot tell" in rows["g3"]["note"]
    assert "source" not in rows["g2"] and rows["g2"]["verdict"] == "bad"  # had a verdict: not asked
    assert "no retrieved documents" in rows["g8"]["note"] and "no-answer" in rows["n1"]["note"]
    assert data["meta"]["judge"] == {"endpoint": server["url"] + "/chat/completions", "model": "qwen2.5-7b-instruct",
                                     "key_env": "RAGAUGE_JUDGE_API_KEY", "asked": 4, "good": 2, "bad": 1,
                                     "undecided": 1, "failed": 0, "not_in_corpus": 0}
    # what the server received: four calls, each with the key, the model and only the top-k documents
    assert server["calls"] == 4 and set(server["paths"]) == {"/v1/chat/completions"}
    assert all(h["Authorization"] == f"Bearer {KEY}" for h in server["headers"])
    first = server["bodies"][0]
    assert first["model"] == "qwen2.5-7b-instruct" and first["temperature"] == 0 and first["stream"] is False
    message = _user_message(first)
    assert "how do i reset my vpn token" in message and "choose Reset token" in message
    assert "[1] vpn: VPN tokens" in message and "Desk phones" not in message  # k=1: the second hit is not shown
    assert KEY not in result.output + out.read_text(encoding="utf-8")


def test_the_text_report_names_the_judge_and_never_the_key(tmp_path: Path) -> None:
    with openai_server(REPLIES) as server:
        result = CliRunner().invoke(cli, [
            "attribute", str(GOLDEN), "--run", str(RUN), "--answers", str(_answers(tmp_path)), "--corpus",
            str(CORPUS), "--judge-endpoint", server["url"], "--judge-model", "m"], env={"RAGAUGE_JUDGE_API_KEY": KEY})
    assert result.exit_code == 0, result.output
    assert "judge m at http://127.0.0.1" in result.stdout and "asked 4, good 2, bad 1, undecided 1" in result.stdout
    assert KEY not in result.output


@pytest.mark.parametrize("key", [KEY, "p@ss/w0rd+1=2&x", "sk-proj-AbC/dEf+GhI=jKl%20mNo"])
def test_a_401_that_quotes_the_key_shows_it_hidden(tmp_path: Path, key: str) -> None:
    with openai_server(REPLIES, mode="denied") as server:
        result = CliRunner().invoke(cli, [
            "attribute", str(GOLDEN), "--run", str(RUN), "--answers", str(_answers(tmp_path)), "--corpus",
            str(CORPUS), "--judge-endpoint", server["url"], "--judge-model", "m"], env={"RAGAUGE_JUDGE_API_KEY": key})
        assert server["headers"][0]["Authorization"] == f"Bearer {key}"  # the real key was sent
    assert result.exit_code == 2 and "401" in result.stderr and "***" in result.stderr, result.output
    assert "Traceback" not in result.output and "RAGAUGE_JUDGE_API_KEY" in result.stderr
    assert key not in result.output


def test_a_key_no_header_can_carry_is_one_error_that_does_not_echo_it(tmp_path: Path) -> None:
    with openai_server(REPLIES) as server:
        result = CliRunner().invoke(cli, [
            "attribute", str(GOLDEN), "--run", str(RUN), "--answers", str(_answers(tmp_path)), "--corpus",
            str(CORPUS), "--judge-endpoint", server["url"], "--judge-model", "m"],
            env={"RAGAUGE_JUDGE_API_KEY": "sk-wörd-1234"})
        assert server["calls"] == 0
    assert result.exit_code == 2 and "cannot carry" in result.stderr and "wörd" not in result.output


def test_transient_failures_are_retried(tmp_path: Path) -> None:
    with openai_server(REPLIES, fail_first=2) as server:
        a = ragauge.attribute(GOLDEN, RUN, ANSWERS[:1], corpus=CORPUS,
                              judge=JudgeOptions(server["url"], "m", retries=2, backoff=0))
    assert server["calls"] == 3 and a.overall.cells[FOUND_GOOD] == ("g1",)


def test_a_question_whose_calls_all_failed_has_no_verdict_and_says_why(tmp_path: Path) -> None:
    with openai_server(REPLIES, fail_first=2) as server:  # the first question's two calls fail, not the rest
        a = ragauge.attribute(GOLDEN, RUN, ANSWERS[:2], corpus=CORPUS,
                              judge=JudgeOptions(server["url"], "m", retries=1, backoff=0))
    row = {r.id: r for r in a.questions}
    assert row["g1"].cell == UNJUDGED and "503" in (row["g1"].note or "")
    assert row["g5"].cell == FOUND_BAD and a.meta["judge"]["failed"] == 1


def test_every_call_failing_is_one_error(tmp_path: Path) -> None:
    with openai_server(REPLIES, fail_first=100) as server, pytest.raises(InputError, match="every call"):
        ragauge.attribute(GOLDEN, RUN, ANSWERS[:2], corpus=CORPUS,
                          judge=JudgeOptions(server["url"], "m", retries=1, backoff=0))


def test_a_dead_server_is_given_up_after_three_questions_not_all() -> None:
    with openai_server(REPLIES, fail_first=100) as server:
        with pytest.raises(InputError, match="first 3 calls"):
            ragauge.attribute(GOLDEN, RUN, ANSWERS, corpus=CORPUS,
                              judge=JudgeOptions(server["url"], "m", retries=0, backoff=0))
        assert server["calls"] == 3  # four questions to judge; the fourth is never asked


def test_a_server_that_does_not_answer_in_time(tmp_path: Path) -> None:
    with openai_server(REPLIES, delay=1.0) as server, pytest.raises(InputError) as err:
        ragauge.attribute(GOLDEN, RUN, ANSWERS[:1], corpus=CORPUS,
                          judge=JudgeOptions(server["url"], "m", timeout=0.2, retries=0))
    assert "did not answer within 0.2 s" in str(err.value)


def test_nothing_listening_is_one_error_without_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again when the block ends: nothing listens there
    monkeypatch.setenv("RAGAUGE_JUDGE_API_KEY", KEY)
    with pytest.raises(InputError) as err:
        ragauge.attribute(GOLDEN, RUN, ANSWERS, corpus=CORPUS,
                          judge=JudgeOptions(f"http://127.0.0.1:{port}", "m", retries=1, backoff=0))
    assert "the first 3 calls to the judge all failed" in str(err.value) and "cannot reach" in str(err.value)
    assert KEY not in str(err.value)


def test_a_server_that_is_not_openai_compatible_is_one_error() -> None:
    with openai_server(REPLIES, mode="html") as server, pytest.raises(InputError, match="chat completion") as err:
        ragauge.attribute(GOLDEN, RUN, ANSWERS[:1], corpus=CORPUS, judge=JudgeOptions(server["url"], "m"))
    assert "/v1" in (err.value.hint or "")


def test_bad_answers_are_refused_before_any_call() -> None:
    with openai_server(REPLIES) as server:
        with pytest.raises(InputError, match="no threshold"):
            ragauge.attribute(GOLDEN, RUN, [*ANSWERS, {"id": "g4", "score": 0.4}], corpus=CORPUS,
                              judge=JudgeOptions(server["url"], "m"))
        assert server["calls"] == 0


def test_the_wrong_corpus_is_refused_before_any_call() -> None:
    with openai_server(REPLIES) as server:
        with pytest.raises(InputError, match="corpus holds none"):
            ragauge.attribute(GOLDEN, RUN, ANSWERS, corpus={"other": "text"}, judge=JudgeOptions(server["url"], "m"))
        assert server["calls"] == 0


def test_a_python_function_can_judge() -> None:
    seen: list[tuple[str, str, list[str]]] = []

    def strict(question: str, answer: str, documents: list[tuple[str, str, str]]) -> bool:
        seen.append((question, answer, [d[0] for d in documents]))
        return "Reset token" in answer

    a = ragauge.attribute(GOLDEN, RUN, ANSWERS, k=2, corpus=CORPUS, judge=strict)
    assert a.overall.cells[FOUND_GOOD] == ("g1",) and a.overall.cells[FOUND_BAD] == ("g3", "g5", "g7")
    assert seen[0] == ("how do i reset my vpn token", ANSWERS[0]["answer"], ["vpn", "x"])
    assert a.meta["judge"]["callable"] == "strict" and {r.source for r in a.questions if r.id == "g1"} == {
        "judge:strict"}


def test_the_judge_needs_a_corpus_and_a_model_and_an_http_url() -> None:
    with pytest.raises(InputError, match="needs the corpus"):
        ragauge.attribute(GOLDEN, RUN, ANSWERS, judge=JudgeOptions("http://localhost:8080", "m"))
    with pytest.raises(InputError, match="at most 20"):
        ragauge.attribute(GOLDEN, RUN, ANSWERS, k=21, corpus=CORPUS, judge=JudgeOptions("http://localhost:8080", "m"))
    with pytest.raises(InputError, match="http"):
        JudgeOptions("localhost:8080", "m")
    with pytest.raises(InputError, match="model"):
        JudgeOptions("http://localhost:8080", " ")
    with pytest.raises(InputError):
        JudgeOptions("http://localhost:8080", "m", timeout=0)
    result = CliRunner().invoke(cli, ["attribute", str(GOLDEN), "--run", str(RUN), "--answers",
                                      str(DATA / "answers.jsonl"), "--judge-endpoint", "http://localhost:1"])
    assert result.exit_code == 2 and "go together" in result.stderr


@pytest.mark.parametrize(("endpoint", "url"), [
    ("http://localhost:8080", "http://localhost:8080/v1/chat/completions"),
    ("http://localhost:8080/", "http://localhost:8080/v1/chat/completions"),
    ("http://localhost:11434/v1", "http://localhost:11434/v1/chat/completions"),
    ("https://api.example.com/v1/chat/completions", "https://api.example.com/v1/chat/completions"),
    ("https://gw.example.com/openai/v1?api-version=2", "https://gw.example.com/openai/v1/chat/completions?api-version=2"),
])
def test_the_chat_completions_url(endpoint: str, url: str) -> None:
    assert JudgeOptions(endpoint, "m").url == url


def test_the_recorded_endpoint_hides_secrets_in_the_url() -> None:
    described = JudgeOptions("https://gw.example.com/v1?api_key=sEcReT123", "m").describe()
    assert "sEcReT123" not in json.dumps(described) and "***" in described["endpoint"]


@pytest.mark.parametrize(("reply", "verdict"), [
    ("SUPPORTED", "good"), ("Supported.", "good"), ("**SUPPORTED**", "good"), ("UNSUPPORTED", "bad"),
    ("Not supported: the documents do not say so.", "bad"), ("unsupported - no document mentions it", "bad"),
    ("<think>maybe unsupported? no.</think>\nSUPPORTED", "good"),
    ("Verdict: SUPPORTED", "good"), ("The answer is UNSUPPORTED by the documents.", "bad"),
    ("I cannot tell.", None), ("", None), ("Partly supported, partly unsupported.", None),
    ("<think>supported</think>", None), ("SUPPORTEDNESS unclear", None),
])
def test_reading_the_reply(reply: str, verdict: str | None) -> None:
    assert read_reply(reply) == verdict
