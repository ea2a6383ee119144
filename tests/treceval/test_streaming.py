"""trec-eval over a run read block by block gives what reading it whole gives: every line, every
error. Tiny blocks put every boundary case (a query split between blocks, scattered lines, no
final newline, CRLF, comments, an empty file) through the streaming path."""

from __future__ import annotations

import os
import random
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.cli.main import cli
from ragauge.errors import InputError
from ragauge.formats import blocks
from ragauge.formats.blocks import streams, trec_run_blocks
from ragauge.formats.trec import read_qrels, read_trec_run
from ragauge.treceval.runner import TrecEvalOptions, evaluate_trec, trec_eval

TINY = (1, 7, 40, 300, 1 << 20)
OPTIONS = [TrecEvalOptions(["all_trec"], per_query=True), TrecEvalOptions(["all_trec"], per_query=True, complete=True),
           TrecEvalOptions(["official", "ndcg_cut.3", "P.2"], max_docs=3, rel_level=2)]


def both(qrels: Path, run: Path, options: TrecEvalOptions, block: int) -> tuple[object, object]:
    """(whole, streamed): each a TrecEvalResult, or the InputError text raised."""
    def outcome(read: object) -> object:
        try:
            return evaluate_trec(read_qrels(qrels), read(), options)  # type: ignore[operator]
        except InputError as exc:
            return str(exc)

    return outcome(lambda: read_trec_run(run)), outcome(lambda: trec_run_blocks(run, block))


def random_run(rng: random.Random, *, scatter: bool, crlf: bool, comments: bool, final_newline: bool,
               duplicates: bool) -> tuple[str, str]:
    """A TREC run and qrels over a few queries: ties, tabs, maybe scattered lines and duplicates."""
    lines, qrels = [], []
    queries = [f"q{i}" for i in rng.sample(range(30), rng.randint(1, 8))]
    for q in queries:
        docs = rng.sample([f"d{j}" for j in range(40)], rng.randint(1, 12))
        if duplicates and rng.random() < 0.3:
            docs.append(rng.choice(docs))
        for rank, d in enumerate(docs, 1):
            score = rng.choice([1.0, 2.0, 2.5, 3.0, float(rng.randint(0, 9))])
            sep = "\t" if rng.random() < 0.1 else " "
            lines.append(f"{q} Q0 {d}{sep}{rank} {score} tag{rng.randint(0, 2)}")
        for d in rng.sample(docs, min(len(docs), rng.randint(0, 4))):
            qrels.append(f"{q} 0 {d} {rng.randint(0, 3)}")
    qrels.append("q99 0 d1 1")  # judged, never retrieved
    if scatter:
        rng.shuffle(lines)
    if comments:
        lines.insert(rng.randint(0, len(lines)), "# a comment")
    end = "\r\n" if crlf else "\n"
    text = end.join(lines) + (end if final_newline else "")
    return text, "\n".join(dict.fromkeys(qrels)) + "\n"


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), scatter=st.booleans(), crlf=st.booleans(), comments=st.booleans(),
       final_newline=st.booleans(), duplicates=st.booleans(), block=st.sampled_from(TINY),
       option=st.sampled_from(range(len(OPTIONS))))
def test_streamed_output_equals_whole(tmp_path_factory: pytest.TempPathFactory, seed: int, scatter: bool, crlf: bool,
                                      comments: bool, final_newline: bool, duplicates: bool, block: int,
                                      option: int) -> None:
    tmp = tmp_path_factory.mktemp("run")
    text, qrels = random_run(random.Random(seed), scatter=scatter, crlf=crlf, comments=comments,
                             final_newline=final_newline, duplicates=duplicates)
    (tmp / "run").write_bytes(text.encode())
    (tmp / "qrels").write_text(qrels)
    whole, streamed = both(tmp / "qrels", tmp / "run", OPTIONS[option], block)
    assert streamed == whole


@pytest.mark.parametrize("block", TINY)
@pytest.mark.parametrize("text", [
    "",
    "# only a comment\n",
    "\n\n",
    "1 Q0 a 1 2.0 x",  # no final newline
    "1 Q0 a 1 2.0 x\r\n1 Q0 b 2 1.0 x\r\n2 Q0 a 1 1.0 y\r\n",
    "1 Q0 a 1 2.0 x\n2 Q0 a 1 1.0 x\n1 Q0 b 2 3.0 x\n",  # query 1 scattered
    "1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n2 Q0 a 1 1.0 x\n1 Q0 a 3 0.5 x\n",  # a duplicate only once gathered
    "2 Q0 a 1 2.0 x\n2 Q0 a 2 1.0 x\n1 Q0 b 1 1.0 x\n1 Q0 b 2 0.5 x\n",  # duplicates in two queries: first by id
    "1 Q0 a 1 2.0 x\n1 Q0 b 2\n",  # short line
    "1 Q0 a 1 2.0 x\n2 Q0 b 2 high x\n",  # bad number
    "1 Q0 a 1 2.0 x\n2 Q0 b 2 nan x\n2 Q0 c 2 oops x\n",  # a non-finite score, then a malformed line
    "1 Q0 a 1 2.0 x\n1 Q0 a 2 1.0 x\n2 Q0 b 2 inf x\n",  # a duplicate, then a non-finite score
    "\ufeff1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n",  # BOM
    "1 Q0 a 1 2.0 x\n\xff Q0 b 2 1.0 x\n",  # not UTF-8 (written as latin-1)
])
def test_boundary_cases(tmp_path: Path, block: int, text: str) -> None:
    (tmp_path / "run").write_bytes(text.encode("latin-1") if "\xff" in text else text.encode())
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 2\n2 0 a 1\n3 0 z 1\n")
    for options in OPTIONS:
        whole, streamed = both(tmp_path / "qrels", tmp_path / "run", options, block)
        assert streamed == whole


def test_the_cli_streams_a_run_above_the_threshold(tmp_path: Path, trec_dir: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    args = ["trec-eval", "-m", "all_trec", "-q", "-c", str(trec_dir / "qrels.test"), str(trec_dir / "results.test")]
    whole = CliRunner().invoke(cli, args)
    monkeypatch.setattr(blocks, "STREAM_BYTES", 0)
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 500)
    assert streams(trec_dir / "results.test")
    streamed = CliRunner().invoke(cli, args)
    assert streamed.exit_code == whole.exit_code == 0
    assert streamed.stdout == whole.stdout
    assert len(whole.stdout.splitlines()) > 100


def test_small_files_are_read_whole(trec_dir: Path) -> None:
    assert not streams(trec_dir / "results.test")
    assert not streams(trec_dir / "no-such-file")
    assert streams(trec_dir / "results.test", threshold=0)


def feed(fifo: Path, text: str) -> threading.Thread:
    def write() -> None:
        with open(fifo, "w") as fh:
            fh.write(text)

    thread = threading.Thread(target=write)
    thread.start()
    return thread


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_is_read_as_it_flows(tmp_path: Path, trec_dir: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    text = (trec_dir / "results.test").read_text()
    thread = feed(fifo, text)
    assert streams(fifo)
    got = trec_eval(trec_dir / "qrels.test", fifo, TrecEvalOptions(["all_trec"], per_query=True))
    thread.join()
    (tmp_path / "file").write_text(text)
    assert got == trec_eval(trec_dir / "qrels.test", tmp_path / "file", TrecEvalOptions(["all_trec"], per_query=True))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_scattered_lines_on_a_pipe_are_a_clear_error(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    (tmp_path / "qrels").write_text("1 0 a 1\n")
    thread = feed(fifo, "1 Q0 a 1 2.0 x\n2 Q0 a 1 1.0 x\n1 Q0 b 2 3.0 x\n")
    with pytest.raises(InputError) as info:
        trec_eval(tmp_path / "qrels", fifo)
    thread.join()
    assert info.value.where == str(fifo)
    assert "query '1' are scattered" in info.value.message
    assert "sort -s -k1,1" in (info.value.hint or "")


def test_a_query_longer_than_a_block_stays_whole(tmp_path: Path) -> None:
    lines = [f"1 Q0 d{i} {i} {1000 - i} x\n" for i in range(200)] + ["2 Q0 d1 1 1.0 x\n"]
    (tmp_path / "run").write_text("".join(lines))
    got = [(b.qid.unique().to_pylist(), len(b.qid)) for b in trec_run_blocks(tmp_path / "run", 64)]
    assert got == [(["1"], 200), (["2"], 1)]
