"""Person names through Presidio (the optional ``ner`` extra) and a spaCy model the user installs.

ragauge never downloads a model: Presidio would fetch a missing spaCy model on first use, so the
model is checked first and a missing one is an error with the command that installs it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ragauge.curation import NER_MODEL
from ragauge.curation.detectors import Detection, Detector
from ragauge.errors import InputError, MissingExtra, flag

DEFAULT_MODEL = NER_MODEL
"""The spaCy model used unless told (its one home: ``ragauge.curation.NER_MODEL``)."""


def person_finder(model: str = DEFAULT_MODEL, score_threshold: float = 0.5) -> Detector:
    """A detector of person names (Presidio's PERSON entity, English).

    Raises MissingExtra when presidio-analyzer (or spaCy) is not installed, and InputError when the
    spaCy ``model`` is neither an installed package nor a path.
    """
    try:
        import spacy.util  # type: ignore[import-not-found, unused-ignore]
        from presidio_analyzer import AnalyzerEngine  # type: ignore[import-not-found, unused-ignore]
        from presidio_analyzer.nlp_engine import SpacyNlpEngine  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise MissingExtra("presidio-analyzer", "ner", f"{flag('ner')} (person names)") from None
    if not (spacy.util.is_package(model) or Path(model).exists()):
        raise InputError(
            f"{flag('ner')} needs the spaCy model {model!r}, which is not installed",
            hint=f"install it with: python -m spacy download {model}  (or name an installed model with "
                 f"{flag('ner_model')})",
        )
    engine = SpacyNlpEngine(models=[{"lang_code": "en", "model_name": model}])
    analyzer = AnalyzerEngine(nlp_engine=engine, supported_languages=["en"])

    def find_persons(text: str) -> Iterator[Detection]:
        for result in analyzer.analyze(text, language="en", entities=["PERSON"], score_threshold=score_threshold):
            yield Detection(result.start, result.end, "PERSON", text[result.start:result.end].casefold())

    return find_persons
