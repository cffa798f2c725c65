"""Contacts typed into free text — a conduct note, a correction's reason, an audit entry's reason: e-mail
addresses and phone numbers, found so the erasure at the end of a festival's retention period can remove them
(tournament/services/erasure.py). Registered contacts are erased by value; these are the ones staff wrote
down (a parent's number in a note), which nothing else knows.

Phone numbers are found by the phonenumbers library (Google's libphonenumber data): a number valid in one of
the countries the festivals are held in, or written with its country code. Dates, times, scores and table
numbers are not valid numbers and stay.
"""

import re

from phonenumbers import Leniency, PhoneNumberMatcher

# The countries of the time zones a festival may have (tournament/models/festival.py TIMEZONE_CHOICES).
PHONE_REGIONS = ("KR", "HK", "TW", "GB")
# An address as people type it, the full-width "＠" and "．" of a CJK keyboard too.
EMAIL = re.compile(r"[\w.+-]+[@＠][\w-]+(?:[.．][\w-]+)+")


def contact_spans(text: str) -> list[tuple[int, int]]:
    """Where the contacts are in `text`: (start, end) pairs, sorted, overlapping ones merged."""
    spans = [match.span() for match in EMAIL.finditer(text)]
    if any(ch.isdigit() for ch in text):
        for region in PHONE_REGIONS:
            spans += [(match.start, match.end) for match in PhoneNumberMatcher(text, region, leniency=Leniency.VALID)]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def without_contacts(text: str, replacement: str) -> str:
    """`text` with every contact in it replaced by `replacement`."""
    for start, end in reversed(contact_spans(text)):
        text = text[:start] + replacement + text[end:]
    return text
