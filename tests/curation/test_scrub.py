from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.curation.detectors import phone_finder
from ragauge.curation.scrub import PLACEHOLDER, ScrubOptions, scrub_records, scrub_text

PII = [
    "john.doe@acme.com", "JOHN.DOE@ACME.COM", "<jane@x.org>", "(415) 555-0132", "415-555-0132",
    "+44 20 7946 0958", "10.0.0.5", "192.168.1.254:8443", "2001:db8::1", "4111 1111 1111 1111",
    "5555-5555-5555-4444", "DE89 3704 0044 0532 0130 00", "GB82WEST12345698765432", "536-22-8741",
    "AKIAIOSFODNN7EXAMPLE", "ghp_R2d2C3poBb8Ll9Zz0Qq1Ww2Ee3Rr4Tt5Yy6Uu7", "token=Zx8kQ2vN7pL4mR9tY1wB6cD3",
    "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcDEF123_-x", "https://bob:s3cret@git.acme.com/r.git",
    "password=hunter2", "RCCMNL83S18D969H",
]
CLEAN = [
    "reset", "VPN", "printer", "10.0.19045.1", "0x80070005", "2024-03-15", "order", "2024551234", ":8443",
    "KB5034441", "4f2a9c1", "$1,299.99", "E-301", "12:30:45", "#", "ext.", "the", "(", ")", "@", ":", "-",
]
SEPARATORS = st.sampled_from([" ", ", ", " (", ") ", "\n", ": ", " and ", "", "-", "."])
fragment = st.one_of(st.sampled_from(PII), st.sampled_from(CLEAN),
                     st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12))


@st.composite
def texts(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.tuples(fragment, SEPARATORS), max_size=8))
    return "".join(a + b for a, b in parts)


@settings(max_examples=300, deadline=None)
@given(texts())
def test_scrubbing_is_idempotent(text: str) -> None:
    once = scrub_text(text)
    twice = scrub_text(once.text)
    assert twice.text == once.text and not twice.redactions


@settings(max_examples=300, deadline=None)
@given(texts())
def test_text_changes_only_where_something_was_detected(text: str) -> None:
    result = scrub_text(text)
    if not result.redactions:
        assert result.text == text
    # Rebuilding from the original and the redactions gives the scrubbed text: nothing else moved.
    rebuilt, cursor = [], 0
    for r in result.redactions:
        assert cursor <= r.start < r.end <= len(text)
        rebuilt += [text[cursor:r.start], r.placeholder]
        cursor = r.end
    assert "".join(rebuilt) + text[cursor:] == result.text


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(PII), st.sampled_from(PII), texts())
def test_same_value_same_placeholder_and_different_values_differ(a: str, b: str, filler: str) -> None:
    text = f"{a} then {filler!r} then {a}; also {b}"
    result = scrub_text(text)
    by_value: dict[str, set[str]] = {}
    for r in result.redactions:
        by_value.setdefault(text[r.start:r.end], set()).add(r.placeholder)
    assert all(len(p) == 1 for p in by_value.values())


def test_numbering_per_type_and_same_value_in_other_spelling() -> None:
    result = scrub_text("mail a@x.com, b@x.com and A@X.COM; call (415) 555-0132 or 415.555.0132")
    assert result.text == "mail <EMAIL_1>, <EMAIL_2> and <EMAIL_1>; call <PHONE_1> or <PHONE_1>"
    assert result.counts() == {"EMAIL": 3, "PHONE": 2}


def test_existing_placeholders_are_kept_and_their_numbers_not_reused() -> None:
    assert scrub_text("<EMAIL_1> wrote to c@x.com").text == "<EMAIL_1> wrote to <EMAIL_2>"


@pytest.mark.parametrize(("text", "expected"), [
    ("https://deploy:Tr0ub4dor&3@git.acme.com/x.git", "https://<URL_CREDENTIALS_1>@git.acme.com/x.git"),
    ("ssh to 10.0.0.5:22 and 2001:db8::1", "ssh to <IP_1>:22 and <IP_2>"),
    ("subnet 198.51.100.0/24", "subnet <IP_1>/24"),
    ("card 4111 1111 1111 1111 exp 12/26", "card <CARD_1> exp 12/26"),
    ("card 4111 1111 1111 1112", "card 4111 1111 1111 1112"),  # fails Luhn
    ("IBAN DE89 3704 0044 0532 0130 00 please", "IBAN <IBAN_1> please"),
    ("IBAN DE89 3704 0044 0532 0130 01", "IBAN DE89 3704 0044 0532 0130 01"),  # bad check digits
    ("SSN 536-22-8741 not 666-22-8741", "SSN <NATIONAL_ID_1> not 666-22-8741"),
    ("Authorization: Bearer abcdefghijklmnop1234", "Authorization: Bearer <SECRET_1>"),
    ("key=short", "key=short"),
    ("my token expired yesterday", "my token expired yesterday"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY----- leaked",
     "<SECRET_1> leaked"),
])
def test_examples(text: str, expected: str) -> None:
    assert scrub_text(text).text == expected


def test_spans_point_into_the_original_and_reports_hold_no_values() -> None:
    text = "mail john@acme.com or call 415-555-0132"
    result = scrub_text(text)
    assert [(r.kind, text[r.start:r.end]) for r in result.redactions] == [
        ("EMAIL", "john@acme.com"), ("PHONE", "415-555-0132")]
    for r in result.redactions:
        assert set(r.to_dict()) == {"type", "placeholder", "start", "end"}


def test_phone_regions_option() -> None:
    text = "UK mobile 07911 123456"
    assert scrub_text(text, [phone_finder(("US",))]).text == text
    assert scrub_text(text, [phone_finder(("GB",))]).text == "UK mobile <PHONE_1>"


def test_scrub_records_keeps_other_fields_and_reports_per_line() -> None:
    records = [(1, {"id": "q1", "query": "mail a@x.com", "notes": "from b@x.com", "relevant": ["d"]}),
               (3, {"id": "q2", "query": "clean", "relevant": []})]
    objects, reports, summary = scrub_records(records, ScrubOptions(fields=("query", "notes")))
    assert objects[0] == {"id": "q1", "query": "mail <EMAIL_1>", "notes": "from <EMAIL_2>", "relevant": ["d"]}
    assert objects[1] == records[1][1]
    assert [r.to_dict() for r in reports] == [{
        "id": "q1", "line": 1, "counts": {"EMAIL": 2},
        "redactions": {"query": [{"type": "EMAIL", "placeholder": "<EMAIL_1>", "start": 5, "end": 12}],
                       "notes": [{"type": "EMAIL", "placeholder": "<EMAIL_2>", "start": 5, "end": 12}]}}]
    assert (summary.lines, summary.changed, dict(summary.counts)) == (2, 1, {"EMAIL": 2})
    assert PLACEHOLDER.fullmatch("<URL_CREDENTIALS_12>")


def test_distinct_values_stay_distinct_across_the_questions_of_a_file() -> None:
    """Two different addresses in two questions both became <EMAIL_1>; the same address in two
    questions keeps one placeholder."""
    from ragauge.curation.scrub import ScrubOptions, scrub_records

    records = [(1, {"id": "q1", "query": "mail ann@example.com"}), (2, {"id": "q2", "query": "mail bob@example.org"}),
               (3, {"id": "q3", "query": "again ANN@example.com"})]
    objects, _, summary = scrub_records(records, ScrubOptions())
    assert [o["query"] for o in objects] == ["mail <EMAIL_1>", "mail <EMAIL_2>", "again <EMAIL_1>"]
    assert summary.counts == {"EMAIL": 3}


def test_an_aws_secret_access_key_named_nearby_is_hidden() -> None:
    """golden scrub missed an AWS secret access key written in a sentence (not as key=value)."""
    text = "my AWS secret is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, rotate it"
    assert scrub_text(text).text == "my AWS secret is <SECRET_1>, rotate it"
    sha = "the sha1 of the secret file is 2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"  # one case only: a hash
    assert scrub_text(sha).text == sha


def test_a_field_that_is_not_text_is_said_not_skipped_in_silence() -> None:
    """golden scrub --fields notes left a list or a number in 'notes' as it was, without a word."""
    records = [(1, {"id": "q1", "query": "x", "notes": ["mail ann@example.com", "ok"]}),
               (2, {"id": "q2", "query": "y", "notes": {"by": "bob@example.org"}}),
               (3, {"id": "q3", "query": "z", "notes": 7})]
    objects, reports, summary = scrub_records(records, ScrubOptions(fields=("query", "notes")))
    assert objects[0]["notes"] == ["mail <EMAIL_1>", "ok"] and list(reports[0].fields) == ["notes[0]"]
    assert summary.not_text == {"notes": 2}
    assert "field 'notes' is not text on 2 line(s): not scrubbed" in summary.describe()
