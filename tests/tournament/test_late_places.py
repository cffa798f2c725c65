"""services.late_places and the reopen-with-renumbering choice: the waiting list after check-in closes (R9),
player numbers kept or given afresh (R8.2), and the desk's search across the festival."""

import datetime as dt

import pytest

from tests.factories import EVENT_DAY, make_event, make_player, make_registration
from tournament.models import AuditEntry, Event, Registration
from tournament.services import ServiceError
from tournament.services.audit import Actor
from tournament.services.checkin import assign_numbers, check_in, checkin_preview, set_checkin_override
from tournament.services.desk_search import DeskQuery, search_festival
from tournament.services.late_places import give_late_places, late_places, open_late_places, waiting_line

IN_CHECKIN = EVENT_DAY.replace(hour=10, minute=45)
AFTER_CHECKIN = EVENT_DAY.replace(hour=11, minute=5)  # check-in closes at 11:00 (make_event)
S = Registration.Status

pytestmark = pytest.mark.event_of(capacity=4)


def refresh(obj):
    obj.refresh_from_db()
    return obj


@pytest.fixture
def hall(event):
    """4 places: 2 checked in, 2 registered who never came; 3 on the waiting list, in line order."""
    base = EVENT_DAY - dt.timedelta(days=5)
    for _n in range(2):
        make_registration(event, checked_in_at=IN_CHECKIN, queued_at=base)
    for _n in range(2):
        make_registration(event, queued_at=base)
    line = [make_registration(event, status=S.WAITLISTED, queued_at=base + dt.timedelta(hours=n),
                              player=make_player(event.festival, name=f"대기 {n + 1}")) for n in range(3)]
    return line


def state(event):
    """Every registration's status, check-in and promotion, and the audit log: to show nothing changed."""
    rows = list(Registration.objects.filter(event=event).order_by("pk")
                .values_list("pk", "status", "checked_in_at", "promoted_at"))
    return rows, refresh(event).late_places_opened_at, AuditEntry.objects.count()


# --- counting and opening ------------------------------------------------------------------------------------


def test_empty_places_are_places_minus_players_checked_in(event, hall):
    now = late_places(event, now=AFTER_CHECKIN)
    assert (now.empty, now.waiting, now.opened, now.blockers, now.shown) == (2, 3, False, [], True)
    # While check-in is open the waiting list moves by itself: nothing to open, nothing to show.
    during = late_places(event, now=IN_CHECKIN)
    assert [b.code for b in during.blockers] == ["open"] and not during.shown


def test_the_organiser_opens_late_places_once_audited(event, hall, organiser_actor):
    open_late_places(event=event, actor=organiser_actor, now=AFTER_CHECKIN)
    open_late_places(event=event, actor=organiser_actor, now=AFTER_CHECKIN)  # a second tap: nothing more
    assert refresh(event).late_places_opened_at == AFTER_CHECKIN
    entry = AuditEntry.objects.get(action="checkin.late_places")
    assert entry.after == {"empty": 2, "waiting": 3} and entry.actor == organiser_actor.user


@pytest.mark.parametrize("case", ["checkin_open", "numbered", "full", "nobody"])
def test_opening_late_places_is_refused_with_a_reason_and_changes_nothing(event, hall, organiser_actor, case):
    now = AFTER_CHECKIN
    if case == "checkin_open":
        now = IN_CHECKIN
    elif case == "numbered":
        assign_numbers(event=event, actor=organiser_actor, now=AFTER_CHECKIN)
    elif case == "full":
        Registration.objects.filter(event=event, status=S.REGISTERED).update(checked_in_at=IN_CHECKIN)
    else:
        Registration.objects.filter(event=event, status=S.WAITLISTED).update(status=S.WITHDRAWN)
    before = state(event)
    with pytest.raises(ServiceError) as refusal:
        open_late_places(event=event, actor=organiser_actor, now=now)
    assert refusal.value.code == {"checkin_open": "open"}.get(case, case)
    assert str(refusal.value.message)
    assert state(event) == before


# --- giving them at the desk ---------------------------------------------------------------------------------


def test_waiting_line_is_in_line_order(event, hall):
    assert [(r.pk, r.waiting_position) for r in waiting_line(event)] == [(r.pk, n) for n, r in enumerate(hall, 1)]


def test_the_first_present_in_line_get_the_places_checked_in_and_audited(event, hall, organiser_actor, desk):
    """The first in line is not in the hall: the desk ticks the 2nd and 3rd, who get the 2 empty places."""
    open_late_places(event=event, actor=organiser_actor, now=AFTER_CHECKIN)
    given = give_late_places(event=event, registration_ids=[hall[2].pk, hall[1].pk], actor=desk, now=AFTER_CHECKIN)
    assert [r.pk for r in given] == [hall[1].pk, hall[2].pk]  # line order, not the order ticked
    for registration in hall[1:]:
        registration = refresh(registration)
        assert (registration.status, registration.checked_in_at, registration.promoted_at) == (
            S.REGISTERED, AFTER_CHECKIN, AFTER_CHECKIN)
        assert registration.checked_in_by == desk.user
    assert refresh(hall[0]).status == S.WAITLISTED  # passed over, still waiting
    entries = AuditEntry.objects.filter(action="checkin.late_place").order_by("pk")
    assert [e.target_id for e in entries] == [hall[1].pk, hall[2].pk]
    assert entries[0].before["status"] == "waitlisted" and entries[0].after["status"] == "registered"
    assert late_places(event, now=AFTER_CHECKIN).empty == 0


def test_more_players_ticked_than_places_is_refused_naming_who_would_get_them(event, hall, organiser_actor, desk):
    open_late_places(event=event, actor=organiser_actor, now=AFTER_CHECKIN)
    before = state(event)
    with pytest.raises(ServiceError) as refusal:
        give_late_places(event=event, registration_ids=[r.pk for r in hall], actor=desk, now=AFTER_CHECKIN)
    assert refusal.value.code == "too_many"
    assert "대기 1, 대기 2" in refusal.value.message and "대기 3" not in refusal.value.message
    assert state(event) == before


def test_after_late_places_a_player_late_for_check_in_finds_the_places_taken(event, hall, organiser_actor, desk):
    """Late places filled the hall; check-in reopens and one who registered but had not come arrives (R9):
    refused with the reason, so the event never holds more players than places."""
    open_late_places(event=event, actor=organiser_actor, now=AFTER_CHECKIN)
    give_late_places(event=event, registration_ids=[hall[0].pk, hall[1].pk], actor=desk, now=AFTER_CHECKIN)
    set_checkin_override(event=event, override=Event.CheckinOverride.OPEN, actor=organiser_actor, now=AFTER_CHECKIN)
    no_show = Registration.objects.filter(event=event, status=S.REGISTERED, checked_in_at__isnull=True).first()
    before = state(event)
    with pytest.raises(ServiceError) as refusal:
        check_in(registration=no_show, actor=desk, now=AFTER_CHECKIN)
    assert refusal.value.code == "full" and "4" in refusal.value.message
    assert state(event) == before


@pytest.mark.parametrize("case", ["not_opened", "open", "numbered", "full", "stale", "empty"])
def test_late_places_refused_change_nothing(event, hall, organiser_actor, desk, case):
    now, ids = AFTER_CHECKIN, [hall[0].pk]
    if case != "not_opened":
        open_late_places(event=event, actor=organiser_actor, now=AFTER_CHECKIN)
    if case == "open":
        set_checkin_override(event=event, override=Event.CheckinOverride.OPEN, actor=organiser_actor, now=now)
    elif case == "numbered":
        assign_numbers(event=event, actor=organiser_actor, now=now)
    elif case == "full":
        Registration.objects.filter(event=event, status=S.REGISTERED).update(checked_in_at=IN_CHECKIN)
    elif case == "stale":
        ids = [hall[0].pk, 10**9]
    elif case == "empty":
        ids = []
    before = state(event)
    with pytest.raises(ServiceError) as refusal:
        give_late_places(event=event, registration_ids=ids, actor=desk, now=now)
    assert refusal.value.code == case
    assert state(event) == before


def test_a_registered_player_is_not_a_waiting_list_player(event, hall, organiser_actor, desk):
    open_late_places(event=event, actor=organiser_actor, now=AFTER_CHECKIN)
    absent = Registration.objects.filter(event=event, status=S.REGISTERED, checked_in_at__isnull=True).first()
    with pytest.raises(ServiceError) as refusal:
        give_late_places(event=event, registration_ids=[absent.pk], actor=desk, now=AFTER_CHECKIN)
    assert refusal.value.code == "stale" and refresh(absent).checked_in_at is None


# --- reopening check-in: keep the numbers, or renumber everyone (R8.2) ----------------------------------------


def numbered_event(event, organiser_actor, players=3):
    early = [make_registration(event, checked_in_at=IN_CHECKIN) for _ in range(players)]
    assign_numbers(event=event, actor=organiser_actor, method="registration", now=AFTER_CHECKIN)
    return early


def test_reopen_and_renumber_says_what_happens_then_clears_every_number(event, organiser_actor):
    early = numbered_event(event, organiser_actor)
    keep = checkin_preview(event=refresh(event), override="open", now=AFTER_CHECKIN)
    renumber = checkin_preview(event=refresh(event), override="open", now=AFTER_CHECKIN, renumber=True)
    assert keep.state != renumber.state  # a confirmation of one is not a confirmation of the other
    assert "3 player numbers already given are cleared" in " ".join(renumber.lines)
    set_checkin_override(event=event, override="open", actor=organiser_actor, now=AFTER_CHECKIN, renumber=True,
                         expect=renumber.state)
    assert [refresh(r).number for r in early] == [None] * 3
    entry = AuditEntry.objects.get(action="checkin.override")
    assert entry.after["numbers_cleared"] == 3
    assert sorted(entry.before["numbers"].values()) == [1, 2, 3]
    newcomer = make_registration(event, checked_in_at=AFTER_CHECKIN)
    set_checkin_override(event=event, override="closed", actor=organiser_actor, now=AFTER_CHECKIN)
    assign_numbers(event=event, actor=organiser_actor, method="registration", now=AFTER_CHECKIN)
    assert sorted(refresh(r).number for r in [*early, newcomer]) == [1, 2, 3, 4]


def test_renumber_confirmed_as_keep_is_not_applied(event, organiser_actor):
    from tournament.services.confirmation import Unconfirmed

    early = numbered_event(event, organiser_actor)
    keep = checkin_preview(event=refresh(event), override="open", now=AFTER_CHECKIN)
    with pytest.raises(Unconfirmed):
        set_checkin_override(event=event, override="open", actor=organiser_actor, now=AFTER_CHECKIN,
                             renumber=True, expect=keep.state)
    assert [refresh(r).number for r in early] == [1, 2, 3] and refresh(event).numbers_assigned_at


def test_renumber_without_numbers_to_clear_is_refused(event, organiser_actor):
    with pytest.raises(ServiceError) as refusal:
        set_checkin_override(event=event, override="open", actor=organiser_actor, now=AFTER_CHECKIN, renumber=True)
    assert refusal.value.code == "renumber"
    assert refresh(event).checkin_override == "" and not AuditEntry.objects.exists()


# --- the desk finds players of the festival's other events ---------------------------------------------------


def test_search_festival_finds_the_name_in_other_events_only(event):
    other = make_event(event.festival, name="Word")
    elsewhere = make_event(name="Other festival")
    kim = make_player(event.festival, name="김서연")
    make_registration(event, player=kim)
    there = make_registration(other, player=kim)
    make_registration(elsewhere, player=make_player(elsewhere.festival, name="김서연"))
    found = search_festival(event=event, query=DeskQuery.parse("서연"))
    assert [r.pk for r in found] == [there.pk]
    assert search_festival(event=event, query=DeskQuery.parse("https://x/p/" + kim.token + "/")) == []


# --- the event file keeps them (an event moving machines mid-morning, docs/backup.md) -------------------------


def test_late_places_and_promotions_survive_export_and_import(event, hall, organiser_actor, desk):
    import json

    from scoring.exports import event_json
    from scoring.services.import_event import import_event

    open_late_places(event=event, actor=organiser_actor, now=AFTER_CHECKIN)
    give_late_places(event=event, registration_ids=[hall[0].pk], actor=desk, now=AFTER_CHECKIN)
    document = event_json(Event.objects.select_related("festival").get(pk=event.pk))
    assert json.loads(document)["event"]["late_places_opened_at"]
    copied = import_event(document=document, festival_slug="moved", actor=Actor(label="import")).event
    assert copied.late_places_opened_at == AFTER_CHECKIN
    moved = Registration.objects.get(event=copied, player__name=hall[0].player.name)
    assert (moved.status, moved.promoted_at) == (S.REGISTERED, AFTER_CHECKIN)
