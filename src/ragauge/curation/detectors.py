"""Detectors of personal and secret data in short texts (golden-set questions).

Each detector finds candidate spans and keeps only those a maintained library (or a checksum)
confirms: ``phonenumbers`` for phone numbers, :mod:`ipaddress` for IP addresses, a Luhn check and
the card networks' published number ranges for payment cards, ``python-stdnum`` for IBANs and
national ids. Regexes only propose candidates; each is small and says what it matches.

A :class:`Detection` carries a canonical ``key`` (an e-mail address lower-cased, a phone number in
E.164, a card's digits...) so that two spellings of one value get one placeholder. Keys live only
in memory; reports never contain them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

KINDS = ("URL_CREDENTIALS", "SECRET", "EMAIL", "IBAN", "CARD", "NATIONAL_ID", "IP", "PHONE", "PERSON")
"""Every kind, highest priority first: when two detections overlap, the higher kind wins, and
between equal kinds the longer span."""

PRIORITY = {kind: len(KINDS) - i for i, kind in enumerate(KINDS)}


@dataclass(frozen=True)
class Detection:
    """``text[start:end]`` is a value of ``kind``; ``key`` is its canonical form (never reported)."""

    start: int
    end: int
    kind: str
    key: str


Detector = Callable[[str], Iterator[Detection]]

# The words just before a number, when they say it is a reference or a version, not a phone
# number or an IP address: "order 2024551234", "ticket #4155550123", "update to 4.2.1.0", "KB 5034441".
_REFERENCE_WORD = re.compile(
    r"(?i)(?:\b(?:order|ticket|case|invoice|incident|request|req|ref|reference|po|tracking|serial|sn|"
    r"kb|article|id|sku|part|build|version|ver|release|firmware|driver|patch|"
    r"updat(?:e[sd]?|ing)|upgrad(?:e[sd]?|ing))\b\s*(?:no\.?|number|nr\.?)?\s*(?:[#:=]|\b(?:to|from|is))?|#)\s*$"
)


def _after_reference_word(text: str, start: int) -> bool:
    return _REFERENCE_WORD.search(text[max(0, start - 24):start]) is not None


# --- e-mail ------------------------------------------------------------------------------------
# local@domain.tld: a dot-atom local part and a domain of labels ending in a 2+ letter TLD.
_EMAIL = re.compile(
    r"(?<![\w.%+-])[\w%+-](?:[\w.%+-]*[\w%+-])?@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,63}(?![\w-])"
)


# Not an address: the user part of a URL ("ssh://git@host/...") or an scp-style remote ("git@host:org/repo").
_SCP_REMOTE = re.compile(r":[\w~/.-]")


def find_emails(text: str) -> Iterator[Detection]:
    for m in _EMAIL.finditer(text):
        if text[max(0, m.start() - 3):m.start()] == "://" or _SCP_REMOTE.match(text, m.end()):
            continue
        yield Detection(m.start(), m.end(), "EMAIL", m.group().casefold())


# --- URL with credentials ----------------------------------------------------------------------
# scheme://user:password@host -> only "user:password" (the userinfo) is redacted; the host stays.
_URL_USERINFO = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://(?P<userinfo>[^\s/?#@:<>]+:[^\s/?#<>]*)@(?=[\w\[])")


def find_url_credentials(text: str) -> Iterator[Detection]:
    for m in _URL_USERINFO.finditer(text):
        yield Detection(m.start("userinfo"), m.end("userinfo"), "URL_CREDENTIALS", m.group("userinfo"))


# --- IP addresses --------------------------------------------------------------------------------
# IPv4: four dotted numbers not inside a longer dotted run (10.0.19045.1 is a Windows build).
_IPV4 = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?!\w|\.\d)")
# IPv6: hex groups with at least two colons (validated; times like 12:30:45 and MACs fail).
_IPV6 = re.compile(r"(?<![\w:.])(?=[0-9A-Fa-f.]*:[0-9A-Fa-f.]*:)[0-9A-Fa-f:.]*[0-9A-Fa-f](?:%[0-9A-Za-z]+)?(?![\w:])")


def find_ips(text: str) -> Iterator[Detection]:
    import ipaddress

    for m in _IPV4.finditer(text):
        if _after_reference_word(text, m.start()):
            continue
        try:
            address = ipaddress.IPv4Address(m.group())
        except ValueError:
            continue
        yield Detection(m.start(), m.end(), "IP", str(address))
    for m in _IPV6.finditer(text):
        value = m.group()
        if not any(c in "0123456789abcdefABCDEF" for c in value.replace("::", "")):
            continue
        try:
            address6 = ipaddress.IPv6Address(value.split("%", 1)[0])
        except ValueError:
            continue
        yield Detection(m.start(), m.end(), "IP", str(address6))


# --- payment cards -------------------------------------------------------------------------------
# 12-19 digits, ungrouped or grouped as cards print them (4-4-4-4[-3], Amex 4-6-5, Diners 4-6-4)
# with single spaces or dashes; a grouping that passes the Luhn check and fits a card network's
# number range and length.
_CARD_CANDIDATE = re.compile(r"(?<![\w-])\d+(?:[ -]\d+)*(?![\w-])")

# (prefix low, prefix high, lengths): Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay.
_CARD_RANGES = (
    ("4", "4", (13, 16, 19)),
    ("51", "55", (16,)), ("2221", "2720", (16,)),
    ("34", "34", (15,)), ("37", "37", (15,)),
    ("6011", "6011", (16, 17, 18, 19)), ("644", "649", (16, 17, 18, 19)), ("65", "65", (16, 17, 18, 19)),
    ("3528", "3589", (16, 17, 18, 19)),
    ("36", "36", (14, 15, 16, 17, 18, 19)), ("38", "39", (16, 17, 18, 19)), ("300", "305", (14, 15, 16, 17, 18, 19)),
    ("62", "62", (16, 17, 18, 19)),
)


def _card_grouping(sizes: Sequence[int]) -> bool:
    if len(sizes) == 1:
        return True
    return (all(n == 4 for n in sizes[:-1]) and 1 <= sizes[-1] <= 4) or list(sizes) in ([4, 6, 5], [4, 6, 4])


def _card_network_fits(digits: str) -> bool:
    return any(
        len(digits) in lengths and low <= digits[:len(low)] <= high for low, high, lengths in _CARD_RANGES
    )


def _luhn_ok(digits: str) -> bool:
    from stdnum import luhn

    return luhn.is_valid(digits)


def _card_windows(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """Windows of whole digit groups in ``text[start:end]`` holding 12-19 digits in a card's
    grouping, longest first:
    ``(start, end, digits)``. Bounded by 19 digits, so a long run of numbers stays linear."""
    groups = [(m.start() + start, m.end() + start) for m in re.finditer(r"\d+", text[start:end])]
    windows: list[tuple[int, int, str]] = []
    for i, (first, _) in enumerate(groups):
        digits = ""
        sizes: list[int] = []
        for s, e in groups[i:]:
            digits += text[s:e]
            sizes.append(e - s)
            if len(digits) > 19:
                break
            if len(digits) >= 12 and _card_grouping(sizes):
                windows.append((first, e, digits))
    return sorted(windows, key=lambda w: (w[0] - w[1], w[0]))


def find_cards(text: str) -> Iterator[Detection]:
    for m in _CARD_CANDIDATE.finditer(text):
        taken: list[tuple[int, int]] = []
        for s, e, digits in _card_windows(text, m.start(), m.end()):
            if any(s < te and ts < e for ts, te in taken):
                continue
            if _card_network_fits(digits) and _luhn_ok(digits):
                taken.append((s, e))
                yield Detection(s, e, "CARD", digits)


# --- IBAN ----------------------------------------------------------------------------------------
# Country code, 2 check digits, then alphanumerics optionally grouped by single spaces.
_IBAN_CANDIDATE = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){8,34}(?![A-Za-z0-9])")


def find_ibans(text: str) -> Iterator[Detection]:
    from stdnum import iban

    for m in _IBAN_CANDIDATE.finditer(text):
        groups = m.group().split(" ")
        for k in range(len(groups), 0, -1):  # drop trailing words the greedy match swallowed
            value = " ".join(groups[:k])
            if iban.is_valid(value):
                yield Detection(m.start(), m.start() + len(value), "IBAN", iban.compact(value))
                break


# --- national ids --------------------------------------------------------------------------------
# (regex, stdnum module): US SSN (dashed or spaced), Spanish DNI and NIE, Italian codice fiscale,
# Brazilian CPF (punctuated). Bare 9-digit SSNs only right after "SSN" / "social security".
_NATIONAL_IDS = (
    (re.compile(r"(?<![\w-])\d{3}([- ])\d{2}\1\d{4}(?![\w-])"), "stdnum.us.ssn"),
    (re.compile(r"(?i)(?:\bssn|social security(?: number| no\.?)?)\W{0,3}(?P<id>\d{9})\b"), "stdnum.us.ssn"),
    (re.compile(r"(?<![\w-])\d{8}-?[A-Za-z](?![\w-])"), "stdnum.es.dni"),
    (re.compile(r"(?<![\w-])[XYZxyz]-?\d{7}-?[A-Za-z](?![\w-])"), "stdnum.es.nie"),
    (re.compile(r"(?<![\w-])[A-Za-z]{6}\d{2}[A-Za-z]\d{2}[A-Za-z]\d{3}[A-Za-z](?![\w-])"), "stdnum.it.codicefiscale"),
    (re.compile(r"(?<![\w.-])\d{3}\.\d{3}\.\d{3}-\d{2}(?![\w-])"), "stdnum.br.cpf"),
)


def find_national_ids(text: str) -> Iterator[Detection]:
    import importlib

    for pattern, module_name in _NATIONAL_IDS:
        module = importlib.import_module(module_name)
        for m in pattern.finditer(text):
            start, end = m.span("id") if "id" in pattern.groupindex else m.span()
            value = text[start:end]
            if module.is_valid(value.replace(" ", "-") if module_name == "stdnum.us.ssn" else value):
                yield Detection(start, end, "NATIONAL_ID", module.compact(value.replace(" ", "")))


# --- phone numbers -------------------------------------------------------------------------------


def phone_finder(regions: Sequence[str]) -> Detector:
    """Phone numbers valid for one of ``regions`` (ISO codes such as "US", "GB"), or written in
    international format (+CC ...) for any region; libphonenumber's PhoneNumberMatcher at the VALID
    leniency. A number right after a reference word ("order", "ticket #") is skipped."""

    def find_phones(text: str) -> Iterator[Detection]:
        import phonenumbers

        seen: set[tuple[int, int]] = set()
        for region in regions or ("ZZ",):
            for match in phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.VALID):
                span = (match.start, match.end)
                if span in seen or _after_reference_word(text, match.start):
                    continue
                seen.add(span)
                key = phonenumbers.format_number(match.number, phonenumbers.PhoneNumberFormat.E164)
                yield Detection(match.start, match.end, "PHONE", key)

    return find_phones


# --- secrets -------------------------------------------------------------------------------------
# Well-known token formats (each vendor's documented prefix and alphabet).
_KNOWN_SECRETS = re.compile(
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"                                  # AWS access key id
    r"|\bgh[pousr]_[A-Za-z0-9]{36,251}\b"                             # GitHub classic tokens
    r"|\bgithub_pat_[A-Za-z0-9_]{22,255}\b"                           # GitHub fine-grained tokens
    r"|\bxox[abposr]-[A-Za-z0-9-]{10,250}"                            # Slack tokens
    r"|\bsk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z_-]*\d)[A-Za-z0-9_-]{20,}"  # OpenAI-style keys
    r"|\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}\b"                      # Stripe keys
    r"|\bAIza[0-9A-Za-z_-]{35}(?![\w-])"                              # Google API keys
    r"|\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"  # JWT (header.payload.signature)
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",  # PEM private keys
    re.DOTALL,
)
# An AWS secret access key (40 characters of base64's alphabet) named nearby but not assigned
# ("my AWS secret is wJalr..."): the vendor documents no prefix, so the word "aws" or "secret" in
# the 60 characters before it, and letters of both cases and a digit, tell it from a hash or a path.
_AWS_SECRET = re.compile(r"(?i:\baws\b|\bsecret)[^\n]{0,60}?"
                         r"(?<![A-Za-z0-9/+])(?P<value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])")
# A value right after key=, token:, secret=, password=, "Bearer " ... (the name is kept).
_ASSIGNED_SECRET = re.compile(
    r"(?i)(?:\b(?P<name>(?:[a-z0-9]+[_-])*(?:api[_-]?key|apikey|access[_-]?key|secret(?:[_-]?key)?|token|key|"
    r"password|passwd|pwd|pass))\b[\"']?\s*(?P<op>[:=])\s*[\"']?|\b(?P<scheme>bearer|basic)\s+)"
    r"(?P<value>[^\s\"'&,;<>]+)"
)


def _entropy(value: str) -> float:
    counts = {c: value.count(c) for c in set(value)}
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _looks_secret(name: str, op: str, value: str) -> bool:
    """Tokens: 16+ characters, letters and digits mixed, 3+ bits of entropy per character.
    Passwords (password=, pwd:): any value after '=', or after ':' one with a digit or symbol."""
    value = value.rstrip(".")
    if name.endswith(("password", "passwd", "pwd", "pass")):
        if op == "=":
            return len(value) >= 3
        return len(value) >= 4 and any(not c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    return len(value) >= 16 and has_digit and has_alpha and _entropy(value) >= 3.0


def find_secrets(text: str) -> Iterator[Detection]:
    for m in _KNOWN_SECRETS.finditer(text):
        yield Detection(m.start(), m.end(), "SECRET", m.group())
    for m in _AWS_SECRET.finditer(text):
        value = m.group("value")
        if any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value):
            yield Detection(m.start("value"), m.end("value"), "SECRET", value)
    for m in _ASSIGNED_SECRET.finditer(text):
        name = (m.group("name") or m.group("scheme") or "").lower()
        value = m.group("value")
        if _looks_secret(name, m.group("op") or "", value):
            end = m.start("value") + len(value.rstrip("."))  # a trailing period ends the sentence
            yield Detection(m.start("value"), end, "SECRET", text[m.start("value"):end])


def default_detectors(regions: Sequence[str] = ("US",)) -> tuple[Detector, ...]:
    """Every rule-based detector (person names need the optional NER detector)."""
    return (find_url_credentials, find_secrets, find_emails, find_ibans, find_cards, find_national_ids,
            find_ips, phone_finder(regions))
