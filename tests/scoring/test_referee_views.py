"""The referee's pages: table link and signed-in access, the table page, the entry form, the live
check, submitting (idempotent), and hostile input — R4–R6 judged by the same `judge` as the services."""

import random
import re

import pytest
from django.test import Client
from django.utils import timezone

from scoring.models import RefereeAssignment, ScoreSheet, TableLink
from scoring.services.sheets import confirm_sheet, return_sheet, submit_sheet
from tests.factories import make_festival, make_staff, released_stage
from tests.scoring.helpers import chief_of, entry_for, key, text
from tournament.models import AuditEntry, Event, StaffRole
from tournament.services import seating
from tournament.services.audit import Actor
from tournament.services.staff import remove_role

pytestmark = pytest.mark.django_db


# --- helpers ---------------------------------------------------------------------------------------------

def link_url(link, game=None, preview=False, stage=1):
    url = f"/t/{link.token}/"
    if game is not None:
        url += f"stage-{stage}/game/{game}/"
    return url + ("preview/" if preview else "")


def sheet_data(stage, game, table, values, *, end="went_out", winner=0, idem=None, accept=False, seats=None,
               action="submit", overrides=None):
    """The POST the entry form sends: `values[i]` is seat i's counted rack value (the winner's is ignored);
    `overrides[i]` replaces seat i's fields (short names: tiles, rack_value, jokers, opened, …)."""
    seats = seats or seating.seats(seating.game_draw(stage, game), table=table)
    data = {"idempotency_key": idem or key(), "end": end, "went_out": "", "action": action}
    for index, seat in enumerate(seats):
        out = end == "went_out" and index == winner
        if out:
            data["went_out"] = str(seat.position)
        fields = {"registration": seat.registration_id, "tiles": "", "rack_value": "" if out else values[index],
                  "jokers": "" if out else 0, "opened": "yes", "could_open": ""}
        fields.update((overrides or {}).get(index, {}))
        data.update({f"s{seat.position}_{name}": value for name, value in fields.items()})
    if accept:
        data["accept_warnings"] = "on"
    return data


def without_request_details(response) -> str:
    """The page minus what differs per request anyway: the CSRF token and the address it was asked for."""
    page = re.sub(r'(name="csrfmiddlewaretoken" value|name="csrf-token" content)="[^"]*"', r"\1", text(response))
    return re.sub(r'name="next" value="[^"]*"', "", page)


# --- access ----------------------------------------------------------------------------------------------

def test_a_table_link_opens_the_table_page_with_the_players_in_seat_order(client, stage, link):
    response = client.get(link_url(link))
    assert response.status_code == 200
    page = text(response)
    names = [seat.registration.player.name for seat in seating.seats(seating.game_draw(stage, 1), table=1)]
    positions = [page.index(name) for name in names]
    assert positions == sorted(positions)
    assert stage.event.name in page and "Table 1" in page
    assert page.count("To enter") == stage.games
    assert response["Cache-Control"].startswith("max-age=0")


def test_unknown_and_malformed_links_get_the_same_friendly_404(client, stage, link):
    unknown = client.get("/t/" + "A" * 32 + "/")
    assert unknown.status_code == 404
    assert "This link does not open any table" in text(unknown) and stage.event.name not in text(unknown)
    bodies = {without_request_details(unknown)}
    for path in ("/t/short/", "/t/" + "x" * 65 + "/", "/t/" + "B" * 32 + "/stage-1/game/1/",
                 "/t/" + "C" * 40 + "/stage-1/game/1/preview/", "/t/%00" + "A" * 31 + "/"):
        response = client.get(path) if "preview" not in path else client.post(path, {})
        assert response.status_code == 404, path
        bodies.add(without_request_details(response))
    assert len(bodies) == 1


def test_a_revoked_link_says_it_was_replaced_with_410_on_every_page(client, stage, link):
    revoked = TableLink.objects.create(event=stage.event, table_number=2, revoked_at=timezone.now())
    for path in (f"/t/{revoked.token}/", f"/t/{revoked.token}/stage-1/game/1/"):
        response = client.get(path)
        assert response.status_code == 410
        assert "This table link was replaced by the organiser" in text(response)
    response = client.post(f"/t/{revoked.token}/stage-1/game/1/", sheet_data(stage, 1, 2, [0, 5, 6, 7]))
    assert response.status_code == 410 and not ScoreSheet.objects.exists()


def test_a_revoked_link_answers_in_the_readers_language(client, stage, link):
    link.revoked_at = timezone.now()
    link.save()
    response = client.get(link_url(link), HTTP_ACCEPT_LANGUAGE="ko")
    assert response.status_code == 410 and 'lang="ko"' in text(response)
    assert "운영자" in text(response) and "replaced by the organiser" not in text(response)


def test_a_live_check_from_a_link_revoked_meanwhile_reloads_the_page(client, stage, link):
    data = sheet_data(stage, 1, 1, [0, 5, 6, 7])
    assert client.post(link_url(link, 1, preview=True), data, HTTP_HX_REQUEST="true").status_code == 200
    link.revoked_at = timezone.now()
    link.save()
    response = client.post(link_url(link, 1, preview=True), data, HTTP_HX_REQUEST="true")
    assert response.status_code == 410 and response["HX-Refresh"] == "true"
    assert client.post(link_url(link, 1), data).status_code == 410
    assert not ScoreSheet.objects.exists()


def test_games_outside_the_stage_are_not_found(client, link):
    for game in (0, 4, 99999):
        assert client.get(link_url(link, game)).status_code == 404


def test_another_tables_link_cannot_enter_this_tables_players(client, stage, link):
    other = TableLink.objects.create(event=stage.event, table_number=2)
    data = sheet_data(stage, 1, 1, [0, 5, 6, 7])  # table 1's players, posted through table 2's link
    response = client.post(link_url(other, 1), data)
    assert response.status_code == 200
    assert "The players at this table have changed" in text(response)
    assert not ScoreSheet.objects.exists()


def test_signed_in_referee_assigned_to_the_table_may_enter_it(client, stage):
    referee = make_staff(stage.event.festival, "referee")
    RefereeAssignment.objects.create(event=stage.event, table_number=1, referee=referee)
    client.force_login(referee)
    assert client.get(f"/referee/{stage.pk}/1/").status_code == 200
    assert client.get(f"/referee/{stage.pk}/1/game/1/").status_code == 200
    assert client.get(f"/referee/{stage.pk}/2/").status_code == 403
    response = client.post(f"/referee/{stage.pk}/1/game/1/", sheet_data(stage, 1, 1, [0, 5, 6, 7]))
    assert response.status_code == 302
    sheet = ScoreSheet.objects.get()
    assert (sheet.submitted_by, sheet.submitted_via) == (referee, referee.username)


@pytest.mark.parametrize("removed", ["no other role", "kept the desk role"])
def test_a_referee_whose_role_ended_may_no_longer_enter_the_assigned_table(client, stage, removed):
    """The assignment ends with the role (kept on record) and so does access, even for someone who keeps another role."""
    referee = make_staff(stage.event.festival, "referee")
    RefereeAssignment.objects.create(event=stage.event, table_number=1, referee=referee)
    client.force_login(referee)
    assert client.get(f"/referee/{stage.pk}/1/game/1/").status_code == 200
    if removed == "kept the desk role":
        StaffRole.objects.create(festival=stage.event.festival, user=referee, role="desk")
    remove_role(festival=stage.event.festival, user=referee, role="referee", actor=Actor(label="test"))
    for path in (f"/referee/{stage.pk}/1/", f"/referee/{stage.pk}/1/game/1/"):
        assert client.get(path).status_code == 403
    assert client.post(f"/referee/{stage.pk}/1/game/1/preview/", sheet_data(stage, 1, 1, [0, 5, 6, 7])).status_code == 403
    assert client.post(f"/referee/{stage.pk}/1/game/1/", sheet_data(stage, 1, 1, [0, 5, 6, 7])).status_code == 403
    assert not ScoreSheet.objects.exists()


def test_unassigned_referee_and_organiser_of_another_festival_are_refused(client, stage):
    client.force_login(make_staff(stage.event.festival, "referee"))
    assert client.get(f"/referee/{stage.pk}/1/").status_code == 403
    assert client.post(f"/referee/{stage.pk}/1/game/1/", sheet_data(stage, 1, 1, [0, 5, 6, 7])).status_code == 403
    client.force_login(make_staff(make_festival(), "organiser"))
    assert client.get(f"/referee/{stage.pk}/1/game/1/").status_code == 403
    assert client.post(f"/referee/{stage.pk}/1/game/1/preview/", {}).status_code == 403
    assert not ScoreSheet.objects.exists()


@pytest.mark.parametrize("role", ["chief referee", "organiser"])
def test_chief_referee_and_organiser_may_open_any_table(client, stage, role):
    client.force_login(make_staff(stage.event.festival, role))
    assert client.get(f"/referee/{stage.pk}/2/").status_code == 200
    assert client.get(f"/referee/{stage.pk}/2/game/3/").status_code == 200


def test_anonymous_visitors_are_sent_to_sign_in_and_unknown_stages_are_not_found(client, stage):
    response = client.get(f"/referee/{stage.pk}/1/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    response = client.post(f"/referee/{stage.pk}/1/game/1/", sheet_data(stage, 1, 1, [0, 5, 6, 7]))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert client.get(f"/referee/{stage.pk + 999}/1/").status_code == 404
    assert not ScoreSheet.objects.exists()


def test_posts_need_the_csrf_token(stage, link):
    strict = Client(enforce_csrf_checks=True)
    assert strict.post(link_url(link, 1), sheet_data(stage, 1, 1, [0, 5, 6, 7])).status_code == 403
    assert not ScoreSheet.objects.exists()


# --- pages -----------------------------------------------------------------------------------------------

def test_entry_page_has_the_form_the_pad_and_the_live_check(client, stage, link):
    page = text(client.get(link_url(link, 2)))
    for seat in seating.seats(seating.game_draw(stage, 2), table=1):
        assert f'name="s{seat.position}_tiles"' in page
        assert f'name="s{seat.position}_rack_value"' in page and 'inputmode="numeric"' in page
        assert f'value="{seat.registration_id}"' in page
    assert re.search(r'name="idempotency_key" value="[0-9a-f]{32}"', page)
    assert f'hx-post="{link_url(link, 2, preview=True)}"' in page
    assert 'hx-trigger="input changed delay:400ms, change"' in page
    assert 'data-tile="R5" aria-label="red 5"' in page and 'data-tile="K13"' in page and 'data-tile="J"' in page
    assert page.count("data-tile=") == 52 + 1  # 4 colours x 13, and the joker
    assert "css/sheet.css" in page and "js/sheet.js" in page
    assert "<script>" not in page.split("<body>")[1].replace('<script src=', '')


def test_pages_render_in_korean_and_chinese(client, stage, link):
    for language in ("ko", "zh-hant"):
        client.cookies["django_language"] = language
        for url in (link_url(link), link_url(link, 1)):
            response = client.get(url)
            assert response.status_code == 200
            assert f'lang="{language}"' in text(response)


def test_hong_kong_pages_show_each_games_own_seating(client):
    stage = released_stage(16, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    chief = chief_of(stage.event)
    link = TableLink.objects.create(event=stage.event, table_number=2)
    assert "Not released yet" in text(client.get(link_url(link)))
    assert "has not been released yet" in text(client.get(link_url(link, 2)))
    rng = random.Random(5)
    for table in seating.game_draw(stage, 1).tables.all():
        values = [0] + rng.sample(range(1, 60), table.seats.count() - 1)
        sheet = submit_sheet(stage=stage, game=1, table_number=table.number, accept_warnings=True,
                             entry=entry_for(stage, 1, table.number, values), idempotency_key=key(),
                             actor=Actor(label="x"), via="x")
        confirm_sheet(sheet=sheet, actor=chief)
    game_1 = [s.registration.player.name for s in seating.seats(seating.game_draw(stage, 1), table=2)]
    game_2 = [s.registration.player.name for s in seating.seats(seating.game_draw(stage, 2), table=2)]
    assert game_1 != game_2
    page = text(client.get(link_url(link)))
    assert "Confirmed" in page and "To enter" in page
    entry = text(client.get(link_url(link, 2)))
    positions = [entry.index(name) for name in game_2]
    assert positions == sorted(positions)
    response = client.post(link_url(link, 2), sheet_data(stage, 2, 2, [0, 3, 4, 5]))
    assert response.status_code == 302
    assert ScoreSheet.objects.get(game=2).draw == seating.game_draw(stage, 2)


def test_confirmed_and_submitted_sheets_are_shown_read_only(client, stage, link):
    chief = chief_of(stage.event)
    sheet = submit_sheet(stage=stage, game=1, table_number=1, entry=entry_for(stage, 1, 1, [0, 5, 6, 7]),
                         accept_warnings=False, idempotency_key=key(), actor=Actor(label="table 1 link"), via="table 1 link")
    page = text(client.get(link_url(link, 1)))
    assert "Already submitted by table 1 link" in page and "+18" in page and 'name="end"' not in page
    assert "Submitted: waiting for the chief referee" in text(client.get(link_url(link)))
    confirm_sheet(sheet=sheet, actor=chief)
    assert "This sheet is confirmed." in text(client.get(link_url(link, 1)))


# --- the live check --------------------------------------------------------------------------------------

def test_preview_scores_the_golden_hong_kong_sheet_with_a_joker_r6():
    """Seed 003: 甲 −7, 乙 +118 (win), 丙 −61 (K13 J R10 Y8: 31 + a joker at 30), 丁 −50 (20 + a joker)."""
    stage = released_stage(4, ruleset=Event.Ruleset.HK_2016)
    link = TableLink.objects.create(event=stage.event, table_number=1)
    data = sheet_data(stage, 1, 1, [7, 0, "", 20], winner=1,
                      overrides={2: {"tiles": "K13 J R10 Y8", "jokers": ""}, 3: {"jokers": 1}})
    response = Client().post(link_url(link, 1, preview=True), data, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    page = text(response)
    cells = re.findall(r'<td class="text-end stat">([^<]+)</td>', page)
    assert cells == ["7", "-7", "0", "+118", "61", "-61", "50", "-50"]
    assert 'data-errors="0"' in page and 'sheet-total">0<' in page
    assert page.count('hx-swap-oob="true"') == 4
    assert not ScoreSheet.objects.exists()


def test_preview_puts_problems_next_to_their_seat_and_counts_errors(client, stage, link):
    data = sheet_data(stage, 1, 1, [0, 5, 6, 7], overrides={2: {"tiles": "R5 B5", "rack_value": 40}})
    page = text(client.post(link_url(link, 1, preview=True), data))
    third = seating.seats(seating.game_draw(stage, 1), table=1)[2].position
    seat_slot = page.split(f'id="seat-{third}-check"')[1].split("</div>")[0]
    assert "The rack value 40 does not match the tiles (10)." in seat_slot  # R5.2: what was counted, what the tiles say
    assert 'data-errors="1"' in page


def test_preview_of_an_incomplete_sheet_says_what_is_missing(client, stage, link):
    response = client.post(link_url(link, 1, preview=True), {"s1_rack_value": "abc"})
    assert response.status_code == 200
    assert "Choose how the game ended." in text(response)
    assert 'data-errors="0"' not in text(response)


# --- submitting ------------------------------------------------------------------------------------------

def test_submit_records_the_sheet_and_tells_the_browser_to_drop_the_draft(client, stage, link):
    data = sheet_data(stage, 1, 1, [0, 5, 6, 7])
    response = client.post(link_url(link, 1), data)
    assert response.status_code == 302 and response["Location"] == link_url(link)
    sheet = ScoreSheet.objects.get()
    assert (sheet.status, sheet.submitted_via, sheet.submitted_by) == ("submitted", "table 1 link", None)
    assert [s.score for s in sheet.seats.all()] == [18, -5, -6, -7]
    assert AuditEntry.objects.filter(action="sheet.submitted", actor_label="table 1 link").count() == 1
    page = text(client.get(response["Location"]))
    assert "Game 1 of table 1 was sent to the chief referee." in page
    assert f'data-drafts-done="rk-sheet|s{stage.pk}t1|1|{data["idempotency_key"]}"' in page


def test_submitting_twice_with_the_same_key_records_one_sheet(client, stage, link):
    data = sheet_data(stage, 1, 1, [0, 5, 6, 7])
    first = client.post(link_url(link, 1), data)
    second = client.post(link_url(link, 1), data)
    assert first.status_code == second.status_code == 302
    assert ScoreSheet.objects.count() == 1


def test_a_second_draft_for_a_submitted_game_shows_the_existing_sheet(client, stage, link):
    client.post(link_url(link, 1), sheet_data(stage, 1, 1, [0, 5, 6, 7]))
    response = client.post(link_url(link, 1), sheet_data(stage, 1, 1, [0, 9, 9, 9]))
    assert response.status_code == 200
    page = text(response)
    assert "already been submitted" in page and "Already submitted by table 1 link" in page and "+18" in page
    assert ScoreSheet.objects.count() == 1


def test_mistakes_block_the_submit_with_the_problem_at_the_seat(client, stage, link):
    data = sheet_data(stage, 1, 1, [5, 5, 6, 7], end="went_out", winner=9)  # nobody marked out
    response = client.post(link_url(link, 1), data)
    assert response.status_code == 200
    page = text(response)
    assert "The sheet has mistakes; correct them first." in page
    assert "no one is marked as out" in page
    assert f'value="{data["idempotency_key"]}"' in page  # the same draft, to be corrected
    assert not ScoreSheet.objects.exists()


@pytest.mark.parametrize("held", [{"tiles": "R7 R8"}, {"rack_value": 15}, {"jokers": 1}],
                         ids=["tiles", "rack value", "jokers"])
def test_a_seat_marked_went_out_with_something_on_its_rack_is_refused_at_that_seat(client, stage, link, held):
    """What a browser sends for a seat whose rack was typed before it was marked "went out" (the page hides
    the rack then, but the fields still go with the form)."""
    data = sheet_data(stage, 1, 1, [0, 5, 6, 7], winner=0, overrides={0: held}, accept=True)
    for url in (link_url(link, 1, preview=True), link_url(link, 1)):
        page = text(client.post(url, data))
        seat = page.split('id="seat-1-check"')[1].split("</div>")[0]
        assert "A player who went out holds no tiles." in seat
    assert "The sheet has mistakes; correct them first." in page
    client.cookies["django_language"] = "ko"
    assert "타일을 모두 내려놓은 참가자의 받침대에는 타일이 없어야 합니다." in text(client.post(link_url(link, 1), data))
    assert not ScoreSheet.objects.exists()


def test_the_knocked_over_rack_is_offered_only_under_rules_that_have_it_r5(client, stage, link):
    """wrc-2014 (the Busan rules) has no knocked-over-rack penalty: no such box, and a box sent anyway
    changes nothing; hk-2016 has it (R5.3)."""
    page = text(client.get(link_url(link, 1)))
    assert "Knocked over the rack" not in page and "_conduct_penalty" not in page
    data = sheet_data(stage, 1, 1, [0, 5, 6, 7], overrides={1: {"conduct_penalty": "on"}})
    assert client.post(link_url(link, 1), data).status_code == 302
    assert list(ScoreSheet.objects.get().seats.values_list("conduct_penalty", "penalty")) == [
        (False, 0), (False, 5), (False, 6), (False, 7)]
    hong_kong = released_stage(4, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    hk_link = TableLink.objects.create(event=hong_kong.event, table_number=1)
    page = text(client.get(link_url(hk_link, 1)))
    assert "Knocked over the rack" in page and 'name="s2_conduct_penalty"' in page
    data = sheet_data(hong_kong, 1, 1, [0, 5, 6, 7], overrides={1: {"conduct_penalty": "on"}})
    assert client.post(link_url(hk_link, 1), data).status_code == 302
    assert ScoreSheet.objects.get(stage=hong_kong).seats.get(position=2).penalty == 200


def test_warnings_need_the_referees_tick(client, stage, link):
    data = sheet_data(stage, 1, 1, [0, 150, 6, 7])
    response = client.post(link_url(link, 1), data)
    assert "Please check the warnings and confirm that the sheet is right." in text(response)
    assert "A rack value over 100 is unusual" in text(response)
    assert not ScoreSheet.objects.exists()
    data["accept_warnings"] = "on"
    assert client.post(link_url(link, 1), data).status_code == 302
    assert ScoreSheet.objects.get().warnings[0]["code"] == "high_rack_value"


def test_check_without_sending_saves_nothing(client, stage, link):
    response = client.post(link_url(link, 1), sheet_data(stage, 1, 1, [0, 5, 6, 7], action="check"))
    assert response.status_code == 200 and "+18" in text(response) and "No problems found." in text(response)
    assert not ScoreSheet.objects.exists()


def test_never_opened_player_counted_needs_the_could_open_answer_r5(client, stage, link):
    data = sheet_data(stage, 1, 1, [0, 40, 6, 7], overrides={1: {"opened": "no"}})
    page = text(client.post(link_url(link, 1), data))
    assert "could have opened" in page and not ScoreSheet.objects.exists()
    data[f"s{seating.seats(seating.game_draw(stage, 1), table=1)[1].position}_could_open"] = "no"
    assert client.post(link_url(link, 1), data).status_code == 302
    assert ScoreSheet.objects.get().seats.order_by("position")[1].penalty == 100


def test_a_returned_sheet_is_prefilled_and_sent_again_as_a_new_version(client, stage, link):
    chief = chief_of(stage.event)
    data = sheet_data(stage, 1, 1, [0, 5, 6, 7])
    client.post(link_url(link, 1), data)
    return_sheet(sheet=ScoreSheet.objects.get(), actor=chief, reason="Seat 2 held 15")
    assert "Seat 2 held 15" in text(client.get(link_url(link)))
    page = text(client.get(link_url(link, 1)))
    assert "Seat 2 held 15" in page and 'value="5"' in page and data["idempotency_key"] in page  # a done draft
    # The old draft, sent again with its used key, is not taken for the new version.
    stale = client.post(link_url(link, 1), data)
    assert "already sent earlier" in text(stale) and ScoreSheet.objects.count() == 1
    fresh = sheet_data(stage, 1, 1, [0, 15, 6, 7])
    assert client.post(link_url(link, 1), fresh).status_code == 302
    assert ScoreSheet.objects.get(status="submitted").version == 2


def test_a_closed_stage_takes_no_sheets_from_signed_in_referees(client, stage):
    client.force_login(make_staff(stage.event.festival, "chief referee"))
    stage.closed_at = timezone.now()
    stage.save()
    assert "This stage is closed" in text(client.get(f"/referee/{stage.pk}/1/game/1/"))
    response = client.post(f"/referee/{stage.pk}/1/game/1/", sheet_data(stage, 1, 1, [0, 5, 6, 7]))
    assert response.status_code == 200 and "This stage is closed" in text(response)
    assert not ScoreSheet.objects.exists()


def test_a_game_not_released_takes_no_sheet(client):
    stage = released_stage(8, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    link = TableLink.objects.create(event=stage.event, table_number=1)
    data = sheet_data(stage, 1, 1, [0, 5, 6, 7])
    response = client.post(link_url(link, 2), data, follow=True)
    assert "This game has not been released yet." in text(response)
    assert client.post(link_url(link, 2, preview=True), data).status_code == 200
    assert not ScoreSheet.objects.exists()


# --- hostile input ---------------------------------------------------------------------------------------

HOSTILE = {
    "html in tiles": {"s2_tiles": "<script>alert(1)</script>"},
    "tile R99": {"s2_tiles": "R99 B5"},
    "huge value": {"s2_rack_value": "999999999999"},
    "negative value": {"s2_rack_value": "-5"},
    "text value": {"s2_rack_value": "five"},
    "float value": {"s2_rack_value": "1e309"},
    "huge jokers": {"s2_jokers": "99999999999999999999"},
    "unknown end": {"end": "exploded"},
    "no end": {"end": None},
    "went out nobody seated": {"went_out": "99"},
    "missing seat": {"s2_registration": None, "s2_rack_value": None, "s2_jokers": None},
    "unseated registration": {"s2_registration": "2147483647"},
    "huge registration": {"s2_registration": str(2**70)},
    "opened nonsense": {"s2_opened": "maybe"},
    "nul bytes": {"s2_tiles": "R5\x00", "s3_rack_value": "\x00"},
    "bad key": {"idempotency_key": "../../etc/passwd"},
    "no key": {"idempotency_key": None},
    "three jokers": {"s2_jokers": "3"},
    "value over 728": {"s2_rack_value": "729"},
}


@pytest.mark.parametrize("case", HOSTILE)
def test_hostile_input_is_refused_without_saving_or_a_server_error(client, stage, link, case):
    data = sheet_data(stage, 1, 1, [0, 5, 6, 7], accept=True)
    positions = [seat.position for seat in seating.seats(seating.game_draw(stage, 1), table=1)]
    for name, value in HOSTILE[case].items():
        name = re.sub(r"^s(\d)_", lambda m: f"s{positions[int(m.group(1)) - 1]}_", name)
        if value is None:
            data.pop(name, None)
        else:
            data[name] = value
    for url in (link_url(link, 1), link_url(link, 1, preview=True)):
        response = client.post(url, data)
        assert response.status_code < 500
        assert "<script>alert(1)</script>" not in text(response)
    assert not ScoreSheet.objects.exists()


def test_extra_seats_and_another_tables_players_change_nothing(client, stage, link):
    other_seats = seating.seats(seating.game_draw(stage, 1), table=2)
    data = sheet_data(stage, 1, 1, [0, 5, 6, 7])
    data.update({"s5_registration": other_seats[0].registration_id, "s5_rack_value": 50, "s5_opened": "yes"})
    assert client.post(link_url(link, 1), data).status_code == 302
    sheet = ScoreSheet.objects.get()
    assert sheet.seats.count() == 4
    assert other_seats[0].registration_id not in set(sheet.seats.values_list("registration_id", flat=True))
    swapped = sheet_data(stage, 2, 1, [0, 5, 6, 7], seats=other_seats)
    assert client.post(link_url(link, 2), swapped).status_code == 200
    assert ScoreSheet.objects.count() == 1


# --- query counts ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [16, 512])
def test_referee_pages_make_the_same_number_of_queries_small_or_large(
        client, players, django_assert_max_num_queries):
    """A 4-player table in a 16- and a 512-player stage: the same bounds (measured: 9, 5, 6, 7, 20, 11;
    a link finds the event's current stage and its table in one query; the first page of a link notes the
    table's first contact, one UPDATE)."""
    stage = released_stage(players)
    link = TableLink.objects.create(event=stage.event, table_number=1)
    submit_sheet(stage=stage, game=1, table_number=1, entry=entry_for(stage, 1, 1, [0, 5, 6, 7]),
                 accept_warnings=False, idempotency_key=key(), actor=Actor(label="t"), via="t")
    with django_assert_max_num_queries(9):
        assert client.get(link_url(link)).status_code == 200
    with django_assert_max_num_queries(5):
        assert client.get(link_url(link, 2)).status_code == 200
    with django_assert_max_num_queries(6):
        assert client.get(link_url(link, 1)).status_code == 200
    with django_assert_max_num_queries(7):
        assert client.post(link_url(link, 2, preview=True), sheet_data(stage, 2, 1, [0, 5, 6, 7])).status_code == 200
    with django_assert_max_num_queries(20):
        assert client.post(link_url(link, 2), sheet_data(stage, 2, 1, [0, 5, 6, 7])).status_code == 302
    client.force_login(make_staff(stage.event.festival, "chief referee"))
    with django_assert_max_num_queries(11):
        assert client.get(f"/referee/{stage.pk}/1/").status_code == 200
