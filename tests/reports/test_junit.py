"""The JUnit report: valid XML, one test case per answerable question, failures by the top-k rule."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET

from ragauge.evaluation.result import Evaluation
from ragauge.reports.render import render


def parse(evaluation: Evaluation) -> ET.Element:
    return ET.fromstring(render(evaluation, "junit").encode("utf-8"))


def cases(root: ET.Element) -> dict[str, ET.Element]:
    return {c.get("name", ""): c for c in root.iter("testcase")}


def test_counts_and_cases(evaluation: Evaluation) -> None:
    root = parse(evaluation)
    suite = root.find("testsuite")
    assert suite is not None
    found = cases(root)
    assert set(found) == {q.id for q in evaluation.queries}  # answerable only: q3 (no-answer) is not a case
    failures = [n for n, c in found.items() if c.find("failure") is not None]
    errors = [n for n, c in found.items() if c.find("error") is not None]
    assert sorted(failures) == ["q4", "q6", "q7"]  # k = 3: q6's first relevant is at rank 4
    assert errors == ["q8"]
    for node in (root, suite):
        assert node.get("tests") == "7" and node.get("failures") == "3" and node.get("errors") == "1"
    assert found["q5"].get("classname") == "net" and found["q4"].get("classname") == "ragauge"


def test_failure_message_has_the_details(evaluation: Evaluation) -> None:
    failure = cases(parse(evaluation))["q6"].find("failure")
    assert failure is not None
    message = failure.get("message", "")
    assert "no relevant document in the top 3" in message
    assert ("expected: fan-guide" in message
            and "returned (top 3, + = relevant): battery-faq, fw-notes, warranty" in message)
    assert "\n" not in message and "Second line of the question" in message


def test_user_text_is_escaped(evaluation: Evaluation) -> None:
    text = render(evaluation, "junit")
    assert "<script>" not in text
    root = parse(evaluation)
    q5 = cases(root)["q5"]
    assert q5.find("failure") is None  # kb|pipe at rank 2


def test_without_cutoffs_a_hit_anywhere_passes(evaluation: Evaluation) -> None:
    no_k = dataclasses.replace(evaluation, metrics=("mrr",), summary={"mrr": evaluation.summary["mrr"]})
    found = cases(parse(no_k))
    assert found["q6"].find("failure") is None  # rank 4 counts without a cutoff
    assert found["q7"].find("failure") is not None


def test_characters_xml_cannot_hold_are_replaced(evaluation: Evaluation) -> None:
    q = dataclasses.replace(evaluation.queries[0], id="bad\x00id\x1b", query="nul \x00 and esc \x1b",
                            first_relevant_rank=None)
    broken = dataclasses.replace(evaluation, queries=(q,))
    root = parse(broken)
    (case,) = list(root.iter("testcase"))
    assert case.get("name") == "bad\\x00id\\x1b"

