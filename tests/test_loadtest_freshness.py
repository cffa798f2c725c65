"""The load test's freshness figure (loadtest/freshness.py): from the chief's tap to the first poll showing it,
for any phone and for each phone, on a made-up record (no clock involved)."""

from pathlib import Path

from loadtest.freshness import Record, delays, modelled, percentile


def record() -> Record:
    # Versions: A before, B after the tap at 10.0, C after the tap at 20.0.
    return Record(
        start_etag='"A"',
        confirmations=[(10.0, '"B"'), (20.0, '"C"')],
        polls=[
            (1, 9.0, '"A"'), (2, 9.5, '"A"'),
            (1, 11.0, 'W/"A"'),  # the proxy's copy from before the tap (weakened by gzip): not shown yet
            (2, 12.5, 'W/"B"'),  # phone 2 is the first to show B: 2.5 s
            (1, 15.0, '"B"'),  # phone 1 shows B: 5 s
            (3, 16.0, '"B"'),  # phone 3 started after B: B is not its delay
            (1, 24.0, '"C"'), (3, 21.0, '"C"'),  # C: phone 3 at 1 s (the first), phone 1 at 4 s
            (2, 22.0, '"?"'),  # an ETag no probe saw
        ],
    )


def test_first_poll_by_any_phone_and_by_each_phone():
    result = delays(record())
    assert result["any"] == [2.5, 1.0]
    assert sorted(result["phone"]) == [1.0, 2.5, 4.0, 5.0]
    assert result["unseen"] == 0 and result["unknown"] == 1


def test_a_poll_that_skips_a_version_shows_both_confirmations():
    skipping = Record('"A"', [(10.0, '"B"'), (11.0, '"C"')], [(1, 9.0, '"A"'), (1, 13.0, '"C"')])
    result = delays(skipping)
    assert result["any"] == [3.0, 2.0] and result["phone"] == [3.0, 2.0]


def test_a_confirmation_no_poll_showed_is_counted(tmp_path: Path):
    unseen = Record('"A"', [(10.0, '"B"')], [(1, 9.0, '"A"'), (1, 12.0, '"A"')])
    unseen.save(tmp_path / "f.json")
    result = delays(Record.load(tmp_path / "f.json"))
    assert result == {"any": [], "phone": [], "unseen": 1, "unknown": 0}


def test_percentile():
    values = [float(n) for n in range(1, 101)]
    assert percentile(values, 0.95) == 96.0 and percentile(values, 0.5) == 51.0


def test_the_pages_poll_interval_keeps_the_modelled_p95_under_5_seconds():
    """nginx keeps a busy address's copy 2 s (its "1 s" in whole seconds): 3 s polls meet 5 s at p95, 4 s not."""
    assert percentile(modelled(3, 2, samples=20_000), 0.95) < 5.0
    assert percentile(modelled(4, 2, samples=20_000), 0.95) > 5.0
