"""The referee's live check lists every problem rules/ finds at once, each at the seats it belongs to, in the
page's language with nothing of rules/' English (R1 tiles and jokers, R5 racks)."""

import re

import pytest
from django.utils import translation

from rules.rulesets import get_ruleset
from scoring.games.classic import Entry, SeatEntry, judge
from scoring.games.problems import message, tile_name
from tests.scoring.helpers import text
from tests.scoring.test_referee_views import link_url, sheet_data
from tournament.services import seating

WRC = get_ruleset("wrc-2014")


def entry(*seats, end="went_out"):
    return Entry(end=end, seats=tuple(SeatEntry(position=n, registration_id=100 + n, **fields) for n, fields in seats))


def codes_at(judgement, position):
    return [p["code"] for p in judgement.seat_problems(position)]


def test_three_jokers_at_two_seats_are_marked_at_those_seats_only():
    # R1: two jokers in a set. Seat 2 typed two, seat 4 counted one; seats 1 and 3 hold none.
    judgement = judge(WRC, entry((1, {"went_out": True}), (2, {"tiles": "R5 J J"}), (3, {"rack_value": 9, "jokers": 0}),
                                 (4, {"rack_value": 4, "jokers": 1})))
    assert "too_many_jokers" in codes_at(judgement, 2) and "too_many_jokers" in codes_at(judgement, 4)
    assert codes_at(judgement, 1) == [] and codes_at(judgement, 3) == []
    assert judgement.score is None and len(judgement.errors) == 1


def test_unreadable_tiles_do_not_hide_the_other_seats_problems():
    # Seat 2's X3 is no tile (R1); seat 3 still has its own mistake and the table has three jokers.
    judgement = judge(WRC, entry((1, {"went_out": True}), (2, {"tiles": "R5 X3 J J"}),
                                 (3, {"tiles": "R1 J", "rack_value": 5}), (4, {"rack_value": 2, "jokers": 0})))
    assert codes_at(judgement, 2) == ["bad_tiles", "too_many_jokers"]
    assert "X3" in judgement.seat_problems(2)[0]["message"]
    assert codes_at(judgement, 3) == ["too_many_jokers", "rack_value_mismatch"]
    assert codes_at(judgement, 4) == []


def test_no_english_reason_is_added_to_unreadable_tiles():
    with translation.override("en"):
        judgement = judge(WRC, entry((1, {"went_out": True}), (2, {"tiles": "R14 Q2"})))
    assert judgement.problems[0]["message"] == (
        "These tiles cannot be read: R14 Q2. Use colour and number, e.g. R5 B13 J.")


def test_tiles_in_a_message_are_named_in_the_pages_language():
    with translation.override("ko"):
        assert tile_name("R5") == "빨강 5" and tile_name("J") == "조커"
        assert message("too_many_copies", params={"tile": "K13", "count": 3}).startswith("검정 13 타일이")
    with translation.override("zh-hant"):
        assert message("too_many_jokers", params={"count": 3}).startswith("各牌架上共有3隻百搭牌")


def test_a_code_the_app_does_not_know_is_not_shown_in_english():
    with translation.override("ko"):
        assert message("brand_new_code", params={"count": 1}) == "점수표에 맞지 않는 곳이 있습니다. 확인하세요."


ENGLISH = re.compile(r"[A-Za-z]{2,}")


def problem_texts(page: str) -> list[str]:
    """The text of every problem shown: the check's list and the seat cards."""
    found = re.findall(r'<(?:li|p) class="sheet-problem[^"]*"[^>]*>(.*?)</(?:li|p)>', page, re.S)
    return [re.sub(r"<[^>]+>", "", item).strip() for item in found]


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["ko", "zh-hant"])
def test_the_live_check_in_korean_and_hong_kong_chinese_has_no_english_fragment(client, stage, link, language):
    seats = seating.seats(seating.game_draw(stage, 1), table=1)
    # Three jokers (seats 2 and 4), a tile three times (R7), a rack value that is not the tiles' (seat 3),
    # an unreadable token: R1, R5 problems the referee must all see at once.
    data = sheet_data(stage, 1, 1, [0, 5, 6, 7], overrides={
        1: {"tiles": "R7 R7 J J ZZ9", "rack_value": ""}, 2: {"tiles": "R7 B2", "rack_value": 30},
        3: {"rack_value": 4, "jokers": 1}})
    page = text(client.post(link_url(link, 1, preview=True), data, HTTP_ACCEPT_LANGUAGE=language))
    shown = problem_texts(page)
    assert len(shown) >= 8, shown  # 4 problems in the list, each again at its seat(s)
    for item in shown:
        assert not [word for word in ENGLISH.findall(item) if word != "ZZ"], item
    for seat in (seats[1], seats[3]):
        slot = page.split(f'id="seat-{seat.position}-check"')[1].split("</div>")[0]
        assert ("조커" if language == "ko" else "百搭牌") in slot
    assert "조커" not in page.split(f'id="seat-{seats[2].position}-check"')[1].split("</div>")[0]
    assert 'data-code="too_many_jokers"' in page


@pytest.mark.django_db
def test_without_the_script_two_seats_ticked_as_out_are_both_marked(client, stage, link):
    # Each seat's "Went out" is its own box (a Tab stop); two ticked is the rules engine's mistake (R4), at both.
    seats = seating.seats(seating.game_draw(stage, 1), table=1)
    data = sheet_data(stage, 1, 1, [0, 5, 6, 7], overrides={1: {"rack_value": "", "jokers": ""}})
    data["went_out"] = [str(seats[0].position), str(seats[1].position)]
    page = text(client.post(link_url(link, 1, preview=True), data))
    for seat in seats[:2]:
        slot = page.split(f'id="seat-{seat.position}-check"')[1].split("</div>")[0]
        assert "Only one player can go out" in slot
    full = text(client.post(link_url(link, 1), {**data, "action": "check"}))
    assert full.count('type="checkbox" class="btn-check" name="went_out"') == 4
    assert 'name="went_out" value="" ' not in full  # no "Nobody" beside "Someone went out"
