"""How soon a confirmed sheet shows on the phones polling the standings (loadtest/run.py, locustfile.py).

The chief referee's user notes the moment it taps Confirm and then asks the app server itself (not the
proxy's cache) for the standings fragment, as an anonymous phone asks for it: the ETag it gets is the first
version that holds that confirmation. Every phone polling the standings notes when each answer arrived and
the ETag it carried (a 304 carries the phone's own). After the run, `delays` finds:

- per confirmation, the first poll by *any* phone that showed it (what the brief of the hall asks: how long
  until the standings on the phones show a confirmation at all);
- per confirmation and phone, the first poll of *that* phone that showed it (what one person sees: the
  poll interval plus the age of the proxy's copy), for every phone that was polling when it was confirmed.

A poll shows confirmation k when its ETag is that of version k or a later one: the chief confirms one sheet
after the other, so the versions are ordered. Polls whose ETag no probe saw (none expected) are counted.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Record:
    start_etag: str = ""  # the standings before the first confirmation
    confirmations: list[tuple[float, str]] = field(default_factory=list)  # (tapped at, ETag after), in order
    # (viewer, answered at, ETag); a viewer is one stay of a phone on the standings, so a phone that opened
    # another page and came back is a new viewer.
    polls: list[tuple[int, float, str]] = field(default_factory=list)

    def save(self, path: Path) -> None:
        path.write_text(json.dumps({"start_etag": self.start_etag, "confirmations": self.confirmations,
                                    "polls": self.polls}))

    @classmethod
    def load(cls, path: Path) -> Record:
        data = json.loads(path.read_text())
        return cls(data["start_etag"], [tuple(c) for c in data["confirmations"]], [tuple(p) for p in data["polls"]])


def load_all(path: Path) -> dict[str, Record]:
    """The records in a file: one (the one-event test) or one per event (`{"events": {key: record}}`, the
    festival mode, where each event's confirmations are ordered by its own chief referee)."""
    data = json.loads(path.read_text())
    if "events" not in data:
        return {"": Record.load(path)}
    return {key: Record(value["start_etag"], [tuple(c) for c in value["confirmations"]],
                        [tuple(p) for p in value["polls"]]) for key, value in data["events"].items()}


def save_all(records: dict[str, Record], path: Path, **extra) -> None:
    path.write_text(json.dumps({"events": {key: {"start_etag": r.start_etag, "confirmations": r.confirmations,
                                                 "polls": r.polls} for key, r in records.items()}, **extra}))


def delays_of_all(records: dict[str, Record]) -> dict:
    """`delays` of every event's record, the lists joined and the counts added."""
    out = {"any": [], "phone": [], "unseen": 0, "unknown": 0}
    for record in records.values():
        result = delays(record)
        for key in out:
            out[key] += result[key]
    return out


def _strong(etag: str) -> str:
    """nginx weakens the ETag of an answer it compresses (W/"…"); the version it names is the same."""
    return etag.removeprefix("W/")


def delays(record: Record) -> dict:
    """{"any": [seconds per confirmation shown], "phone": [seconds per (confirmation, phone)],
    "unseen": confirmations no poll showed, "unknown": polls with an ETag no probe saw}."""
    index = {_strong(record.start_etag): 0}
    for k, (_at, etag) in enumerate(record.confirmations, 1):
        index.setdefault(_strong(etag), k)
    tapped = [0.0] + [at for at, _etag in record.confirmations]
    any_phone: list[float] = []
    per_phone: list[float] = []
    newest = 0  # the newest confirmation any poll has shown so far
    last: dict[int, int] = {}  # per phone, the newest confirmation its polls have shown
    unknown = 0
    for phone, at, etag in sorted(record.polls, key=lambda poll: poll[1]):
        k = index.get(_strong(etag))
        if k is None:
            unknown += 1
            continue
        if k > newest:
            any_phone += [at - tapped[j] for j in range(newest + 1, k + 1)]
            newest = k
        seen = last.setdefault(phone, k)  # confirmations before a phone's first poll are not its delay
        if k > seen:
            per_phone += [at - tapped[j] for j in range(seen + 1, k + 1)]
            last[phone] = k
    return {"any": any_phone, "phone": per_phone, "unseen": len(record.confirmations) - newest, "unknown": unknown}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else float("nan")


def summary(result: dict) -> str:
    def line(values: list[float]) -> str:
        if not values:
            return "none measured"
        return (f"p50 {percentile(values, 0.5):.2f} s, p95 {percentile(values, 0.95):.2f} s, "
                f"max {max(values):.2f} s over {len(values):,}")
    return (f"first poll by any phone: {line(result['any'])}; each phone's first poll: {line(result['phone'])}; "
            f"{result['unseen']} confirmations never shown, {result['unknown']} polls with an unknown ETag")


def modelled(poll_seconds: float, copy_seconds: float, samples: int = 100_000, seed: int = 16) -> list[float]:
    """The delays one phone sees in theory: it polls every `poll_seconds` at a random phase; the proxy's copy
    of a busy address is fetched anew every `copy_seconds` (nginx's "1 s" is counted in whole seconds, so a
    copy fetched just after a second's start lives 2 s, and on a busy address every copy is fetched so).
    A confirmation at a random moment shows at the first poll whose copy was fetched after it."""
    rng = random.Random(seed)
    out = []
    for _ in range(samples):
        tapped, phase = rng.uniform(100, 200), rng.uniform(0, poll_seconds)
        polled = phase + math.ceil((tapped - phase) / poll_seconds) * poll_seconds
        while math.floor(polled / copy_seconds) * copy_seconds <= tapped:  # the copy predates the tap
            polled += poll_seconds
        out.append(polled - tapped)
    return out


if __name__ == "__main__":
    print("poll s | copy s | p50 | p95 | max")
    for poll in (3, 4, 5):
        for copy in (0, 1, 2):
            rng = random.Random(poll)  # no proxy: the phone's next poll
            values = modelled(poll, copy) if copy else [rng.uniform(0, poll) for _ in range(100_000)]
            print(f"{poll} | {copy} | {percentile(values, 0.5):.2f} | {percentile(values, 0.95):.2f} | {max(values):.2f}")
