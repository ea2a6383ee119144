"""The text rules of the failure patterns: how a query and a document are cut into tokens, which
query tokens are identifiers, and how much of a query's wording a document shares.

One tokenisation serves every text pattern. The BM25 retriever's tokenizer (bm25s) does not fit:
its words are ``\\w\\w+`` runs, so ``E-301`` loses its ``E`` and ``5.7.1`` vanishes, and loading it
costs a third of a second (scipy).

- **token**: a maximal run of letters and digits, possibly joined by single ``- . _ / :``
  characters (``E-301``, ``0x80070005``, ``5.7.1``, ``KB-1042``, ``sign-in``), compared
  case-folded (after Unicode NFKC).
- **identifier-like token** (in the query): contains a digit and a letter (``E-301``,
  ``AADSTS50076``, ``v2``), or is a number of at least 3 digits (``9002``), or contains a digit
  and a joining character (``5.7.1``), or has a capital letter right after a small one as
  written (``TunnelPoint``, ``iPhone``). One- and two-digit numbers (``2 weeks``) and words in
  capitals (``VPN``) are not.
- **occurs in a text**: the token, case-folded, appears in the case-folded text with no letter or
  digit right before or after it (``E-301`` occurs in "codes E-301/E-302", not in "E-3012").
- **content word** (of a query): a token of at least 2 characters that is not a stop word,
  stemmed with the Snowball English stemmer when it is all letters. A content word is in a text
  when the text has a token with the same stem, or, for a joined token (``sign-in``), when each of
  its parts is.
- **overlap**: the share of a query's content words that are in a text (0.0 to 1.0).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache

from ragauge.data.ids import section_parent

TOKEN = re.compile(r"[^\W_]+(?:[-._/:][^\W_]+)*")
_JOINERS = re.compile(r"[-._/:]")
_INNER_CAPITAL = re.compile(r"[a-z][A-Z]")

STOP_WORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on
once only or other our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves
im ive id ill dont didnt doesnt cant cannot wont isnt arent wasnt werent couldnt shouldnt wouldnt hasnt havent
get got also still want need please thanks hi hello anymore
""".split())
"""English function words, question words and the contractions questions are typed with."""


def fold(text: str) -> str:
    """NFKC, case-folded: the form every comparison uses."""
    return unicodedata.normalize("NFKC", text).casefold()


def tokens(text: str) -> list[str]:
    """The tokens of ``text`` as written (not folded), in order."""
    return TOKEN.findall(unicodedata.normalize("NFKC", text))


def is_identifier(token: str) -> bool:
    """Whether a query token (as written) is identifier-like (see the module docstring)."""
    has_digit = any(c.isdigit() for c in token)
    if has_digit and (any(c.isalpha() for c in token) or _JOINERS.search(token) or len(token) >= 3):
        return True
    return _INNER_CAPITAL.search(token) is not None


def identifiers(query: str) -> list[str]:
    """The identifier-like tokens of ``query``, each once, in order, as written."""
    return list(dict.fromkeys(t for t in tokens(query) if is_identifier(t)))


@lru_cache(maxsize=64)
def _bounded(term: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![^\W_]){re.escape(term)}(?![^\W_])")


def occurs(token: str, folded_text: str) -> bool:
    """Whether ``token`` occurs in a text already passed through :func:`fold`."""
    return _bounded(fold(token)).search(folded_text) is not None


def _stemmer() -> Callable[[str], str]:
    import Stemmer  # PyStemmer, a dependency of ragauge; one per call (it is not thread-safe)

    return Stemmer.Stemmer("english").stemWord  # type: ignore[no-any-return]


class TextAnalyzer:
    """The analysis of one evaluation's texts: content words of queries, stems of documents,
    each computed once."""

    def __init__(self) -> None:
        self._stem = _stemmer()
        self._stems: dict[str, frozenset[str]] = {}

    def _word(self, token: str) -> str:
        return self._stem(token) if token.isalpha() else token

    def content_words(self, query: str) -> list[str]:
        """The query's content words (folded, stemmed, each once, in order)."""
        words = (fold(t) for t in tokens(query))
        return list(dict.fromkeys(self._word(w) for w in words if len(w) >= 2 and w not in STOP_WORDS))

    def stems(self, doc_id: str, text: str) -> frozenset[str]:
        """Every token of a document's text and each part of its joined tokens, folded and stemmed."""
        got = self._stems.get(doc_id)
        if got is None:
            out: set[str] = set()
            for token in tokens(text):
                word = fold(token)
                out.add(self._word(word))
                if _JOINERS.search(word):
                    out.update(self._word(part) for part in _JOINERS.split(word) if part)
            got = self._stems[doc_id] = frozenset(out)
        return got

    def overlap(self, words: list[str], stems: frozenset[str]) -> float:
        """The share of ``words`` (from :meth:`content_words`) in a text with these ``stems``."""
        if not words:
            return 1.0

        def present(word: str) -> bool:
            parts = [p for p in _JOINERS.split(word) if p] if _JOINERS.search(word) else []
            return word in stems or bool(parts) and all(self._word(p) in stems for p in parts)

        return sum(1 for w in words if present(w)) / len(words)


class Texts:
    """Document texts by id, as an evaluation looks them up: a section id (``doc#part``) missing
    from the corpus falls back to its document's text. Folded texts are kept once computed."""

    def __init__(self, texts: Mapping[str, str]) -> None:
        self._texts = texts
        self._folded: dict[str, str] = {}
        self.analyzer = TextAnalyzer()

    def ids(self) -> Iterable[str]:
        """The ids the corpus holds (the index's documents)."""
        return self._texts.keys()

    def text(self, doc_id: str) -> str | None:
        """The text of ``doc_id`` (of its document, for a section the corpus lacks); None if neither."""
        text = self._texts.get(doc_id)
        if text is None:
            parent = section_parent(doc_id)
            text = self._texts.get(parent) if parent else None
        return text

    def folded(self, doc_id: str) -> str | None:
        """:meth:`text` passed through :func:`fold`."""
        got = self._folded.get(doc_id)
        if got is None:
            text = self.text(doc_id)
            if text is None:
                return None
            got = self._folded[doc_id] = fold(text)
        return got
