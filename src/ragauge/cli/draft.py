"""``ragauge golden draft``: optional LLM drafting of golden questions for sampled corpus sections."""

from __future__ import annotations

from pathlib import Path

import click

from ragauge.api.defaults import (
    CALL_TIMEOUT,
    DEFAULT_SEED,
    DRAFT_KEY_ENV,
    DRAFT_LANGUAGE,
    DRAFT_PER_DOCUMENT,
    DRAFT_QUESTIONS,
    MIN_WORDS,
)
from ragauge.errors import InputError


@click.command("draft")
@click.option("--corpus", type=click.Path(path_type=Path), required=True,
              help="Corpus to sample sections from (JSONL, BEIR corpus.jsonl(.gz) or a folder); ids doc#section "
                   "group sections by document.")
@click.option("--endpoint", help="An OpenAI-compatible endpoint, e.g. http://localhost:8080/v1 (llama.cpp), "
                                 f"http://localhost:11434/v1 (Ollama); key from ${DRAFT_KEY_ENV}.")
@click.option("--model", help="The model the endpoint runs.")
@click.option("-n", "n", type=int, default=DRAFT_QUESTIONS, show_default=True,
              help="Questions to draft (sections to sample).")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="Candidates JSONL to write.")
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True,
              help="Seed of the sample (and sent to the endpoint): the same seed, the same sections.")
@click.option("--per-document", type=int, default=DRAFT_PER_DOCUMENT, show_default=True,
              help="At most this many sections per document.")
@click.option("--language", default=DRAFT_LANGUAGE, show_default=True,
              help="Language of the questions (a code or a name).")
@click.option("--min-words", type=int, default=MIN_WORDS, show_default=True,
              help="Skip sections with fewer words than this: too little to ask about.")
@click.option("--golden", "against", type=click.Path(path_type=Path), multiple=True,
              help="Golden set (or pending candidates) to deduplicate against; repeatable.")
@click.option("--api-key-env", default=DRAFT_KEY_ENV, show_default=True,
              help="Environment variable holding the endpoint's key (never written anywhere).")
@click.option("--timeout", type=float, default=CALL_TIMEOUT, show_default=True, help="Seconds per call.")
def draft_command(corpus: Path, endpoint: str | None, model: str | None, n: int, output: Path, seed: int,
                  per_document: int, language: str, min_words: int, against: tuple[Path, ...], api_key_env: str,
                  timeout: float) -> None:
    """Optional: have an LLM draft questions for sampled corpus sections, as candidates for review.

    Samples N sections (stratified across documents, deterministic for --seed, skipping short
    ones) and asks an OpenAI-compatible chat endpoint for a question each section answers. Each
    draft is labelled with its section ("relevant": {SECTION: 1}), "source": "synthetic", the
    model and the endpoint's host; drafts that copy the section (8+ words in a row, or 5+ making
    up half the question) are flagged in "leakage". Review them (set "status": "rejected" to drop
    one), then 'golden merge'. 'eval' scores synthetic questions apart from the others.
    ragauge never needs an LLM: without --endpoint this is an error.

    \b
    Example:
      ragauge golden draft --corpus sections.jsonl --endpoint http://localhost:8080/v1 \\
          --model qwen2.5-7b-instruct -n 100 -o drafts.jsonl --golden golden.jsonl
    """
    from ragauge import DraftOptions
    from ragauge.api.golden import draft_golden
    from ragauge.core.escape import terminal

    if endpoint is None or model is None:
        raise InputError("golden draft asks an LLM to write the questions: it needs --endpoint and --model",
                         hint="e.g. --endpoint http://localhost:8080/v1 --model qwen2.5-7b-instruct (a llama.cpp, "
                              "Ollama or vLLM server, or a hosted OpenAI-compatible API). Without an LLM: "
                              "'golden add --from-log' or 'golden pool'")
    result = draft_golden(corpus, DraftOptions(endpoint, model, api_key_env=api_key_env, timeout=timeout), output,
                          n=n, seed=seed, per_document=per_document, language=language, min_words=min_words,
                          against=against)
    for line in result.report.lines():
        click.echo(line, err=True)
    click.echo(f"wrote {len(result.drafts)} draft(s) to {terminal(output)}; review them, then: "
               f"ragauge golden merge GOLDEN {terminal(output)} -o GOLDEN", err=True)
