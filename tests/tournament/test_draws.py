"""Draws in the app (R8): first stage, draft, swap, redraw, release, public pages."""

import pytest
from django.urls import reverse

from tests.confirming import confirmed_post
from tests.factories import make_event, make_staff, ready_event
from tournament.models import AuditEntry, Draw, Event, Seat, Stage
from tournament.services import ServiceError, seating
from tournament.services import draws as services
from tournament.services.audit import Actor

pytestmark = pytest.mark.django_db
def tables_of(draw):
    return seating.player_ids(draw)


def test_busan_event_of_117_gets_round_one_with_27_tables_of_four_and_3_of_three():
    event = ready_event(117)
    stage = services.start_event(event=event, actor=Actor(label="t"))
    assert (stage.number, stage.games, stage.advance, stage.advance_count) == (1, 3, "table", 2)
    draw = services.draft_draw(stage=stage, actor=Actor(label="t"), seed=42)
    sizes = sorted((len(t) for t in tables_of(draw)), reverse=True)
    assert sizes == [4] * 27 + [3] * 3
    assert Seat.objects.filter(draw=draw).count() == 117
    assert draw.violations == []  # 8 affiliations spread over 30 tables: always possible


def test_a_draw_is_reproduced_by_its_seed():
    event = ready_event(40)
    stage = services.start_event(event=event, actor=Actor(label="t"))
    first = tables_of(services.draft_draw(stage=stage, actor=Actor(label="t"), seed=7))
    again = tables_of(services.draft_draw(stage=stage, actor=Actor(label="t"), seed=7))
    other = tables_of(services.draft_draw(stage=stage, actor=Actor(label="t"), seed=8))
    assert first == again
    assert first != other


def test_redraw_discards_the_earlier_draft_and_keeps_it():
    event = ready_event(12)
    stage = services.start_event(event=event, actor=Actor(label="t"))
    old = services.draft_draw(stage=stage, actor=Actor(label="t"), seed=1)
    new = services.draft_draw(stage=stage, actor=Actor(label="t"), seed=2)
    old.refresh_from_db()
    assert old.status == Draw.Status.DISCARDED and new.status == Draw.Status.DRAFT
    assert Seat.objects.filter(draw=old).count() == 12  # nothing is lost


def test_hong_kong_game_one_seats_by_player_number():
    event = ready_event(64, format=Event.Format.HONG_KONG)
    stage = services.start_event(event=event, actor=Actor(label="t"))
    assert (stage.games, stage.advance) == (3, "none")
    draw = services.draft_draw(stage=stage, actor=Actor(label="t"), seed=3)
    assert draw.method == Draw.Method.BY_NUMBER
    numbers = {r.id: r.number for r in event.registrations.all()}
    for table_number, players in enumerate(tables_of(draw), start=1):
        # R8.2: table 1 = players 1–4, table 2 = 5–8 …; the seat order within the table is drawn.
        assert sorted(numbers[p] for p in players) == list(range(4 * table_number - 3, 4 * table_number + 1))


def test_start_needs_numbered_players():
    event = make_event()
    with pytest.raises(ServiceError):
        services.start_event(event=event, actor=Actor(label="t"))
    assert not Stage.objects.exists()


def test_swap_moves_two_players_and_rechecks_constraints():
    event = ready_event(8)
    stage = services.start_event(event=event, actor=Actor(label="t"))
    draw = services.draft_draw(stage=stage, actor=Actor(label="t"), seed=5)
    (a, *_), (b, *_), *_ = tables_of(draw)
    services.swap_seats(draw=draw, first=a, second=b, actor=Actor(label="t"))
    after = tables_of(draw)
    assert after[0][0] == b and after[1][0] == a
    draw.refresh_from_db()
    assert draw.swaps == 1
    assert AuditEntry.objects.filter(action="draw.swapped", target_id=draw.id).exists()


def test_swap_with_same_affiliation_is_reported_as_unmet():
    event = ready_event(8)
    schools = ["A", "A", "B", "B", "C", "C", "D", "D"]
    for registration, school in zip(event.registrations.select_related("player").order_by("id"), schools, strict=True):
        registration.player.affiliation = school
        registration.player.save()
    stage = services.start_event(event=event, actor=Actor(label="t"))
    draw = services.draft_draw(stage=stage, actor=Actor(label="t"), seed=5)
    assert draw.violations == []  # four schools of two over two tables: always separable
    school = {r.id: r.player.affiliation for r in event.registrations.select_related("player")}
    first, second = tables_of(draw)
    mover = first[0]
    mate = next(p for p in second if school[p] == school[mover])
    partner = next(p for p in first if p != mover)
    # `mate` takes `partner`'s seat at table 1, next to their schoolmate `mover`.
    services.swap_seats(draw=draw, first=mate, second=partner, actor=Actor(label="t"))
    draw.refresh_from_db()
    # ... and `partner` joins their own schoolmate at table 2: two unmet constraints, one per table.
    assert [v["constraint"] for v in draw.violations] == ["same_affiliation", "same_affiliation"]
    assert {mover, mate} in [set(v["players"]) for v in draw.violations]


def test_released_draw_cannot_be_swapped_or_redrawn_until_unreleased():
    event = ready_event(8)
    stage = services.start_event(event=event, actor=Actor(label="t"))
    draw = services.draft_draw(stage=stage, actor=Actor(label="t"), seed=5)
    services.release_draw(draw=draw, actor=Actor(label="t"))
    (a, *_), (b, *_), *_ = tables_of(draw)
    with pytest.raises(ServiceError):
        services.swap_seats(draw=draw, first=a, second=b, actor=Actor(label="t"))
    with pytest.raises(ServiceError):
        services.draft_draw(stage=stage, actor=Actor(label="t"))
    services.unrelease_draw(draw=draw, actor=Actor(label="t"), reason="missed a player")
    draw.refresh_from_db()
    assert draw.is_draft
    actions = list(AuditEntry.objects.filter(target_id=draw.id, target_type="draw").values_list("action", flat=True))
    assert {"draw.drafted", "draw.released", "draw.unreleased"} <= set(actions)


def test_organiser_drafts_swaps_and_releases_in_the_browser(client):
    event = ready_event(117)
    organiser = make_staff(event.festival, "organiser")
    client.force_login(organiser)
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    assert client.post(reverse("draw-start", kwargs=kwargs)).status_code == 302
    assert client.post(reverse("draw-draft", kwargs={**kwargs, "stage": 1}), {"seed": "2014"}).status_code == 302
    draw = Draw.objects.get()
    assert draw.seed == 2014
    page = client.get(reverse("manage-draws", kwargs=kwargs))
    assert page.status_code == 200 and b"2014" in page.content
    (a, *_), (b, *_), *_ = tables_of(draw)
    client.post(reverse("draw-swap", kwargs={**kwargs, "draw": draw.pk}), {"first": a, "second": b})
    assert tables_of(draw)[0][0] == b
    confirmed_post(client, reverse("draw-release", kwargs={**kwargs, "draw": draw.pk}))
    draw.refresh_from_db()
    assert draw.is_released
    for name in ("draw-print", "draw-cards"):
        assert client.get(reverse(name, kwargs={**kwargs, "draw": draw.pk})).status_code == 200


@pytest.mark.parametrize("data", [{"seed": "-1"}, {"seed": "abc"}, {"seed": "9" * 30}])
def test_bad_seed_is_refused_with_a_message(client, data):
    event = ready_event(8)
    client.force_login(make_staff(event.festival, "organiser"))
    services.start_event(event=event, actor=Actor(label="t"))
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    response = client.post(reverse("draw-draft", kwargs={**kwargs, "stage": 1}), data, follow=True)
    assert response.status_code == 200
    assert not Draw.objects.exists()


@pytest.mark.parametrize("data", [{}, {"first": "x", "second": "1"}, {"first": "999999", "second": "1"}])
def test_bad_swap_changes_nothing(client, data):
    event = ready_event(8)
    client.force_login(make_staff(event.festival, "organiser"))
    stage = services.start_event(event=event, actor=Actor(label="t"))
    draw = services.draft_draw(stage=stage, actor=Actor(label="t"), seed=1)
    before = tables_of(draw)
    kwargs = {"festival": event.festival.slug, "event": event.slug, "draw": draw.pk}
    assert client.post(reverse("draw-swap", kwargs=kwargs), data, follow=True).status_code == 200
    assert tables_of(draw) == before


@pytest.mark.parametrize("role", [None, "desk", "referee"])
def test_only_organisers_draw(client, role):
    event = ready_event(8)
    if role:
        client.force_login(make_staff(event.festival, role))
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    response = client.post(reverse("draw-start", kwargs=kwargs))
    assert response.status_code in (302, 403)
    if role:
        assert response.status_code == 403
    assert not Stage.objects.exists()


def test_organiser_of_another_festival_cannot_release(client):
    event = ready_event(8)
    stage = services.start_event(event=event, actor=Actor(label="t"))
    draw = services.draft_draw(stage=stage, actor=Actor(label="t"), seed=1)
    outsider = make_staff(make_event().festival, "organiser")
    client.force_login(outsider)
    kwargs = {"festival": event.festival.slug, "event": event.slug, "draw": draw.pk}
    assert client.post(reverse("draw-release", kwargs=kwargs)).status_code == 403
    draw.refresh_from_db()
    assert draw.is_draft


def test_public_pages_show_only_released_draws(client):
    event = ready_event(8)
    stage = services.start_event(event=event, actor=Actor(label="t"))
    draw = services.draft_draw(stage=stage, actor=Actor(label="t"), seed=1)
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    someone = event.registrations.select_related("player").first()
    assert someone.player.name.encode() not in client.get(reverse("public-draw", kwargs=kwargs)).content
    services.release_draw(draw=draw, actor=Actor(label="t"))
    assert someone.player.name.encode() in client.get(reverse("public-draw", kwargs=kwargs)).content
    found = client.get(reverse("public-seat", kwargs=kwargs), {"q": someone.player.name.upper()})
    table, position = Seat.objects.filter(draw=draw, registration=someone).values_list("table__number", "position").get()
    assert f"Table {table}, seat {position}".encode() in found.content
    by_number = client.get(reverse("public-seat", kwargs=kwargs), {"q": str(someone.number)})
    assert someone.player.name.encode() in by_number.content
    table_page = client.get(reverse("public-table", kwargs={**kwargs, "number": table}))
    assert someone.player.name.encode() in table_page.content


@pytest.mark.parametrize("players", [8, 128])
def test_public_draw_pages_use_a_constant_number_of_queries(client, django_assert_max_num_queries, players):
    event = ready_event(players)
    stage = services.start_event(event=event, actor=Actor(label="t"))
    services.release_draw(draw=services.draft_draw(stage=stage, actor=Actor(label="t"), seed=1), actor=Actor(label="t"))
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    for url in (reverse("public-draw", kwargs=kwargs), reverse("public-seat", kwargs=kwargs) + "?q=player",
                reverse("public-table", kwargs={**kwargs, "number": 1})):
        with django_assert_max_num_queries(7):  # the seat search also looks for players without a seat
            assert client.get(url).status_code == 200


@pytest.mark.parametrize("players", [8, 128])
def test_organiser_draw_page_uses_a_constant_number_of_queries(client, django_assert_max_num_queries, players):
    event = ready_event(players)
    client.force_login(make_staff(event.festival, "organiser"))
    stage = services.start_event(event=event, actor=Actor(label="t"))
    draw = services.draft_draw(stage=stage, actor=Actor(label="t"), seed=1)
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    with django_assert_max_num_queries(14):
        assert client.get(reverse("manage-draws", kwargs=kwargs)).status_code == 200
    with django_assert_max_num_queries(10):
        assert client.get(reverse("draw-cards", kwargs={**kwargs, "draw": draw.pk})).status_code == 200


def test_public_pages_for_unknown_event_or_table_are_404(client):
    event = ready_event(4)
    assert client.get("/f/nope/nope/draw/").status_code == 404
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    assert client.get(reverse("public-table", kwargs={**kwargs, "number": 99999})).status_code == 404
    assert client.get(reverse("public-seat", kwargs=kwargs), {"q": "x" * 5000}).status_code == 200


def test_the_personal_page_shows_the_players_table_once_released(client):
    event = ready_event(8)
    stage = services.start_event(event=event, actor=Actor(label="t"))
    draw = services.draft_draw(stage=stage, actor=Actor(label="t"), seed=1)
    registration = event.registrations.select_related("player").first()
    assert b", seat " not in client.get(registration.player.get_absolute_url()).content  # a draft is not public
    services.release_draw(draw=draw, actor=Actor(label="t"))
    table, position = Seat.objects.filter(draw=draw, registration=registration).values_list(
        "table__number", "position").get()
    assert f"Table {table}, seat {position}".encode() in client.get(registration.player.get_absolute_url()).content


def test_an_unpublished_draw_is_not_shown_to_the_public(client):
    event = ready_event(8, public_draw=False)
    stage = services.start_event(event=event, actor=Actor(label="t"))
    services.release_draw(draw=services.draft_draw(stage=stage, actor=Actor(label="t"), seed=1), actor=Actor(label="t"))
    someone = event.registrations.select_related("player").first()
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    assert someone.player.name.encode() not in client.get(reverse("public-draw", kwargs=kwargs)).content
    assert someone.player.name.encode() not in client.get(reverse("public-seat", kwargs=kwargs), {"q": "player"}).content


def test_the_stage_in_play_is_the_latest_released_and_open_one_with_its_tables():
    """What a table card opens: the stage in play, how many tables it has and whether a number is one of them."""
    event = ready_event(16)
    stage = services.start_event(event=event, actor=Actor(label="t"))
    draft = services.draft_draw(stage=stage, actor=Actor(label="t"), seed=1)
    assert seating.stage_in_play(event) is None  # a draft is not in play
    services.release_draw(draw=draft, actor=Actor(label="t"))
    current = seating.stage_in_play(event, table=4)
    assert current == stage and (current.table_count, current.has_table) == (4, True)
    assert seating.stage_in_play(event, table=5).has_table is False
    assert seating.event_table_numbers(event) == seating.stage_table_numbers(stage) == [1, 2, 3, 4]
    Stage.objects.filter(pk=stage.pk).update(closed_at=stage.draws.get(status=Draw.Status.RELEASED).released_at)
    assert seating.stage_in_play(event) is None  # closed: nothing in play until the next release


@pytest.mark.parametrize("fmt", [Event.Format.BUSAN, Event.Format.HONG_KONG])
def test_is_game_draw_says_what_game_draw_finds_without_a_query(fmt, django_assert_num_queries):
    """The check that a score sheet's seating is still its game's (scoring: confirm, correct, a table's answers)
    reads the sheet's own draw instead of looking up the game's: the same answer for every draw of the stage
    (discarded, draft, released, taken back, released again) and every game, in both formats."""
    event = ready_event(16, format=fmt)
    by = Actor(label="t")
    stage = services.start_event(event=event, actor=by)
    discarded = services.draft_draw(stage=stage, actor=by, seed=1)
    first = services.release_draw(draw=services.draft_draw(stage=stage, actor=by, seed=2), actor=by)
    services.unrelease_draw(draw=first, actor=by)
    again = services.release_draw(draw=services.draft_draw(stage=stage, actor=by, seed=3), actor=by)
    other_stage = Stage.objects.create(event=event, number=2, name="2", games=stage.games)
    stage = Stage.objects.select_related("event").get(pk=stage.pk)
    for draw in Draw.objects.filter(pk__in=[discarded.pk, first.pk, again.pk]):
        for game in range(0, stage.games + 2):
            found = seating.game_draw(stage, game)
            with django_assert_num_queries(0):
                assert seating.is_game_draw(draw, stage, game) == (found is not None and found.pk == draw.pk)
                assert not seating.is_game_draw(draw, other_stage, game)
    first.refresh_from_db()
    assert first.status == Draw.Status.DISCARDED  # taken back, then redrawn
    assert seating.is_game_draw(again, stage, 1) and not seating.is_game_draw(first, stage, 1)
    assert seating.is_game_draw(again, stage, 2) == (fmt == Event.Format.BUSAN)  # Hong Kong seats game 2 anew


def test_one_tables_seats_are_read_through_that_table_not_by_walking_the_draw():
    """A tap on one table (a correction, a referee's page) reads its seats through the table — the draw and
    number are unique together — so it costs the same at 8 tables as at 512: on SQLite the plan starts from
    that index and never searches the draw's seats; on every database the answers are the table's seats."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.factories import released_stage

    stage = released_stage(32)  # 8 tables
    draw = seating.game_draw(stage, 1)
    by_table = {}
    for seat in Seat.objects.filter(draw=draw).select_related("table", "registration__player"):
        by_table.setdefault(seat.table.number, []).append(seat)
    for number in (1, 5, 8):
        expected = sorted(by_table[number], key=lambda seat: seat.position)
        with CaptureQueriesContext(connection) as reads:
            assert [(s.position, s.registration_id) for s in seating.places(draw, table=number)] == [
                (s.position, s.registration_id) for s in expected]
            assert [(s.position, s.registration.number, s.registration.player.name)
                    for s in seating.places(draw.pk, table=number, named=True)] == [
                (s.position, s.registration.number, s.registration.player.name) for s in expected]
            assert [s.pk for s in seating.seats(draw, table=number)] == [s.pk for s in expected]
            assert seating.names_by_table(draw, table=number) == {
                number: [s.registration.player.name for s in expected]}
        assert len(reads) == 4
        if connection.vendor == "sqlite":
            with connection.cursor() as cursor:
                for read in reads.captured_queries:
                    cursor.execute(f"EXPLAIN QUERY PLAN {read['sql']}")
                    plan = [row[-1] for row in cursor.fetchall()]
                    assert "drawtable" in plan[0] and "draw_id=? AND number=?" in plan[0], plan
                    assert not any("tournament_seat_draw_id" in step for step in plan), plan
    assert seating.places(draw, table=9) == [] and seating.names_by_table(draw, table=9) == {}
