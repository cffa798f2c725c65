"""services.checkin: check-in within the window (RULES.md R9), the organiser's override, player numbers for the
draw (R8.2), and the desk's search query."""

import datetime as dt

import pytest
from django.utils import translation

from tests.factories import EVENT_DAY, make_event, make_player, make_registration, ready_event
from tournament.models import AuditEntry, Event, Registration
from tournament.services import ServiceError
from tournament.services.checkin import (
    assign_numbers,
    check_in,
    checkin_preview,
    numbering_order,
    numbering_preview,
    set_checkin_override,
    undo_check_in,
)
from tournament.services.confirmation import Unconfirmed
from tournament.services.desk_search import DeskQuery, desk_counts, search_registrations
from tournament.services.draws import start_event

BEFORE_CHECKIN = EVENT_DAY.replace(hour=10, minute=29)
IN_CHECKIN = EVENT_DAY.replace(hour=10, minute=45)
AFTER_CHECKIN = EVENT_DAY.replace(hour=11, minute=0)  # check-in closes at 11:00 sharp


def refresh(obj):
    obj.refresh_from_db()
    return obj


# --- check_in / undo_check_in --------------------------------------------------------------------------------


def test_check_in_inside_the_window_records_who_and_when(event, desk):
    registration = check_in(registration=make_registration(event), actor=desk, now=IN_CHECKIN)
    registration = refresh(registration)
    assert registration.checked_in_at == IN_CHECKIN and registration.checked_in_by == desk.user
    entry = AuditEntry.objects.get(action="checkin.in")
    assert entry.target_id == registration.pk and entry.actor == desk.user and entry.event == event


@pytest.mark.parametrize("now", [BEFORE_CHECKIN, AFTER_CHECKIN, AFTER_CHECKIN + dt.timedelta(hours=2)])
def test_check_in_outside_the_window_is_refused(event, desk, now):
    """R9: late arrivals are not admitted after check-in closes (and nobody before it opens)."""
    registration = make_registration(event)
    with pytest.raises(ServiceError) as refusal:
        check_in(registration=registration, actor=desk, now=now)
    assert refusal.value.code == "closed"
    assert refresh(registration).checked_in_at is None and not AuditEntry.objects.exists()


@pytest.mark.parametrize("status", ["waitlisted", "withdrawn"])
def test_only_players_with_a_place_can_be_checked_in(event, desk, status):
    registration = make_registration(event, make_player(event.festival, name="Jung Ho"), status=status)
    with pytest.raises(ServiceError) as refusal:
        check_in(registration=registration, actor=desk, now=IN_CHECKIN)
    assert refusal.value.code == status and "Jung Ho" in refusal.value.message
    assert refresh(registration).checked_in_at is None and not AuditEntry.objects.exists()


def test_checking_in_twice_keeps_the_first_time_and_one_audit_entry(event, desk):
    registration = make_registration(event)
    check_in(registration=registration, actor=desk, now=IN_CHECKIN)
    check_in(registration=registration, actor=desk, now=IN_CHECKIN + dt.timedelta(minutes=5))
    assert refresh(registration).checked_in_at == IN_CHECKIN
    assert AuditEntry.objects.filter(action="checkin.in").count() == 1


def test_undo_clears_the_check_in_and_is_harmless_twice(event, desk):
    registration = make_registration(event, checked_in_at=IN_CHECKIN)
    undo_check_in(registration=registration, actor=desk, now=IN_CHECKIN)
    undo_check_in(registration=registration, actor=desk, now=IN_CHECKIN)
    assert refresh(registration).checked_in_at is None
    entry = AuditEntry.objects.get(action="checkin.undone")
    assert dt.datetime.fromisoformat(entry.before["checked_in"]) == IN_CHECKIN


def test_undo_after_check_in_closed_is_refused(event, desk):
    registration = make_registration(event, checked_in_at=IN_CHECKIN)
    with pytest.raises(ServiceError):
        undo_check_in(registration=registration, actor=desk, now=AFTER_CHECKIN)
    assert refresh(registration).checked_in_at == IN_CHECKIN


# --- set_checkin_override ------------------------------------------------------------------------------------


def test_organiser_closes_check_in_early(event, organiser_actor, desk):
    set_checkin_override(event=event, override=Event.CheckinOverride.CLOSED, actor=organiser_actor)
    event = refresh(event)
    assert not event.checkin_is_open(IN_CHECKIN)
    with pytest.raises(ServiceError):
        check_in(registration=make_registration(event), actor=desk, now=IN_CHECKIN)
    entry = AuditEntry.objects.get(action="checkin.override")
    assert entry.before == {"override": ""} and entry.after == {"override": "closed"}


def test_organiser_reopens_check_in_after_the_schedule_and_can_return_to_it(event, organiser_actor, desk):
    set_checkin_override(event=event, override=Event.CheckinOverride.OPEN, actor=organiser_actor)
    late = make_registration(event)
    check_in(registration=late, actor=desk, now=AFTER_CHECKIN)
    assert refresh(late).checked_in_at == AFTER_CHECKIN
    set_checkin_override(event=event, override=Event.CheckinOverride.SCHEDULE, actor=organiser_actor)
    assert not refresh(event).checkin_is_open(AFTER_CHECKIN) and refresh(event).checkin_is_open(IN_CHECKIN)


def test_the_same_check_in_setting_again_records_nothing_more(event, organiser_actor):
    """A phone sending the tap twice (found by tests/fuzz): one audit entry, not two."""
    for _ in range(2):
        set_checkin_override(event=event, override=Event.CheckinOverride.CLOSED, actor=organiser_actor)
    assert AuditEntry.objects.filter(action="checkin.override").count() == 1


@pytest.mark.parametrize("override", ["maybe", "OPEN", "x" * 500, None])
def test_unknown_override_is_refused(event, organiser_actor, override):
    with pytest.raises(ServiceError):
        set_checkin_override(event=event, override=override, actor=organiser_actor)
    assert refresh(event).checkin_override == "" and not AuditEntry.objects.exists()


def test_reopened_after_numbering_keeps_the_numbers_and_numbers_newcomers_after_them(event, organiser_actor):
    """R8.2: until the first round is set up, check-in may reopen; numbers given stay, newcomers come after."""
    early = [make_registration(event, checked_in_at=IN_CHECKIN) for _ in range(3)]
    assign_numbers(event=event, actor=organiser_actor, method="random", seed=7, now=AFTER_CHECKIN)
    given = {r.pk: refresh(r).number for r in early}
    preview = checkin_preview(event=refresh(event), override=Event.CheckinOverride.OPEN, now=AFTER_CHECKIN)
    assert preview.needed and preview.allowed and "from 4 on" in " ".join(preview.lines)
    set_checkin_override(event=event, override=Event.CheckinOverride.OPEN, actor=organiser_actor,
                         expect=preview.state, now=AFTER_CHECKIN)
    event = refresh(event)
    assert event.checkin_override == Event.CheckinOverride.OPEN and event.numbers_assigned_at is None
    entry = AuditEntry.objects.get(action="checkin.override")
    assert entry.before["numbers_assigned_at"] and entry.after == {"override": "open", "numbers_assigned_at": None}
    # A numbered player's check-in stays (the number would be left without a player).
    with pytest.raises(ServiceError) as refusal:
        undo_check_in(registration=early[0], actor=organiser_actor, now=AFTER_CHECKIN)
    assert refusal.value.code == "numbered" and refresh(early[0]).checked_in_at is not None
    late = [make_registration(event) for _ in range(2)]
    for registration in late:
        check_in(registration=registration, actor=organiser_actor, now=AFTER_CHECKIN)
    set_checkin_override(event=event, override=Event.CheckinOverride.CLOSED, actor=organiser_actor,
                         now=AFTER_CHECKIN)
    lines = " ".join(numbering_preview(event=refresh(event), method="registration", now=AFTER_CHECKIN).lines)
    assert "3 players keep the numbers already given" in lines and "numbers 4 to 5" in lines
    assign_numbers(event=event, actor=organiser_actor, method="registration", now=AFTER_CHECKIN)
    assert {r.pk: refresh(r).number for r in early} == given
    assert [refresh(r).number for r in late] == [4, 5]
    assert AuditEntry.objects.filter(action="checkin.numbered").latest("id").after["first"] == 4


def test_check_in_cannot_be_reopened_once_the_first_round_is_set_up(organiser_actor):
    event = ready_event(4)
    start_event(event=event, actor=organiser_actor)
    with pytest.raises(ServiceError) as refusal:
        set_checkin_override(event=event, override=Event.CheckinOverride.OPEN, actor=organiser_actor)
    assert refusal.value.code == "numbered"
    event = refresh(event)
    assert event.checkin_override == Event.CheckinOverride.CLOSED and event.numbers_assigned_at is not None
    assert not AuditEntry.objects.filter(action="checkin.override").exists()


def test_reopening_after_numbering_needs_the_confirmation_of_what_it_keeps(event, organiser_actor):
    make_registration(event, checked_in_at=IN_CHECKIN)
    assign_numbers(event=event, actor=organiser_actor, now=AFTER_CHECKIN)
    with pytest.raises(Unconfirmed):
        set_checkin_override(event=event, override=Event.CheckinOverride.OPEN, actor=organiser_actor, expect="",
                             now=AFTER_CHECKIN)
    assert refresh(event).numbers_assigned_at is not None


# --- assign_numbers (R8.2: the Hong Kong format seats by number) ----------------------------------------------


def _checked_in(event, count):
    return [make_registration(event, checked_in_at=IN_CHECKIN) for _ in range(count)]


def test_numbers_in_registration_order_go_to_checked_in_players_only(event, organiser_actor):
    arrived = _checked_in(event, 2)
    absent = make_registration(event)
    arrived += _checked_in(event, 2)
    waiting = make_registration(event, status="waitlisted", checked_in_at=IN_CHECKIN)
    assign_numbers(event=event, actor=organiser_actor, method="registration", now=AFTER_CHECKIN)
    assert [refresh(r).number for r in arrived] == [1, 2, 3, 4]
    assert refresh(absent).number is None and refresh(waiting).number is None
    event = refresh(event)
    assert event.numbers_assigned_at == AFTER_CHECKIN and event.numbering_seed is None
    assert event.checkin_override == Event.CheckinOverride.CLOSED  # nobody checks in after numbering
    assert AuditEntry.objects.get(action="checkin.numbered").after["players"] == 4


def test_random_numbers_store_a_seed_that_reproduces_them(event, organiser_actor):
    arrived = _checked_in(event, 12)
    assign_numbers(event=event, actor=organiser_actor, method="random", now=AFTER_CHECKIN)
    event = refresh(event)
    assert event.numbering == "random" and event.numbering_seed is not None
    numbers = {r.pk: refresh(r).number for r in arrived}
    assert sorted(numbers.values()) == list(range(1, 13))
    replay = numbering_order([r.pk for r in arrived], method="random", seed=event.numbering_seed)
    assert {reg_id: n for n, reg_id in enumerate(replay, start=1)} == numbers
    assert AuditEntry.objects.get(action="checkin.numbered").after["seed"] == event.numbering_seed


def test_the_same_seed_gives_the_same_numbers_and_another_seed_others(organiser_actor):
    ids = list(range(100, 132))
    first = numbering_order(ids, method="random", seed=2030)
    assert numbering_order(ids, method="random", seed=2030) == first
    assert sorted(first) == ids and first != ids
    assert numbering_order(ids, method="random", seed=2031) != first
    assert numbering_order(ids, method="registration", seed=2030) == ids


def test_an_organiser_given_seed_is_used(event, organiser_actor):
    arrived = _checked_in(event, 8)
    assign_numbers(event=event, actor=organiser_actor, method="random", seed=42, now=AFTER_CHECKIN)
    expected = numbering_order([r.pk for r in arrived], method="random", seed=42)
    assert [r.pk for r in sorted(arrived, key=lambda r: refresh(r).number)] == expected
    assert refresh(event).numbering_seed == 42


def test_numbers_are_refused_while_check_in_is_open_or_when_already_assigned(event, organiser_actor):
    registration = _checked_in(event, 1)[0]
    with pytest.raises(ServiceError) as refusal:
        assign_numbers(event=event, actor=organiser_actor, now=IN_CHECKIN)
    assert refusal.value.code == "open" and refresh(registration).number is None
    assign_numbers(event=event, actor=organiser_actor, now=AFTER_CHECKIN)
    with pytest.raises(ServiceError) as refusal:
        assign_numbers(event=event, actor=organiser_actor, method="random", now=AFTER_CHECKIN)
    assert refusal.value.code == "numbered" and refresh(registration).number == 1


def test_unknown_numbering_method_is_refused(event, organiser_actor):
    _checked_in(event, 2)
    with pytest.raises(ServiceError):
        assign_numbers(event=event, actor=organiser_actor, method="alphabetical", now=AFTER_CHECKIN)
    assert refresh(event).numbers_assigned_at is None
    assert not Registration.objects.filter(number__isnull=False).exists()


# --- The desk's query -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("김 민준", DeskQuery(name="김민준")),
        ("  Anna LEE ", DeskQuery(name="annalee")),
        ("17", DeskQuery(number=17, name="17")),
        ("#７", DeskQuery(number=7, name="7")),
        ("1234567890", DeskQuery(name="1234567890")),  # too long for a player number
        ("https://x.example/p/AbCdEfGhIjKlMnOpQrStUvWx01234567/", DeskQuery(token="AbCdEfGhIjKlMnOpQrStUvWx01234567", is_link=True)),
        ("/p/AbCdEfGhIjKlMnOpQrSt/?utm=qr", DeskQuery(token="AbCdEfGhIjKlMnOpQrSt", is_link=True)),
        ("AbCdEfGhIjKlMnOpQrStUvWx01234567", DeskQuery(token="AbCdEfGhIjKlMnOpQrStUvWx01234567", name="abcdefghijklmnopqrstuvwx01234567")),
        ("   ", DeskQuery()),
    ],
)
def test_desk_query_reads_names_numbers_and_links(text, expected):
    assert DeskQuery.parse(text) == expected


def test_search_covers_only_the_event_and_every_status(event):
    other_event = make_event(event.festival)
    kim = make_player(event.festival, name="Kim Arrived")
    mine = [
        make_registration(event, kim),
        make_registration(event, make_player(event.festival, name="Kim Waiting"), status="waitlisted"),
        make_registration(event, make_player(event.festival, name="Kim Gone"), status="withdrawn"),
    ]
    make_registration(other_event, make_player(event.festival, name="Kim Elsewhere"))
    found = search_registrations(event=event, query=DeskQuery.parse("kim"))
    assert {r.pk for r in found} == {r.pk for r in mine}
    assert search_registrations(event=event, query=DeskQuery.parse("")) == []


def test_desk_counts(event):
    make_registration(event, checked_in_at=IN_CHECKIN)
    make_registration(event)
    make_registration(event, status="waitlisted")
    make_registration(event, status="withdrawn", checked_in_at=IN_CHECKIN)
    make_registration(make_event(event.festival), checked_in_at=IN_CHECKIN)
    assert desk_counts(event=event) == {"registered": 2, "waitlisted": 1, "checked_in": 1, "missing": 1,
                                        "guardian_waiting": 0}


@pytest.mark.parametrize("language, one, not_a_range", [
    ("en", "gets number 4 ", "4 to 4"),
    ("ko", "4번을 받습니다", "4번부터"),
    ("zh-hant", "獲編配4號", "4至4號"),
])
def test_one_newcomer_gets_one_number_not_a_range_from_it_to_itself(event, organiser_actor, language, one,
                                                                     not_a_range):
    for _ in range(3):
        make_registration(event, checked_in_at=IN_CHECKIN)
    assign_numbers(event=event, actor=organiser_actor, now=AFTER_CHECKIN)
    set_checkin_override(event=event, override=Event.CheckinOverride.OPEN, actor=organiser_actor,
                         expect=checkin_preview(event=refresh(event), override=Event.CheckinOverride.OPEN,
                                                now=AFTER_CHECKIN).state, now=AFTER_CHECKIN)
    check_in(registration=make_registration(event), actor=organiser_actor, now=AFTER_CHECKIN)
    set_checkin_override(event=event, override=Event.CheckinOverride.CLOSED, actor=organiser_actor,
                         now=AFTER_CHECKIN)
    with translation.override(language):
        lines = " ".join(numbering_preview(event=refresh(event), method="registration", now=AFTER_CHECKIN).lines)
    assert one in lines and not_a_range not in lines


@pytest.mark.parametrize("language, one, not_a_range", [
    ("en", "gets number 1 ", "1 to 1"),
    ("ko", "1번을 부여합니다", "1번부터"),
    ("zh-hant", "編配1號", "1至1號"),
])
def test_a_single_checked_in_player_gets_number_1_not_a_range(event, language, one, not_a_range):
    make_registration(event, checked_in_at=IN_CHECKIN)
    with translation.override(language):
        lines = " ".join(numbering_preview(event=event, method="registration", now=AFTER_CHECKIN).lines)
    assert one in lines and not_a_range not in lines


def test_before_check_in_opens_the_refusal_says_when_it_opens_not_that_it_closed(event, desk):
    """R9: at 10:29 the desk is early, not the player late: "Check-in opens at 10:30", in the festival's zone."""
    registration = make_registration(event)
    with pytest.raises(ServiceError) as refusal, translation.override("en"):
        check_in(registration=registration, actor=desk, now=BEFORE_CHECKIN)
    assert refusal.value.code == "closed"
    assert str(refusal.value) == "Check-in opens at 10:30." and "late arrivals" not in str(refusal.value)
    with pytest.raises(ServiceError) as refusal, translation.override("en"):
        check_in(registration=registration, actor=desk, now=BEFORE_CHECKIN - dt.timedelta(days=1))
    assert "opens on" in str(refusal.value) and "at 10:30" in str(refusal.value)
    with pytest.raises(ServiceError) as refusal, translation.override("en"):
        check_in(registration=registration, actor=desk, now=AFTER_CHECKIN)
    assert "late arrivals cannot be admitted" in str(refusal.value)
