"""Conduct during an event (R9; HK conduct rules 9, 15, 17): warnings and the third-warning decision,
disqualification / withdrawal / forfeit previewed before they apply, the player out of later draws, their past
results kept and marked; chief referees and organisers only; hostile input never a 500."""

import random

import pytest
from django.urls import reverse

from scoring.exports import event_export
from scoring.services import conduct, progress
from scoring.standings import event_standings
from tests.factories import make_festival, make_staff, released_stage
from tests.scoring.helpers import chief_of, key, play_game
from tournament.models import AuditEntry, ConductRecord, Draw, Event, Registration, StageEntry
from tournament.services import ServiceError, seating
from tournament.services import draws as draw_services
from tournament.services.audit import Actor

pytestmark = pytest.mark.django_db
Kind = ConductRecord.Kind


def url(event, name="conduct"):
    return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug})


def post(client, event, action, number, note="Talked to another table", *, confirmed=False, **extra):
    """The form as the page sends it, with a fresh one-time key unless `key=` is given. `confirmed`: then the
    preview's "apply" button, with the state of the effect the preview showed."""
    data = {"action": action, f"{action}-number": number, f"{action}-note": note, f"{action}-key": key()}
    if action == "warning":
        data[f"{action}-kind"] = Kind.WARNING
    elif action == "disqualify":
        data[f"{action}-kind"] = Kind.DISQUALIFIED
    data.update({f"{action}-{k}" if k not in ("confirm",) else k: v for k, v in extra.items()})
    if confirmed:
        preview = client.post(url(event, "conduct-record"), data)
        if preview.status_code != 200:
            return preview
        data["confirm"] = preview.context["effect"].state
    return client.post(url(event, "conduct-record"), data)


@pytest.fixture
def seven():
    """Busan round 1 for 7 players: table 1 of 4, table 2 of 3 (R8.1), released."""
    stage = released_stage(7)
    chief = make_staff(stage.event.festival, "chief referee")
    return stage, chief


def at_table(stage, table_number):
    draw = seating.game_draw(stage, 1)
    return [Registration.objects.get(pk=p) for p in seating.player_ids(draw)[table_number - 1]]


def test_the_third_warning_asks_the_chief_referee_to_decide_r9(client, seven):
    stage, chief = seven
    event = stage.event
    player = at_table(stage, 1)[0]
    client.force_login(chief)
    for _count in (1, 2):
        response = post(client, event, "warning", player.number)
        assert response.status_code == 302
        assert b"data-decision-needed" not in client.get(url(event)).content
    response = post(client, event, "warning", player.number, note="Third time")
    page = client.get(url(event))
    assert f'data-decision-needed="{player.number}"'.encode() in page.content
    assert "decides whether to disqualify" in page.content.decode()
    assert ConductRecord.objects.filter(registration=player, kind=Kind.WARNING).count() == 3
    assert AuditEntry.objects.filter(action="conduct.warning", event=event).count() == 3
    # The chief referee decides to keep the player: a record, logged; the prompt goes … until the next warning.
    client.post(url(event, "conduct-keep"), {"number": player.number, "note": "Apologised"})
    kept = ConductRecord.objects.get(registration=player, kind=Kind.KEPT)
    assert kept.note == "Apologised" and kept.created_by == chief
    assert AuditEntry.objects.filter(action=conduct.KEPT_ACTION, target_id=kept.pk).exists()
    assert "Apologised" in client.get(url(event)).content.decode()
    assert b"data-decision-needed" not in client.get(url(event)).content
    post(client, event, "warning", player.number, note="Fourth time")
    assert conduct.pending_decisions(event) == [(player.pk, 4)]


def test_the_decision_to_keep_a_player_sent_twice_is_recorded_once(seven):
    """A phone sending the decision twice (found by tests/fuzz); a later warning asks again."""
    stage, chief_user = seven
    chief, player = Actor(user=chief_user), at_table(stage, 1)[0]
    for _count in range(3):
        conduct.record_conduct(event=stage.event, registration=player, kind=Kind.WARNING, note="x", actor=chief)
    for _sent in range(2):
        conduct.keep_playing(event=stage.event, registration=player, note="Apologised", actor=chief)
    assert ConductRecord.objects.filter(registration=player, kind=Kind.KEPT).count() == 1
    assert AuditEntry.objects.filter(action=conduct.KEPT_ACTION).count() == 1
    conduct.record_conduct(event=stage.event, registration=player, kind=Kind.WARNING, note="x", actor=chief)
    conduct.keep_playing(event=stage.event, registration=player, note="Once more", actor=chief)
    assert ConductRecord.objects.filter(registration=player, kind=Kind.KEPT).count() == 2
    assert conduct.decided_at(stage.event) == {player.pk: 4}


def test_keeps_playing_is_the_chief_referees_decision_not_a_recordable_offence(seven):
    stage, chief_user = seven
    player = at_table(stage, 1)[0]
    with pytest.raises(ServiceError):
        conduct.record_conduct(event=stage.event, registration=player, kind=Kind.KEPT, note="x",
                               actor=Actor(user=chief_user))
    assert not ConductRecord.objects.exists()


def test_a_warning_form_sent_twice_records_one_warning_and_a_new_form_another(client, seven):
    """Poor Wi-Fi: the chief referee's phone resends the same form (same key); the next form has a new key."""
    stage, chief = seven
    event, player = stage.event, at_table(stage, 1)[0]
    client.force_login(chief)
    form_key = client.get(url(event)).context["forms"]["warning"]["key"].value()
    assert len(form_key) == 32
    for _sent in range(2):
        assert post(client, event, "warning", player.number, key=form_key).status_code == 302
    assert ConductRecord.objects.filter(registration=player, kind=Kind.WARNING).count() == 1
    assert AuditEntry.objects.filter(action="conduct.warning", event=event).count() == 1
    next_key = client.get(url(event)).context["forms"]["warning"]["key"].value()
    assert next_key != form_key
    post(client, event, "warning", player.number, key=next_key)
    assert ConductRecord.objects.filter(registration=player, kind=Kind.WARNING).count() == 2
    stale = post(client, event, "warning", player.number, key="")  # a form without its key: refused, nothing written
    assert stale.status_code == 400 and "This form is out of date" in stale.content.decode()
    assert ConductRecord.objects.filter(registration=player, kind=Kind.WARNING).count() == 2


def test_a_used_key_for_another_player_is_refused_and_changes_nothing(seven):
    stage, chief_user = seven
    chief, (first, second) = Actor(user=chief_user), at_table(stage, 1)[:2]
    conduct.record_conduct(event=stage.event, registration=first, kind=Kind.WARNING, note="x", actor=chief,
                           request_key="a" * 32)
    with pytest.raises(ServiceError) as refused:
        conduct.record_conduct(event=stage.event, registration=second, kind=Kind.WARNING, note="x", actor=chief,
                               request_key="a" * 32)
    assert refused.value.code == "key_reused"
    assert ConductRecord.objects.filter(registration=second).count() == 0


def test_disqualification_is_previewed_with_the_merge_proposal_before_it_applies(client, seven):
    stage, chief = seven
    event = stage.event
    leaving = at_table(stage, 2)[0]  # the table of 3 would keep 2 players
    client.force_login(chief)
    response = post(client, event, "disqualify", leaving.number, note="Third offence")
    assert response.status_code == 200
    text = response.content.decode()
    assert 'data-short-table="yes"' in text and "data-merge-proposal" in text
    assert "table 1 → table 2" in text  # 6 players: 3 + 3, one moves from the table of 4 (R8.1)
    assert not ConductRecord.objects.filter(registration=leaving).exists()  # nothing applied yet
    effect = conduct.departure_effect(event=event, registration=leaving, kind=Kind.DISQUALIFIED)
    assert effect.left_at_table == 2 and len(effect.proposal.moves) == 1
    assert effect.proposal.moves[0].from_table == 1 and effect.proposal.moves[0].to_table == 2
    # Nothing was re-drawn: the released seating is unchanged.
    before = seating.player_ids(seating.game_draw(stage, 1))
    response = post(client, event, "disqualify", leaving.number, note="Third offence", confirmed=True)
    assert response.status_code == 302
    record = ConductRecord.objects.get(registration=leaving)
    assert record.kind == Kind.DISQUALIFIED and record.created_by == chief and record.stage == stage
    assert AuditEntry.objects.filter(action="conduct.disqualified", target_id=record.pk).exists()
    assert seating.player_ids(seating.game_draw(stage, 1)) == before


def test_a_table_of_four_keeps_three_and_needs_no_merge(seven):
    stage, _chief = seven
    leaving = at_table(stage, 1)[0]
    effect = conduct.departure_effect(event=stage.event, registration=leaving, kind=Kind.WITHDREW)
    assert effect.left_at_table == 3 and not effect.short_table


def test_a_disqualified_player_is_left_out_of_the_next_round_and_its_draw(seven):
    stage, chief_user = seven
    event = stage.event
    chief = Actor(user=chief_user)
    rng = random.Random(5)
    for game in (1, 2, 3):
        play_game(stage, game, chief, rng)
    result = progress.advancement(stage)
    best = result.advancing[0]
    leaving = Registration.objects.get(pk=best)
    conduct.record_conduct(event=event, registration=leaving, kind=Kind.DISQUALIFIED, note="Cheating",
                           actor=chief, stage=stage)
    after = progress.advancement(stage)
    assert best not in after.advancing and best not in [p for tie in after.ties for p in tie.players]
    if not after.resolved:
        progress.draw_lots_at_cut(stage=stage, actor=chief)
    following = progress.close_stage(stage=stage, actor=chief)
    assert not StageEntry.objects.filter(stage=following, registration=leaving).exists()
    draw = draw_services.draft_draw(stage=following, actor=chief, seed=3)
    assert best not in {p for t in seating.player_ids(draw) for p in t}
    # Past results stay, marked in the export.
    data = event_export(event)
    exported = next(p for p in data["players"] if p["id"] == best)
    assert exported["status"] == "disqualified" and exported["conduct"][0]["kind"] == "disqualified"
    assert any(s["player"] == best for g in data["stages"][0]["games"] for t in g["tables"] for s in t["seats"])
    line = next(line for line in event_standings(event).lines if line.player == best)
    assert line.games == 3


def test_a_withdrawn_player_leaves_a_redrawn_draft(client):
    stage = released_stage(8)
    event = stage.event
    organiser = Actor(user=make_staff(event.festival, "organiser"))
    leaving = at_table(stage, 1)[1]
    draw_services.unrelease_draw(draw=seating.game_draw(stage, 1), actor=organiser)
    effect = conduct.departure_effect(event=event, registration=leaving, kind=Kind.WITHDREW)
    assert any("draw it again" in note for note in effect.notes)
    conduct.record_conduct(event=event, registration=leaving, kind=Kind.WITHDREW, note="Unwell (rule 17)",
                           actor=organiser)
    redrawn = draw_services.draft_draw(stage=stage, actor=organiser, seed=4)
    seated = {p for t in seating.player_ids(redrawn) for p in t}
    assert leaving.pk not in seated and len(seated) == 7


def test_hong_kong_movement_seats_a_forfeited_player_nowhere_r8_2():
    stage = released_stage(12, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    event = stage.event
    chief = chief_of(event)
    leaving = at_table(stage, 2)[0]
    conduct.record_conduct(event=event, registration=leaving, kind=Kind.FORFEIT, note="Left after game 1 (rule 15)",
                           actor=chief, stage=stage, game=1)
    play_game(stage, 1, chief, random.Random(6))
    following = seating.game_draw(stage, 2)
    seated = [p for t in seating.player_ids(following) for p in t]
    assert leaving.pk not in seated and len(seated) == 11
    assert following.status == Draw.Status.RELEASED


def test_service_refuses_what_makes_no_sense(seven):
    stage, chief_user = seven
    event = stage.event
    chief = Actor(user=chief_user)
    player = at_table(stage, 1)[0]
    other = released_stage(4).event.registrations.first()
    with pytest.raises(ServiceError):
        conduct.record_conduct(event=event, registration=other, kind=Kind.WARNING, note="x", actor=chief)
    with pytest.raises(ServiceError):
        conduct.record_conduct(event=event, registration=player, kind="banished", note="x", actor=chief)
    with pytest.raises(ServiceError):
        conduct.record_conduct(event=event, registration=player, kind=Kind.WARNING, note="  ", actor=chief)
    with pytest.raises(ServiceError):
        conduct.record_conduct(event=event, registration=player, kind=Kind.WARNING, note="x", actor=chief,
                               stage=stage, game=stage.games + 1)
    conduct.record_conduct(event=event, registration=player, kind=Kind.WITHDREW, note="Went home", actor=chief)
    with pytest.raises(ServiceError):
        conduct.record_conduct(event=event, registration=player, kind=Kind.DISQUALIFIED, note="x", actor=chief)
    with pytest.raises(ServiceError):
        conduct.keep_playing(event=event, registration=player, note="x", actor=chief)
    assert ConductRecord.objects.filter(registration=player).count() == 1


@pytest.mark.parametrize("role", [None, "desk", "referee"])
def test_only_chief_referees_and_organisers_may_record_conduct(client, seven, role):
    stage, _chief = seven
    event = stage.event
    player = at_table(stage, 1)[0]
    if role:
        client.force_login(make_staff(event.festival, role))
    assert client.get(url(event)).status_code == (302 if role is None else 403)
    response = post(client, event, "disqualify", player.number, confirmed=True)
    assert response.status_code == (302 if role is None else 403)
    assert client.post(url(event, "conduct-keep"), {"number": player.number, "note": "x"}).status_code in (302, 403)
    assert not ConductRecord.objects.exists()


def test_a_chief_referee_of_another_festival_is_refused(client, seven):
    stage, _chief = seven
    client.force_login(make_staff(make_festival(), "chief referee"))
    assert client.get(url(stage.event)).status_code == 403
    assert post(client, stage.event, "warning", 1).status_code == 403
    assert not ConductRecord.objects.exists()


def test_organisers_see_the_export_links_chief_referees_do_not(client, seven):
    stage, chief = seven
    client.force_login(chief)
    assert b"data-export-json" not in client.get(url(stage.event)).content
    client.force_login(make_staff(stage.event.festival, "organiser"))
    page = client.get(url(stage.event))
    assert b"data-export-json" in page.content


HOSTILE = [
    {"action": "warning", "warning-number": "99999999999999999999", "warning-note": "x", "warning-kind": "warning"},
    {"action": "warning", "warning-number": "1", "warning-note": "x", "warning-kind": "disqualified"},
    {"action": "warning", "warning-number": "1", "warning-note": "", "warning-kind": "warning"},
    {"action": "warning", "warning-number": "1", "warning-note": "x" * 10_000, "warning-kind": "warning"},
    {"action": "warning", "warning-number": "1", "warning-note": "x", "warning-kind": "warning",
     "warning-stage": "7", "warning-game": "1"},
    {"action": "warning", "warning-number": "1", "warning-note": "x", "warning-kind": "warning",
     "warning-stage": "1", "warning-game": "99"},
    {"action": "warning", "warning-number": "1", "warning-note": "x", "warning-kind": "warning", "warning-game": "2"},
    {"action": "leave", "leave-number": "1", "leave-note": "x", "leave-kind": "🙂", "confirm": "0" * 24},
    {"action": "disqualify", "disqualify-number": "\x00", "disqualify-note": "x", "confirm": "0" * 24},
    {"action": "../../etc/passwd", "number": "1"},
    {},
]


@pytest.mark.parametrize("data", HOSTILE)
def test_hostile_input_changes_nothing_and_is_never_a_server_error(client, seven, data):
    stage, chief = seven
    client.force_login(chief)
    response = client.post(url(stage.event, "conduct-record"), data)
    assert response.status_code in (302, 400)
    assert not ConductRecord.objects.exists()
    assert client.post(url(stage.event, "conduct-keep"), {"number": "-1", "note": "\x00"}).status_code == 302


def test_a_player_of_another_event_cannot_be_named_by_number(client, seven):
    stage, chief = seven
    client.force_login(chief)
    response = post(client, stage.event, "warning", 99)
    assert response.status_code == 400 and "No player has this number" in response.content.decode()


@pytest.mark.parametrize("players", [8, 64])
def test_the_conduct_page_reads_a_constant_number_of_queries(client, players, django_assert_max_num_queries):
    stage = released_stage(players)
    event = stage.event
    chief = make_staff(event.festival, "chief referee")
    actor = Actor(user=chief)
    for registration in event.registrations.order_by("number")[: players // 2]:
        for _ in range(3):
            conduct.record_conduct(event=event, registration=registration, kind=Kind.WARNING, note="noise",
                                   actor=actor)
    client.force_login(chief)
    with django_assert_max_num_queries(13):
        response = client.get(url(event))
    assert response.status_code == 200
    assert response.content.count(b"data-decision-needed") == players // 2


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_migration_turns_logged_decisions_into_keeps_playing_records():
    """Databases from before kept the decision only in the audit log: each logged decision gets its record."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = [("tournament", "0009_drop_text_settings")], [("tournament", "0010_kept_playing_is_a_conduct_record")]
    executor = MigrationExecutor(connection)
    leaves = executor.loader.graph.leaf_nodes()
    event = released_stage(4).event  # built with today's models, then the database goes back in time
    player = Registration.objects.filter(event=event).first()
    try:
        executor.migrate(before)
        old = executor.loader.project_state(before).apps
        old.get_model("tournament", "AuditEntry").objects.create(
            action="conduct.kept", event_id=event.pk, festival_id=event.festival_id, target_type="registration",
            target_id=player.pk, reason="Apologised", after={"warnings": 3})
        executor = MigrationExecutor(connection)
        executor.migrate(after)
        kept = ConductRecord.objects.get(kind=Kind.KEPT)
        assert (kept.registration_id, kept.event_id, kept.note) == (player.pk, event.pk, "Apologised")
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(leaves)
