"""Safety rails of the chief referee's and organiser's pages (tournament.services.confirmation): closing a
stage (R8.1) and disqualifying a player (R9) ask first, with counts and names; "Close the stage" says beside
itself why it is disabled and links to where it is fixed; the board confirms every clean sheet of a game in
one confirmed action. A POST without the confirmation, or for a state that changed since, does nothing."""

import pytest
from django.urls import reverse

from scoring.models import ScoreSheet
from scoring.services import progress
from scoring.services.sheets import (
    clean_sheets_preview,
    confirm_clean_sheets,
    confirm_sheet,
    correct_sheet,
    submit_sheet,
)
from tests.confirming import confirmation
from tests.factories import make_festival, make_staff, released_stage
from tests.scoring.helpers import entry_for, key, text
from tournament.models import AuditEntry, ConductRecord, Stage
from tournament.services import seating
from tournament.services.audit import Actor
from tournament.services.confirmation import Unconfirmed

pytestmark = pytest.mark.django_db
LINK = Actor(label="table link")
S = ScoreSheet.Status


def ev(stage):
    return {"festival": stage.event.festival.slug, "event": stage.event.slug}


def stage_url(name, stage):
    return reverse(name, kwargs={**ev(stage), "stage": stage.number})


def submit(stage, table, values=(0, 10, 20, 30), *, game=1, actor=LINK):
    seats = seating.game_draw(stage, game).tables.get(number=table).seats.count()
    return submit_sheet(stage=stage, game=game, table_number=table, accept_warnings=True,
                        entry=entry_for(stage, game, table, list(values)[:seats]), idempotency_key=key(),
                        actor=actor, via=actor.label or "account")


def play(stage, chief, values=(0, 10, 20, 30), games=None, skip=()):
    """Every table of the games, confirmed; `skip` = (game, table) pairs left without a sheet."""
    for game in games or range(1, stage.games + 1):
        for table in seating.game_draw(stage, game).tables.all():
            if (game, table.number) not in skip:
                confirm_sheet(sheet=submit(stage, table.number, values, game=game), actor=Actor(user=chief))


@pytest.fixture
def round_of_8(client):
    """Busan round 1 of 8 players (2 tables of 4, 3 games), the organiser signed in."""
    stage = released_stage(8)
    organiser = make_staff(stage.event.festival, "organiser")
    client.force_login(organiser)
    return stage, organiser


# --- closing a stage --------------------------------------------------------------------------------------


def test_the_stage_page_puts_close_the_stage_at_the_top_and_says_why_it_is_disabled(client, round_of_8):
    stage, organiser = round_of_8
    play(stage, organiser, skip={(3, 1), (3, 2), (2, 2)})
    html = text(client.get(stage_url("board-stage", stage)))
    assert html.index("Close the stage") < html.index("Confirmed sheets")
    assert 'disabled aria-describedby="close-blockers"' in html
    assert "Table 2, game 2 has no confirmed sheet." in html
    assert "Game 3: 2 tables have no confirmed sheet (1, 2)." in html
    board = reverse("board", kwargs=ev(stage))
    assert f'href="{board}?stage=1&amp;game=3"' in html and f'href="{board}?stage=1&amp;game=2"' in html
    response = client.post(stage_url("board-close", stage), follow=True)  # the POST is refused the same way
    assert "Table 2, game 2 has no confirmed sheet." in text(response)
    assert Stage.objects.get(pk=stage.pk).closed_at is None


def test_a_tie_at_the_cut_disables_closing_with_a_link_to_the_lots(client, round_of_8):
    stage, organiser = round_of_8
    play(stage, organiser, values=(0, 5, 5, 5))
    html = text(client.get(stage_url("board-stage", stage)))
    assert "2 ties at the cut still need a lot." in html
    assert f'href="{stage_url("board-stage", stage)}#ties"' in html and 'id="ties"' in html
    page = client.get(stage_url("board-close", stage))
    assert "data-blockers" in text(page) and 'name="confirm"' not in text(page)
    progress.draw_lots_at_cut(stage=stage, actor=Actor(user=organiser))
    page = text(client.get(stage_url("board-close", stage)))
    assert "4 players advance, 4 are out." in page and "2 ties at the cut are resolved by lot." in page


def test_closing_shows_who_advances_and_needs_the_confirmation(client, round_of_8):
    stage, organiser = round_of_8
    play(stage, organiser)
    html = text(client.get(stage_url("board-stage", stage)))
    assert f'href="{stage_url("board-close", stage)}"' in html and "close-blockers" not in html
    page = client.get(stage_url("board-close", stage))
    html = text(page)
    assert "Close Round 1" in html and "4 players advance, 4 are out." in html
    assert "Final is created with them, ready to be drawn." in html
    advancing = progress.advancement(stage).advancing
    for registration in stage.event.registrations.filter(pk__in=advancing).select_related("player"):
        assert registration.player.name in html
    assert client.post(stage_url("board-close", stage)).status_code == 200  # no confirmation: the page again
    assert Stage.objects.get(pk=stage.pk).closed_at is None and not Stage.objects.filter(number=2).exists()
    state = page.context["preview"].state
    response = client.post(stage_url("board-close", stage), {"confirm": state})
    assert response.status_code == 302 and response.url == reverse("manage-draws", kwargs=ev(stage))
    assert Stage.objects.get(pk=stage.pk).closed_at is not None
    again = client.post(stage_url("board-close", stage), {"confirm": state}, follow=True)
    assert "This stage is already closed." in text(again)
    assert Stage.objects.filter(event=stage.event, number=2).count() == 1
    assert AuditEntry.objects.filter(action="stage.closed").count() == 1


def test_a_correction_after_the_page_was_opened_makes_the_confirmation_stale(client, round_of_8):
    stage, organiser = round_of_8
    play(stage, organiser, values=(0, 1, 2, 3))  # seats 1 and 2 of each table advance
    _page, state = confirmation(client, stage_url("board-close", stage))
    sheet = ScoreSheet.objects.get(stage=stage, game=1, table_number=1, status=S.CONFIRMED)
    # Game 1 at table 1 really went to seat 4 with big racks left: seat 4 now advances instead of seat 2.
    entry = entry_for(stage, 1, 1, [90, 80, 70, 0], winner=3)
    correct_sheet(sheet=sheet, entry=entry, reason="wrong winner", accept_warnings=True, idempotency_key=key(),
                  actor=Actor(user=organiser))
    response = client.post(stage_url("board-close", stage), {"confirm": state})
    assert response.status_code == 200 and "Something changed since this page was opened" in text(response)
    assert Stage.objects.get(pk=stage.pk).closed_at is None
    with pytest.raises(Unconfirmed):
        progress.close_stage(stage=stage, actor=Actor(user=organiser), expect=state)


@pytest.mark.parametrize("who", [None, "chief referee", "referee", "other organiser"])
def test_only_organisers_see_or_confirm_the_closing(client, who):
    stage = released_stage(8)
    play(stage, make_staff(stage.event.festival, "chief referee"))
    if who == "other organiser":
        client.force_login(make_staff(make_festival(), "organiser"))
    elif who:
        client.force_login(make_staff(stage.event.festival, who))
    state = progress.closing_preview(stage).state
    for response in (client.get(stage_url("board-close", stage)),
                     client.post(stage_url("board-close", stage), {"confirm": state})):
        assert response.status_code == (302 if who is None else 403)
    assert Stage.objects.get(pk=stage.pk).closed_at is None


# --- disqualifying a player (R9) -------------------------------------------------------------------------


def test_a_disqualification_confirmed_on_a_stale_preview_is_shown_again(client):
    stage = released_stage(8)
    chief = make_staff(stage.event.festival, "chief referee")
    client.force_login(chief)
    player = seating.seats(seating.game_draw(stage, 1), table=1)[0].registration
    target = reverse("conduct-record", kwargs=ev(stage))
    data = {"action": "disqualify", "disqualify-number": player.number, "disqualify-kind": "disqualified",
            "disqualify-note": "Third offence", "disqualify-key": key()}
    preview = client.post(target, data)
    html = text(preview)
    assert "Their 0 confirmed game result(s) stay in the standings" in html and 'name="confirm"' in html
    confirm_sheet(sheet=submit(stage, 1), actor=Actor(user=chief))  # a result of theirs meanwhile
    response = client.post(target, {**data, "confirm": preview.context["effect"].state})
    assert response.status_code == 200 and "Something changed since this page was opened" in text(response)
    assert "Their 1 confirmed game result(s)" in text(response)
    assert not ConductRecord.objects.exists()
    confirmed = {**data, "confirm": response.context["effect"].state}
    assert client.post(target, confirmed).status_code == 302
    again = client.post(target, confirmed, follow=True)  # the same POST again
    assert "This was already recorded" in text(again)
    assert ConductRecord.objects.filter(kind=ConductRecord.Kind.DISQUALIFIED).count() == 1


# --- the board: every clean sheet of a game at once ----------------------------------------------------------


@pytest.fixture
def busy_game():
    """Busan round 1 of 20 (5 tables): tables 1, 2, 5 clean, 3 with a warning the referee accepted, 4 submitted by
    the chief referee themself."""
    stage = released_stage(20)
    chief = make_staff(stage.event.festival, "chief referee")
    for table in (1, 2, 5):
        submit(stage, table)
    submit(stage, 3, (0, 120, 20, 30))  # a rack over 100: a warning (rules/ high_rack_value)
    submit(stage, 4, actor=Actor(user=chief))
    return stage, chief


def test_confirming_every_clean_sheet_skips_and_reports_the_others(busy_game):
    stage, chief = busy_game
    tables = confirm_clean_sheets(stage=stage, game=1, actor=Actor(user=chief))
    assert tables == {"clean": [1, 2, 5], "warnings": [3], "stale": [], "disputed": [], "unagreed": [], "own": [4]}
    states = dict(ScoreSheet.objects.filter(stage=stage).values_list("table_number", "status"))
    assert states == {1: S.CONFIRMED, 2: S.CONFIRMED, 3: S.SUBMITTED, 4: S.SUBMITTED, 5: S.CONFIRMED}
    assert ScoreSheet.objects.get(stage=stage, table_number=1).decided_by == chief
    assert AuditEntry.objects.filter(action="sheet.confirmed").count() == 3
    summary = AuditEntry.objects.get(action="sheet.confirmed_clean")
    assert summary.after == {"game": 1, "confirmed": [1, 2, 5], "skipped": {"warnings": [3], "own": [4]}}
    with pytest.raises(Exception, match="No clean sheet of game 1 waits for confirmation."):
        confirm_clean_sheets(stage=stage, game=1, actor=Actor(user=chief))


def test_the_board_links_to_the_confirmation_which_shows_how_many(client, busy_game):
    stage, chief = busy_game
    client.force_login(chief)
    board = text(client.get(reverse("board", kwargs=ev(stage))))
    assert "Confirm every clean sheet of this game (3)" in board
    target = reverse("board-confirm-clean", kwargs=ev(stage))
    page = client.get(target, {"stage": 1, "game": 1})
    html = text(page)
    assert "3 sheets submitted with no problems are confirmed (tables 1, 2, 5)." in html
    assert "1 sheet with warnings stays submitted: open it and check it (table 3)." in html
    assert "1 sheet you submitted yourself stays submitted" in html
    assert client.post(target, {"stage": 1, "game": 1}).status_code == 200
    assert not ScoreSheet.objects.filter(status=S.CONFIRMED).exists()
    # Someone else confirms table 5 after the page was opened: the count differs, the page asks again.
    state = page.context["preview"].state
    confirm_sheet(sheet=ScoreSheet.objects.get(stage=stage, table_number=5),
                  actor=Actor(user=make_staff(stage.event.festival, "organiser")))
    response = client.post(target, {"stage": 1, "game": 1, "confirm": state})
    assert response.status_code == 200 and "Something changed" in text(response)
    assert "2 sheets submitted with no problems are confirmed (tables 1, 2)." in text(response)
    confirmed = {"stage": 1, "game": 1, "confirm": response.context["preview"].state}
    response = client.post(target, confirmed, follow=True)
    assert "2 sheets confirmed." in text(response)
    again = client.post(target, confirmed, follow=True)
    assert "No clean sheet of game 1 waits for confirmation." in text(again)
    assert ScoreSheet.objects.filter(stage=stage, status=S.SUBMITTED).count() == 2  # tables 3 and 4
    assert AuditEntry.objects.filter(action="sheet.confirmed_clean").count() == 1


@pytest.mark.parametrize("who", [None, "referee", "desk"])
def test_a_referee_cannot_confirm_every_clean_sheet(client, busy_game, who):
    stage, chief = busy_game
    if who:
        client.force_login(make_staff(stage.event.festival, who))
    target = reverse("board-confirm-clean", kwargs=ev(stage))
    state = clean_sheets_preview(stage=stage, game=1, actor=Actor(user=chief)).state
    for response in (client.get(target, {"stage": 1, "game": 1}),
                     client.post(target, {"stage": 1, "game": 1, "confirm": state})):
        assert response.status_code == (302 if who is None else 403)
    assert not ScoreSheet.objects.filter(status=S.CONFIRMED).exists()


@pytest.mark.parametrize("query", [{}, {"stage": 9, "game": 1}, {"stage": 1, "game": 99}, {"stage": "x"}])
def test_a_bad_game_on_the_confirmation_changes_nothing(client, busy_game, query):
    stage, chief = busy_game
    client.force_login(chief)
    target = reverse("board-confirm-clean", kwargs=ev(stage))
    assert client.get(target, query).status_code in (302, 404)
    assert client.post(target, {**query, "confirm": "0" * 24}).status_code in (302, 404)
    assert not ScoreSheet.objects.filter(status=S.CONFIRMED).exists()


@pytest.mark.parametrize("players", [8, 64])
def test_the_closing_confirmation_takes_the_same_queries_for_any_number_of_players(client, players,
                                                                                  django_assert_max_num_queries):
    stage = released_stage(players, capacity=players)
    organiser = make_staff(stage.event.festival, "organiser")
    play(stage, organiser)
    client.force_login(organiser)
    with django_assert_max_num_queries(17):
        page = client.get(stage_url("board-close", stage))
    assert f"{players // 2} players advance" in text(page)
