"""The chief referee's and organiser's pages (R7–R9): live board, sheet page, corrections,
stage completeness, lots and closing — through the web pages, with real objects."""

import re

import pytest
from django.urls import reverse

from scoring.models import ScoreSheet
from scoring.services import progress
from scoring.services.sheets import confirm_sheet, correct_sheet, return_sheet, submit_sheet
from tests.confirming import confirmed_post
from tests.factories import make_staff, released_stage
from tests.scoring.helpers import busan_final, entry_for, key
from tournament.models import AuditEntry, Draw, Event, Lot, Stage
from tournament.services import ServiceError, draws, seating
from tournament.services.audit import Actor

pytestmark = [pytest.mark.django_db, pytest.mark.stage_of(players=16)]  # Busan round 1: 4 tables of 4, 3 games
LINK = Actor(label="table 1 link")
S = ScoreSheet.Status
CLEAN = [0, 10, 20, 30]
WARNED = [0, 120, 20, 30]  # a rack over 100 is a warning the referee accepted (rules/ high_rack_value)


# --- helpers ------------------------------------------------------------------------------------------------

def ev(stage):
    return {"festival": stage.event.festival.slug, "event": stage.event.slug}


def url(name, of, **kwargs):
    """A board URL of `of`'s event (`of` is a stage)."""
    return reverse(name, kwargs={**ev(of), **kwargs})


def submit(stage, table, values=CLEAN, *, game=1, actor=LINK, end="went_out", winner=0):
    seats = len(seating.game_draw(stage, game).tables.get(number=table).seats.all())
    values = (list(values) + [7] * 4)[:seats]
    return submit_sheet(stage=stage, game=game, table_number=table,
                        entry=entry_for(stage, game, table, values, end=end, winner=winner),
                        accept_warnings=True, idempotency_key=key(), actor=actor, via=actor.label or "account")


def play(stage, chief, values=CLEAN, games=None):
    """Every table of every game: seat 1 goes out, the others hold `values`."""
    for game in games or range(1, stage.games + 1):
        for table in seating.game_draw(stage, game).tables.all():
            confirm_sheet(sheet=submit(stage, table.number, values, game=game), actor=Actor(user=chief))


def correction_post(sheet, **changes):
    """The correction form (the referee's entry plus a reason) as the page would post it, from the sheet's
    current lines."""
    data = {"end": sheet.end, "went_out": "", "reason": "miscounted rack", "idempotency_key": key()}
    for line in sheet.seats.all():
        p = line.position
        if line.went_out:
            data["went_out"] = str(p)
        data.update({f"s{p}_registration": line.registration_id, f"s{p}_tiles": line.tiles,
                     f"s{p}_rack_value": "" if line.rack_value is None or line.went_out else line.rack_value,
                     f"s{p}_jokers": "" if line.went_out else line.jokers, f"s{p}_could_open": "",
                     f"s{p}_opened": "yes" if line.opened else "no"})
    data.update(changes)
    return data


# --- permissions ------------------------------------------------------------------------------------------

def board_routes(stage, sheet):
    """(method, url) of every page and action; stage-level ones by stage number, sheet ones by id."""
    n = stage.number
    return [
        ("get", url("board", stage)),
        ("get", url("board-sheet", stage, sheet_id=sheet.pk)),
        ("post", url("board-quick-confirm", stage, sheet_id=sheet.pk)),
        ("post", url("board-confirm", stage, sheet_id=sheet.pk)),
        ("post", url("board-return", stage, sheet_id=sheet.pk)),
        ("get", url("board-correct", stage, sheet_id=sheet.pk)),
        ("post", url("board-correct", stage, sheet_id=sheet.pk)),
        ("get", url("board-stage", stage, stage=n)),
        ("post", url("board-lots", stage, stage=n)),
        ("post", url("board-close", stage, stage=n)),
        ("get", url("board-links", stage, stage=n)),
        ("post", url("board-links-make", stage, stage=n)),
        ("post", url("board-links-revoke", stage, stage=n)),
        ("get", url("board-referees", stage)),
        ("post", url("board-referees-assign", stage)),
        ("post", url("board-referees-unassign", stage)),
        ("get", url("board-print", stage, stage=n)),
        ("get", url("board-link-cards", stage)),
    ]


def test_anonymous_visitors_are_sent_to_sign_in_for_every_page_and_action(client, stage):
    sheet = submit(stage, 1)
    for method, path in board_routes(stage, sheet):
        response = getattr(client, method)(path, {"reason": "x"} if method == "post" else {})
        assert response.status_code == 302 and response.url.startswith(reverse("login")), path
    sheet.refresh_from_db()
    assert sheet.status == S.SUBMITTED


@pytest.mark.parametrize("who", ["referee", "desk", "other chief referee", "other organiser"])
def test_referees_desk_and_staff_of_another_festival_are_refused_everywhere(client, stage, who):
    from tests.factories import make_festival

    festival = stage.event.festival if who in ("referee", "desk") else make_festival()
    client.force_login(make_staff(festival, who.replace("other ", "")))
    sheet = submit(stage, 1)
    for method, path in board_routes(stage, sheet):
        response = getattr(client, method)(path, {"reason": "x", "table": 1, "referee": 1, "link": 1})
        assert response.status_code == 403, (who, path)
    sheet.refresh_from_db()
    assert sheet.status == S.SUBMITTED
    assert not Lot.objects.exists() and not stage.event.table_links.exists()


def test_refused_htmx_poll_reloads_the_page_instead_of_swapping_an_error_in(client, stage):
    client.force_login(make_staff(stage.event.festival, "desk"))
    response = client.get(url("board", stage), HTTP_HX_REQUEST="true")
    assert response.status_code == 403 and response["HX-Refresh"] == "true"
    client.logout()
    response = client.get(url("board", stage), HTTP_HX_REQUEST="true")
    assert response["HX-Redirect"].startswith(reverse("login"))


def test_the_chief_referee_sees_the_board_but_only_organisers_manage_links_lots_and_closing(client, stage, chief):
    client.force_login(chief)
    assert client.get(url("board", stage)).status_code == 200
    assert client.get(url("board-stage", stage, stage=1)).status_code == 200
    for name in ("board-links", "board-print"):
        assert client.get(url(name, stage, stage=1)).status_code == 403
    for name in ("board-lots", "board-close", "board-links-make"):
        assert client.post(url(name, stage, stage=1)).status_code == 403


def test_ids_of_another_event_are_not_found(client, stage, chief):
    other = released_stage(8)
    foreign = submit(other, 1)
    client.force_login(chief)
    for name in ("board-sheet", "board-correct"):
        assert client.get(url(name, stage, sheet_id=foreign.pk)).status_code == 404
    for name in ("board-confirm", "board-quick-confirm", "board-return", "board-correct"):
        assert client.post(url(name, stage, sheet_id=foreign.pk), {"reason": "x"}).status_code == 404
    assert client.get(url("board-stage", stage, stage=2)).status_code == 404
    foreign.refresh_from_db()
    assert foreign.status == S.SUBMITTED


# --- the live board -----------------------------------------------------------------------------------------

def test_board_shows_every_table_state_in_words_and_the_counts(client, stage, chief):
    confirm_sheet(sheet=submit(stage, 1), actor=Actor(user=chief))
    submit(stage, 2)
    return_sheet(sheet=submit(stage, 3), actor=Actor(user=chief), reason="seat 2 missing")
    client.force_login(chief)
    response = client.get(url("board", stage))
    html = response.content.decode()
    assert response.status_code == 200
    assert 'data-table="1" data-state="confirmed"' in html
    assert 'data-table="2" data-state="submitted"' in html
    assert 'data-table="3" data-state="returned"' in html
    assert 'data-table="4" data-state="pending"' in html
    for word in ("Confirmed", "Submitted", "Returned", "Pending"):
        assert word in html  # not colour alone
    for state in ("pending", "submitted", "returned", "confirmed"):
        assert f'data-count="{state}">1<' in html
    assert "data-poll" in html and 'hx-trigger="every 10s"' in html and "draw released" in html


def test_a_resubmitted_sheet_after_a_return_shows_as_submitted(client, stage, chief):
    return_sheet(sheet=submit(stage, 1), actor=Actor(user=chief), reason="again")
    submit(stage, 1)
    client.force_login(chief)
    assert 'data-table="1" data-state="submitted"' in client.get(url("board", stage)).content.decode()


def test_htmx_poll_gets_only_the_board_partial(client, stage, chief):
    client.force_login(chief)
    response = client.get(url("board", stage), {"stage": 1, "game": 1}, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200 and html.lstrip().startswith("<section id=\"board\"")
    assert "<html" not in html


def test_board_filter_shows_only_sheets_with_warnings(client, stage, chief):
    submit(stage, 1, WARNED)
    submit(stage, 2)
    client.force_login(chief)
    html = client.get(url("board", stage), {"warnings": "1"}).content.decode()
    assert 'data-table="1"' in html and 'data-table="2"' not in html and 'data-table="3"' not in html


def test_board_shows_another_game_when_selected_and_ignores_nonsense(client, stage, chief):
    play(stage, chief, games=[1])
    client.force_login(chief)
    html = client.get(url("board", stage)).content.decode()
    assert "game 2" in html  # game 1 is complete: the board moves on to the current game
    html = client.get(url("board", stage), {"game": 1}).content.decode()
    assert 'data-count="confirmed">4<' in html
    for nonsense in ({"stage": "abc", "game": "-1"}, {"game": "99999999999999999999"}, {"stage": "7"},
                     {"warnings": "🙂", "game": "\x00"}):
        assert client.get(url("board", stage), nonsense).status_code == 200


def board_queries(client, django_assert_max_num_queries, stage, chief):
    confirm_sheet(sheet=submit(stage, 1), actor=Actor(user=chief))
    submit(stage, 2, WARNED)
    return_sheet(sheet=submit(stage, 3), actor=Actor(user=chief), reason="x")
    submit(stage, 4)
    client.force_login(chief)
    with django_assert_max_num_queries(15):
        response = client.get(url("board", stage))
    assert response.status_code == 200
    with django_assert_max_num_queries(15):
        assert client.get(url("board", stage), HTTP_HX_REQUEST="true").status_code == 200


def test_board_query_count_with_4_tables(client, django_assert_max_num_queries):
    stage = released_stage(16)
    board_queries(client, django_assert_max_num_queries, stage, make_staff(stage.event.festival, "chief referee"))


def test_board_query_count_with_128_tables_is_the_same(client, django_assert_max_num_queries):
    stage = released_stage(512, capacity=512)
    assert seating.game_draw(stage, 1).tables.count() == 128
    board_queries(client, django_assert_max_num_queries, stage, make_staff(stage.event.festival, "chief referee"))


def test_one_tap_confirm_on_the_board_confirms_a_clean_sheet(client, stage, chief):
    sheet = submit(stage, 1)
    client.force_login(chief)
    response = client.post(url("board-quick-confirm", stage, sheet_id=sheet.pk), {"stage": 1, "game": 1})
    assert response.status_code == 302 and response.url.startswith(url("board", stage))
    sheet.refresh_from_db()
    assert sheet.status == S.CONFIRMED and sheet.decided_by == chief


def test_one_tap_confirm_by_htmx_answers_with_the_updated_board(client, stage, chief):
    sheet = submit(stage, 1)
    client.force_login(chief)
    response = client.post(url("board-quick-confirm", stage, sheet_id=sheet.pk), {"stage": 1, "game": 1},
                           HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert 'data-table="1" data-state="confirmed"' in html and "is confirmed" in html


def counts_of(html: str) -> dict[str, str]:
    return dict(re.findall(r'data-count="(\w+)">(\d+)<', html))


def tap(client, stage, sheet):
    return client.post(url("board-quick-confirm", stage, sheet_id=sheet.pk), {"stage": 1, "game": 1},
                       HTTP_HX_REQUEST="true").content.decode()


def test_one_tap_answers_with_its_row_and_the_counts_out_of_band_not_the_board(client, stage, chief):
    sheets = [submit(stage, table) for table in (1, 2)]
    client.force_login(chief)
    html = tap(client, stage, sheets[0])
    assert re.findall(r'id="board-row-(\d+)"', html) == ["1"]  # the tapped row only
    assert 'id="board" ' not in html and "Player" not in html.split('id="board-row-1"')[0]
    assert 'id="board-counts" class="border rounded px-2 py-1 mb-2 bg-body-tertiary" hx-swap-oob="true"' in html
    assert 'id="board-message" hx-swap-oob="true"' in html and "is confirmed" in html
    assert counts_of(html) == {"pending": "2", "submitted": "1", "returned": "0", "confirmed": "1"}


def test_after_a_sequence_of_taps_the_counts_they_answer_are_the_boards(client, db):
    stage = released_stage(32)
    chief = make_staff(stage.event.festival, "chief referee")
    sheets = [submit(stage, table, WARNED if table == 3 else CLEAN) for table in range(1, 8)]
    return_sheet(sheet=sheets[4], actor=Actor(user=chief), reason="x")
    client.force_login(chief)
    for sheet in (sheets[0], sheets[1], sheets[2], sheets[1], sheets[4], sheets[5]):  # a warned, a repeat, returned
        answered = tap(client, stage, sheet)
        board = client.get(url("board", stage), {"stage": 1, "game": 1}, HTTP_HX_REQUEST="true").content.decode()
        assert counts_of(answered) == counts_of(board)
        assert ("Confirm every clean sheet" in answered) == ("Confirm every clean sheet" in board)
    assert counts_of(board) == {"pending": "1", "submitted": "3", "returned": "1", "confirmed": "3"}
    assert "1 sheet with warnings" in answered and "1 sheet with warnings" in board


def test_the_tap_that_completes_the_game_answers_with_the_whole_board_and_the_next_game(client, db):
    stage = released_stage(8)
    chief = make_staff(stage.event.festival, "chief referee")
    first, last = submit(stage, 1), submit(stage, 2)
    client.force_login(chief)
    assert 'id="board" ' not in tap(client, stage, first)
    response = client.post(url("board-quick-confirm", stage, sheet_id=last.pk), {"stage": 1, "game": 1},
                           HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert 'id="board" ' in html and "Every table of game 1 is confirmed" in html
    assert (response["HX-Retarget"], response["HX-Reswap"]) == ("#board", "outerHTML")  # not into the row


@pytest.mark.parametrize("players", [16, 512])
def test_a_taps_queries_do_not_grow_with_the_tables(client, django_assert_num_queries, players):
    """The board's taps (bench/taps.py; docs/PERFORMANCE.md, issue 31) on 4 tables and on 128: the request
    around (event, session, user, role), then a quick confirm: the lock, the sheet, its update and audit record,
    the counts, the row's names, link and referee; a return: the sheet, the lock, the sheet again, update and
    audit; a correction: the sheet and the seats' names (the form), the lock, the sheet, the seats, the old
    version replaced, the next version's number, the new one and its rows, the old rows (the audit's before)
    and the audit record. Each
    counts its transaction's two statements (here a savepoint; bench.taps counts SQLite's BEGIN and COMMIT the
    same, and PostgreSQL's implicit BEGIN not: one fewer there)."""
    stage = released_stage(players, capacity=players)
    chief = make_staff(stage.event.festival, "chief referee")
    sheets = [submit(stage, table) for table in (1, 2, 3, 4)]
    confirm_sheet(sheet=sheets[3], actor=Actor(label="another chief"))
    client.force_login(chief)
    with django_assert_num_queries(14):
        assert "is confirmed" in tap(client, stage, sheets[1])
    with django_assert_num_queries(11):
        response = client.post(url("board-return", stage, sheet_id=sheets[2].pk), {"reason": "recount"})
    assert response.status_code == 302
    corrected = correction_post(sheets[3], s2_rack_value="15")
    with django_assert_num_queries(17):
        response = client.post(url("board-correct", stage, sheet_id=sheets[3].pk), corrected)
    assert response.status_code == 302 and ScoreSheet.objects.filter(corrects=sheets[3]).exists()


def test_one_tap_confirm_is_refused_for_a_sheet_with_warnings(client, stage, chief):
    sheet = submit(stage, 1, WARNED)
    client.force_login(chief)
    html = client.get(url("board", stage)).content.decode()
    assert url("board-quick-confirm", stage, sheet_id=sheet.pk) not in html  # no one-tap button for it
    assert url("board-sheet", stage, sheet_id=sheet.pk) in html
    response = client.post(url("board-quick-confirm", stage, sheet_id=sheet.pk), {"stage": 1}, follow=True)
    assert "has warnings" in response.content.decode()
    sheet.refresh_from_db()
    assert sheet.status == S.SUBMITTED


def test_one_tap_confirm_of_an_already_confirmed_sheet_says_so(client, stage, chief, organiser):
    sheet = submit(stage, 1)
    confirm_sheet(sheet=sheet, actor=Actor(user=organiser))
    client.force_login(chief)
    response = client.post(url("board-quick-confirm", stage, sheet_id=sheet.pk), HTTP_HX_REQUEST="true")
    assert "only a submitted sheet can be confirmed" in response.content.decode()


def test_a_sheet_left_on_a_draw_taken_back_is_not_listed_and_cannot_be_confirmed(client, stage, chief):
    """What the take-back race left behind before a submission took its event's lock (test_concurrency): a
    sheet on a draw that went back to draft, and a redraw that seats other players at that table. The board
    lists only the sheets of the game's seating, and confirming the stale one would credit players who do
    not sit there: it is refused, on the board and on the sheet page."""
    stale = submit(stage, 1)
    Draw.objects.filter(pk=stale.draw_id).update(status=Draw.Status.DRAFT, released_at=None)
    organiser = Actor(label="organiser")
    draws.release_draw(draw=draws.draft_draw(stage=stage, actor=organiser, seed=2), actor=organiser)
    entered = set(stale.seats.values_list("registration_id", flat=True))
    assert entered != {seat.registration_id for seat in seating.seats(seating.game_draw(stage, 1), table=1)}
    client.force_login(chief)
    html = client.get(url("board", stage)).content.decode()
    assert 'data-table="1" data-state="pending"' in html and 'data-count="pending">4<' in html
    assert url("board-sheet", stage, sheet_id=stale.pk) not in html
    for action in ("board-quick-confirm", "board-confirm"):
        page = client.post(url(action, stage, sheet_id=stale.pk), {"stage": 1, "game": 1}, follow=True)
        assert "entered for a seating that is no longer" in page.content.decode()
    with pytest.raises(ServiceError) as refused:
        confirm_sheet(sheet=stale, actor=Actor(user=chief))
    assert refused.value.code == "stale_draw"
    stale.refresh_from_db()
    assert stale.status == S.SUBMITTED and not ScoreSheet.objects.filter(status=S.CONFIRMED).exists()
    assert not AuditEntry.objects.filter(action="sheet.confirmed").exists()


# --- one sheet -------------------------------------------------------------------------------------------

def test_sheet_page_shows_the_entry_results_warnings_versions_and_audit(client, stage, chief):
    sheet = submit(stage, 1, WARNED)
    client.force_login(chief)
    html = client.get(url("board-sheet", stage, sheet_id=sheet.pk)).content.decode()
    for line in sheet.seats.select_related("registration__player"):
        assert line.registration.player.name in html
    assert "120 + 0 joker(s)" in html and "went out" in html
    assert "A rack value over 100 is unusual" in html
    assert "data-versions" in html and "version 1" in html
    assert "table 1 link" in html  # who submitted, in the audit log
    assert url("board-confirm", stage, sheet_id=sheet.pk) in html


def test_confirm_from_the_sheet_page_confirms_a_sheet_with_accepted_warnings(client, stage, chief):
    sheet = submit(stage, 1, WARNED)
    client.force_login(chief)
    response = client.post(url("board-confirm", stage, sheet_id=sheet.pk))
    assert response.status_code == 302
    sheet.refresh_from_db()
    assert sheet.status == S.CONFIRMED


def test_nobody_confirms_a_sheet_they_submitted_themselves(client, stage, chief):
    sheet = submit(stage, 1, actor=Actor(user=chief))
    client.force_login(chief)
    page = client.get(url("board-sheet", stage, sheet_id=sheet.pk)).content.decode()
    assert "data-own-sheet" in page
    response = client.post(url("board-confirm", stage, sheet_id=sheet.pk), follow=True)
    assert "You submitted this sheet; someone else must confirm it." in response.content.decode()
    response = client.post(url("board-quick-confirm", stage, sheet_id=sheet.pk), follow=True)
    assert "You submitted this sheet" in response.content.decode()
    sheet.refresh_from_db()
    assert sheet.status == S.SUBMITTED


def test_return_needs_a_reason_and_then_goes_back_to_the_referee(client, stage, chief):
    sheet = submit(stage, 1)
    client.force_login(chief)
    for empty in ({}, {"reason": "   "}):
        response = client.post(url("board-return", stage, sheet_id=sheet.pk), empty)
        assert response.status_code == 400 and "This field is required." in response.content.decode()
    sheet.refresh_from_db()
    assert sheet.status == S.SUBMITTED
    assert client.post(url("board-return", stage, sheet_id=sheet.pk), {"reason": "x" * 5000}).status_code == 400
    client.post(url("board-return", stage, sheet_id=sheet.pk), {"reason": "seat 3 is 25, not 52"})
    sheet.refresh_from_db()
    assert sheet.status == S.RETURNED and sheet.reason == "seat 3 is 25, not 52"
    assert AuditEntry.objects.filter(action="sheet.returned", target_id=sheet.pk).exists()


def test_returning_a_confirmed_sheet_is_refused_with_a_message(client, stage, chief, organiser):
    sheet = submit(stage, 1)
    confirm_sheet(sheet=sheet, actor=Actor(user=organiser))
    client.force_login(chief)
    response = client.post(url("board-return", stage, sheet_id=sheet.pk), {"reason": "late"}, follow=True)
    assert "only a submitted sheet can be returned" in response.content.decode()
    sheet.refresh_from_db()
    assert sheet.status == S.CONFIRMED


def test_correct_form_is_prefilled_from_the_confirmed_sheet(client, stage, chief):
    sheet = submit(stage, 1, [0, 11, 22, 33])
    confirm_sheet(sheet=sheet, actor=Actor(user=chief))
    client.force_login(chief)
    html = client.get(url("board-correct", stage, sheet_id=sheet.pk)).content.decode()
    assert 'name="s2_rack_value"' in html and 'value="11"' in html and 'value="33"' in html
    assert 'name="idempotency_key"' in html and 'name="reason"' in html and 'name="accept_warnings"' in html


def test_the_correction_offers_a_knocked_over_rack_only_under_rules_that_have_it_r5(client, stage, chief):
    sheet = submit(stage, 1)  # wrc-2014
    confirm_sheet(sheet=sheet, actor=Actor(user=chief))
    client.force_login(chief)
    html = client.get(url("board-correct", stage, sheet_id=sheet.pk)).content.decode()
    assert "Knocked over the rack" not in html and "_conduct_penalty" not in html
    client.post(url("board-correct", stage, sheet_id=sheet.pk), correction_post(sheet, s2_conduct_penalty="on"))
    assert not ScoreSheet.objects.get(corrects=sheet).seats.filter(conduct_penalty=True).exists()
    hong_kong = released_stage(4, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    sheet = submit(hong_kong, 1)
    confirm_sheet(sheet=sheet, actor=Actor(user=make_staff(hong_kong.event.festival, "chief referee")))
    client.force_login(make_staff(hong_kong.event.festival, "chief referee"))
    html = client.get(url("board-correct", hong_kong, sheet_id=sheet.pk)).content.decode()
    assert "Knocked over the rack" in html and 'name="s2_conduct_penalty"' in html
    client.post(url("board-correct", hong_kong, sheet_id=sheet.pk), correction_post(sheet, s2_conduct_penalty="on"))
    assert ScoreSheet.objects.get(corrects=sheet).seats.get(position=2).penalty == 200


def test_correcting_a_confirmed_sheet_makes_a_new_version_and_keeps_the_old(client, stage, chief):
    sheet = submit(stage, 1)
    confirm_sheet(sheet=sheet, actor=Actor(user=chief))
    client.force_login(chief)
    data = correction_post(sheet, s2_rack_value="15")
    response = client.post(url("board-correct", stage, sheet_id=sheet.pk), data)
    assert response.status_code == 302
    sheet.refresh_from_db()
    new = ScoreSheet.objects.get(corrects=sheet)
    assert sheet.status == S.SUPERSEDED and new.status == S.CONFIRMED and new.version == 2
    assert new.reason == "miscounted rack" and new.seats.get(position=2).rack_value == 15
    assert response.url == url("board-sheet", stage, sheet_id=new.pk)
    # The same form posted twice (a double tap) records one correction.
    client.post(url("board-correct", stage, sheet_id=sheet.pk), data)
    assert ScoreSheet.objects.filter(stage=stage, game=1, table_number=1).count() == 2
    html = client.get(url("board-sheet", stage, sheet_id=new.pk)).content.decode()
    assert "version 1" in html and "version 2" in html and "Replaced by a correction" in html


def test_a_correction_sent_with_a_key_another_correction_recorded_changes_nothing(stage, chief):
    """A key is answered with what it recorded, however it comes back: here on another sheet (its unique
    constraint stops the second correction, which is rolled back whole)."""
    first, second = submit(stage, 1), submit(stage, 2)
    for sheet in (first, second):
        confirm_sheet(sheet=sheet, actor=Actor(user=chief))
    tap = key()
    recorded = correct_sheet(sheet=first, entry=entry_for(stage, 1, 1, [0, 15, 20, 30]), reason="recount",
                             accept_warnings=True, idempotency_key=tap, actor=Actor(user=chief))
    again = correct_sheet(sheet=second, entry=entry_for(stage, 1, 2, [0, 15, 20, 30]), reason="recount",
                          accept_warnings=True, idempotency_key=tap, actor=Actor(user=chief))
    assert again == recorded and again.correction_warnings == []
    second.refresh_from_db()
    assert second.status == S.CONFIRMED and not ScoreSheet.objects.filter(corrects=second).exists()
    assert AuditEntry.objects.filter(action="sheet.corrected").count() == 1


def test_a_double_tapped_correction_answers_both_taps_with_the_recorded_correction(client, stage, chief):
    sheet = submit(stage, 1)
    confirm_sheet(sheet=sheet, actor=Actor(user=chief))
    client.force_login(chief)
    data = correction_post(sheet, s2_rack_value="15")
    first = client.post(url("board-correct", stage, sheet_id=sheet.pk), data)
    second = client.post(url("board-correct", stage, sheet_id=sheet.pk), data, follow=True)
    new = ScoreSheet.objects.get(corrects=sheet)
    assert first.url == url("board-sheet", stage, sheet_id=new.pk)
    assert second.redirect_chain == [(url("board-sheet", stage, sheet_id=new.pk), 302)]
    html = second.content.decode()
    assert "The sheet is corrected" in html and "Only a confirmed sheet can be corrected." not in html
    assert ScoreSheet.objects.filter(stage=stage, game=1, table_number=1).count() == 2
    assert AuditEntry.objects.filter(action="sheet.corrected").count() == 1


def test_a_correction_needs_a_reason(client, stage, chief):
    sheet = submit(stage, 1)
    confirm_sheet(sheet=sheet, actor=Actor(user=chief))
    client.force_login(chief)
    response = client.post(url("board-correct", stage, sheet_id=sheet.pk),
                           correction_post(sheet, reason="", s2_rack_value="15"))
    assert response.status_code == 400 and "This field is required." in response.content.decode()
    sheet.refresh_from_db()
    assert sheet.status == S.CONFIRMED and not ScoreSheet.objects.filter(corrects=sheet).exists()


def test_only_a_confirmed_sheet_can_be_corrected(client, stage, chief):
    sheet = submit(stage, 1)
    client.force_login(chief)
    for response in (client.get(url("board-correct", stage, sheet_id=sheet.pk), follow=True),
                     client.post(url("board-correct", stage, sheet_id=sheet.pk), correction_post(sheet), follow=True)):
        assert "Only a confirmed sheet can be corrected." in response.content.decode()
    assert ScoreSheet.objects.filter(stage=stage).count() == 1


def test_a_correction_with_warnings_needs_them_accepted_and_errors_block_it(client, stage, chief):
    sheet = submit(stage, 1)
    confirm_sheet(sheet=sheet, actor=Actor(user=chief))
    client.force_login(chief)
    response = client.post(url("board-correct", stage, sheet_id=sheet.pk), correction_post(sheet, s2_rack_value="140"))
    assert response.status_code == 400 and "A rack value over 100 is unusual" in response.content.decode()
    response = client.post(url("board-correct", stage, sheet_id=sheet.pk),
                           correction_post(sheet, s2_tiles="Q99 ??"))
    assert response.status_code == 400 and "These tiles cannot be read" in response.content.decode()
    assert not ScoreSheet.objects.filter(corrects=sheet).exists()
    response = client.post(url("board-correct", stage, sheet_id=sheet.pk),
                           correction_post(sheet, s2_rack_value="140", accept_warnings="on"))
    assert response.status_code == 302
    assert ScoreSheet.objects.get(corrects=sheet).warnings


def test_confirm_after_someone_corrected_is_refused_with_a_clear_message(client, stage, chief, organiser):
    """The race of two submissions seen from the page: the loser of the row lock is told why (PostgreSQL tests of
    the lock itself are in test_sheet_services)."""
    sheet = submit(stage, 1)
    client.force_login(chief)
    page_sheet_id = sheet.pk
    confirm_sheet(sheet=sheet, actor=Actor(user=organiser))
    client.post(url("board-correct", stage, sheet_id=page_sheet_id), correction_post(sheet, s2_rack_value="15"))
    response = client.post(url("board-confirm", stage, sheet_id=page_sheet_id), follow=True)
    assert "only a submitted sheet can be confirmed" in response.content.decode()
    response = client.post(url("board-correct", stage, sheet_id=page_sheet_id), correction_post(sheet), follow=True)
    assert "Only a confirmed sheet can be corrected." in response.content.decode()


def test_hostile_input_to_every_sheet_action_changes_nothing_and_never_errors(client, stage, chief):
    sheet = submit(stage, 1)
    confirm_sheet(sheet=sheet, actor=Actor(user=chief))
    other = submit(stage, 2)
    client.force_login(chief)
    hostile = {"reason": "\x00" * 3, "end": "🙂", "went_out": "99999999999999999999", "key": "../../etc",
               "s1_rack_value": "1e309", "s2_jokers": "-5", "s3_tiles": "<script>" * 100, "stage": "NaN",
               "game": "[]", "warnings": "\x00", "s1_could_open": "maybe"}
    for name, target in (("board-correct", sheet), ("board-return", other), ("board-confirm", other),
                         ("board-quick-confirm", other)):
        response = client.post(url(name, stage, sheet_id=target.pk), hostile)
        assert response.status_code < 500
    # A NUL character in the reason is refused by the form, not passed on.
    sheet.refresh_from_db()
    assert sheet.status == S.CONFIRMED and ScoreSheet.objects.filter(stage=stage, table_number=1).count() == 1
    response = client.post(url("board-correct", stage, sheet_id=sheet.pk),
                           correction_post(sheet, idempotency_key="x" * 65, s2_rack_value="15"))
    assert response.status_code == 400 and not ScoreSheet.objects.filter(corrects=sheet).exists()


# --- stage: completeness, lots, closing ---------------------------------------------------------------------

def test_stage_page_shows_completeness_per_game(client, stage, chief):
    play(stage, chief, games=[1])
    submit(stage, 1, game=2)
    client.force_login(chief)
    html = client.get(url("board-stage", stage, stage=1)).content.decode()
    assert "4 of 4 tables confirmed" in html and "0 of 4 tables confirmed" in html
    assert "Who advances is shown when every game" in html and "Close the stage" not in html


def test_the_board_and_stage_page_of_a_final_at_one_table_count_one_table(client):
    final = busan_final()
    client.force_login(make_staff(final.event.festival, "chief referee"))
    html = client.get(url("board-stage", final, stage=final.number)).content.decode()
    assert "0 of 1 table confirmed" in html and "1 tables" not in html
    html = client.get(url("board", final)).content.decode()
    assert "Final, game 1: 1 table" in html and "1 tables" not in html


def test_busan_tie_at_the_cut_is_settled_by_drawn_lots_and_the_stage_closes_into_the_draw_page(client):
    stage = released_stage(8)  # 2 tables of 4
    organiser = make_staff(stage.event.festival, "organiser")
    play(stage, organiser, values=[0, 5, 5, 5])  # three losers level in every game: a tie for 1 place per table
    client.force_login(organiser)
    html = client.get(url("board-stage", stage, stage=1)).content.decode()
    assert "Tie at the cut" in html and url("board-lots", stage, stage=1) in html
    response = client.post(url("board-close", stage, stage=1), follow=True)
    assert "2 ties at the cut still need a lot." in response.content.decode()
    stage.refresh_from_db()
    assert stage.closed_at is None
    client.post(url("board-lots", stage, stage=1))
    lots = list(Lot.objects.filter(stage=stage, purpose=Lot.Purpose.ADVANCE))
    assert len(lots) == 2 and all(sorted(lot.numbers.values()) == [1, 2, 3] for lot in lots)
    html = client.get(url("board-stage", stage, stage=1)).content.decode()
    assert "Tie at the cut" in html  # the lot's purpose, in the recorded lots
    assert "data-ties" not in html and organiser.get_username() in html and "data-lots" in html
    response = client.post(url("board-lots", stage, stage=1), follow=True)
    assert "There is no tie at the cut." in response.content.decode()
    response = confirmed_post(client, url("board-close", stage, stage=1))
    assert response.status_code == 302 and response.url == reverse("manage-draws", kwargs=ev(stage))
    stage.refresh_from_db()
    following = Stage.objects.get(event=stage.event, number=2)
    assert stage.closed_at is not None and following.entries.count() == 4
    html = client.get(url("board-stage", stage, stage=1)).content.decode()
    assert reverse("manage-draws", kwargs=ev(stage)) in html


def test_a_stage_cannot_be_closed_before_every_game_is_confirmed(client, stage, organiser):
    play(stage, organiser, games=[1, 2])
    client.force_login(organiser)
    response = client.post(url("board-close", stage, stage=1), follow=True)
    assert "Game 3: 4 tables have no confirmed sheet (1, 2, 3, 4)." in response.content.decode()
    response = client.post(url("board-lots", stage, stage=1), follow=True)
    assert "once every game of the stage is confirmed" in response.content.decode()
    stage.refresh_from_db()
    assert stage.closed_at is None and not Lot.objects.exists()


def test_a_correction_that_changes_who_advanced_warns_on_the_board_and_the_sheet(client):
    stage = released_stage(8)
    organiser = make_staff(stage.event.festival, "organiser")
    play(stage, organiser, values=[0, 1, 2, 3])  # seat 1 wins every game, seat 2 is the best loser
    client.force_login(organiser)
    assert confirmed_post(client, url("board-close", stage, stage=1)).status_code == 302
    sheet = ScoreSheet.objects.get(stage=stage, game=1, table_number=1, status=S.CONFIRMED)
    # Game 1 at table 1 really went to seat 4: seats 1 and 4 now advance instead of seats 1 and 2.
    data = correction_post(sheet, went_out="4", s1_rack_value="50", s1_jokers="0", s2_rack_value="40",
                           s3_rack_value="30", s4_rack_value="")
    response = client.post(url("board-correct", stage, sheet_id=sheet.pk), data, follow=True)
    html = response.content.decode()
    assert "changes who advanced" in html and "data-correction-warnings" in html
    board = client.get(url("board", stage), {"stage": 1, "game": 1}).content.decode()
    assert "changes who advanced" in board
    assert AuditEntry.objects.filter(action="sheet.correction_warning").count() == 1


def test_hong_kong_stage_page_shows_movement_and_the_lots_for_moving(client):
    stage = released_stage(8, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    chief = make_staff(stage.event.festival, "chief referee")
    play(stage, chief, values=[0, 5, 5, 5], games=[1])  # three losers level: one of them moves, by lot
    client.force_login(chief)
    html = client.get(url("board-stage", stage, stage=1)).content.decode()
    assert "moved: the next game is seated" in html and "waits for every table" in html
    assert "Tie for moving up a table" in html and "data-lots" in html
    assert "Close the stage" not in html
    assert Lot.objects.filter(stage=stage, purpose=Lot.Purpose.MOVE).count() == 2
    assert progress.game_complete(stage, 1)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_confirm_and_return_pressed_at_once_on_the_pages_one_is_refused_with_a_message(on_postgres):
    """Two people on the sheet page at the same moment: the row lock lets one through; the other page shows
    why it was refused (the service-level races are in test_concurrency)."""
    import threading

    from django.db import connection
    from django.test import Client

    stage = released_stage(16)
    people = [make_staff(stage.event.festival, "chief referee"), make_staff(stage.event.festival, "organiser")]
    for table in (1, 2, 3, 4):
        sheet = submit(stage, table)
        posts = [(url("board-confirm", stage, sheet_id=sheet.pk), {}),
                 (url("board-return", stage, sheet_id=sheet.pk), {"reason": "seat 2 miscounted"})]
        barrier, pages = threading.Barrier(2), [None, None]

        def press(index, barrier=barrier, pages=pages, posts=posts):
            client = Client()
            client.force_login(people[index])
            try:
                barrier.wait(timeout=10)
                pages[index] = client.post(*posts[index], follow=True).content.decode()
            finally:
                connection.close()

        threads = [threading.Thread(target=press, args=(i,)) for i in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        sheet.refresh_from_db()
        refused = [page for page in pages if "only a submitted sheet can be" in page]
        assert sheet.status in (S.CONFIRMED, S.RETURNED) and len(refused) == 1


def stage_page_queries(client, django_assert_max_num_queries, players):
    stage = released_stage(players, capacity=players)
    organiser = make_staff(stage.event.festival, "organiser")
    play(stage, organiser, values=[0, 5, 5, 5])  # complete, with ties at the cut at every table
    progress.draw_lots_at_cut(stage=stage, actor=Actor(user=organiser))
    client.force_login(organiser)
    with django_assert_max_num_queries(18):
        html = client.get(url("board-stage", stage, stage=1)).content.decode()
    assert html.count("data-ranking") == players // 4 and "data-lots" in html


def test_stage_page_query_count_with_2_tables(client, django_assert_max_num_queries):
    stage_page_queries(client, django_assert_max_num_queries, 8)


@pytest.mark.slow
def test_stage_page_query_count_with_32_tables_is_the_same(client, django_assert_max_num_queries):
    stage_page_queries(client, django_assert_max_num_queries, 128)


def test_links_page_shows_who_sits_at_each_table_now_after_hong_kong_movement_r8_2(client):
    stage = released_stage(8, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    chief = make_staff(stage.event.festival, "chief referee")
    client.force_login(make_staff(stage.event.festival, "organiser"))
    play(stage, chief, games=[1])  # the last confirmation seats game 2 by movement
    game2 = seating.game_draw(stage, 2)
    assert game2.game == 2
    rows = client.get(url("board-links", stage, stage=stage.number)).context["rows"]
    shown = {row["number"]: sorted(seat.registration_id for seat in row["seats"]) for row in rows}
    assert shown == {table.number: sorted(s.registration_id for s in table.seats.all()) for table in game2.tables.all()}
    assert shown != {table.number: sorted(s.registration_id for s in table.seats.all())
                     for table in seating.game_draw(stage, 1).tables.all()}


def test_board_on_a_finished_game_points_to_the_next_seated_game_r8_2(client):
    stage = released_stage(8, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    chief = make_staff(stage.event.festival, "chief referee")
    client.force_login(chief)
    play(stage, chief, games=[1])  # movement seats game 2
    finished = client.get(reverse("board", kwargs=ev(stage)), {"stage": stage.number, "game": 1})
    assert finished.context["next_game"] == 2
    assert "Every table of game 1 is confirmed." in finished.content.decode()
    assert finished.context["next_game_url"].endswith(f"stage={stage.number}&game=2")
    current = client.get(reverse("board", kwargs=ev(stage)))
    assert current.context["game"] == 2 and current.context["next_game"] is None
