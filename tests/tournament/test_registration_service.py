"""services.registration: places, waiting list, promotion, clashes and duplicates (RULES.md R9)."""

import datetime as dt
import threading

import pytest
from django.db import connection

from tests.factories import EVENT_DAY, make_event, make_festival, make_player, make_registration
from tournament.models import AuditEntry, Player, Registration
from tournament.services.audit import Actor
from tournament.services.consent import Consent
from tournament.services.errors import ServiceError
from tournament.services.registration import (
    PlayerDetails,
    register,
    register_existing_player,
    waiting_position,
    withdraw,
)

ACTOR = Actor(label="test")
# make_event: the event starts on EVENT_DAY 11:00; registration opened 30 days before, withdrawal deadline 2 days before.
BEFORE_DEADLINE = EVENT_DAY - dt.timedelta(days=3)
AFTER_DEADLINE = EVENT_DAY - dt.timedelta(days=1)

pytestmark = pytest.mark.django_db


def details(n: int = 1, **fields) -> PlayerDetails:
    values = {"name": f"김민준 {n}", "contact": f"minjun{n}@example.kr", "birth_year": 2001}
    values.update(fields)
    return PlayerDetails(**values)


def enter(event, n: int = 1, now=BEFORE_DEADLINE, own: Registration | None = None, **fields) -> Registration:
    """Through the public form's service; `own`: an earlier registration made from the same browser (which so
    holds its player's personal link)."""
    return register(event=event, details=details(n, **fields), actor=ACTOR, now=now,
                    own_tokens=[own.player.token] if own else [])


def statuses(event) -> dict[str, str]:
    return dict(Registration.objects.filter(event=event).values_list("player__name", "status"))


def test_players_get_places_until_capacity_then_join_the_waiting_list_in_order():
    event = make_event(capacity=2)
    results = [enter(event, n) for n in range(1, 5)]
    assert [r.status for r in results] == ["registered", "registered", "waitlisted", "waitlisted"]
    assert [waiting_position(r) for r in results] == [None, None, 1, 2]


def test_a_registered_player_withdrawing_before_the_deadline_promotes_the_first_in_line():
    event = make_event(capacity=1)
    first = enter(event, 1)
    second = enter(event, 2)
    third = enter(event, 3)

    withdraw(registration=first, actor=ACTOR, now=BEFORE_DEADLINE)

    second.refresh_from_db()
    third.refresh_from_db()
    assert second.status == Registration.Status.REGISTERED
    assert third.status == Registration.Status.WAITLISTED
    assert waiting_position(third) == 1
    assert AuditEntry.objects.filter(action="registration.promoted", target_id=second.pk).exists()


def test_withdrawing_from_the_waiting_list_promotes_nobody_but_moves_the_line_up():
    event = make_event(capacity=1)
    enter(event, 1)
    second = enter(event, 2)
    third = enter(event, 3)

    withdraw(registration=second, actor=ACTOR, now=BEFORE_DEADLINE)

    assert statuses(event) == {"김민준 1": "registered", "김민준 2": "withdrawn", "김민준 3": "waitlisted"}
    assert waiting_position(third) == 1


def test_a_player_cannot_withdraw_after_the_deadline():
    event = make_event(capacity=1)
    first = enter(event, 1)

    with pytest.raises(ServiceError) as refused:
        withdraw(registration=first, actor=ACTOR, now=AFTER_DEADLINE)

    assert refused.value.code == "deadline"
    first.refresh_from_db()
    assert first.status == Registration.Status.REGISTERED


def test_after_the_deadline_but_before_checkin_closes_the_organiser_withdrawing_someone_still_promotes():
    # The waiting list moves until check-in closes (R9): a no-show withdrawn on the morning frees a place.
    event = make_event(capacity=1)
    first = enter(event, 1)
    second = enter(event, 2)

    withdraw(registration=first, actor=ACTOR, now=AFTER_DEADLINE, by_organiser=True)

    second.refresh_from_db()
    assert second.status == Registration.Status.REGISTERED
    assert second.promoted_at == AFTER_DEADLINE


def test_no_promotion_when_the_organiser_withdraws_someone_after_checkin_closed():
    event = make_event(capacity=1)
    first = enter(event, 1)
    second = enter(event, 2)

    withdraw(registration=first, actor=ACTOR, now=event.checkin_closes_at, by_organiser=True)

    second.refresh_from_db()
    assert second.status == Registration.Status.WAITLISTED
    assert second.promoted_at is None
    assert not AuditEntry.objects.filter(action="registration.promoted").exists()


def test_an_overlapping_event_is_refused_naming_the_clashing_event():
    festival = make_festival()
    morning = make_event(festival, name="Classic open", start=EVENT_DAY.replace(hour=11), hours=3)
    overlapping = make_event(festival, name="Junior cup", start=EVENT_DAY.replace(hour=13), hours=3)
    first = enter(morning, 1)

    with pytest.raises(ServiceError) as refused:
        enter(overlapping, 1, own=first)

    assert refused.value.code == "clash"
    assert "Classic open" in refused.value.message
    assert not Registration.objects.filter(event=overlapping).exists()


def test_events_that_only_touch_do_not_clash_and_a_withdrawn_entry_no_longer_clashes():
    festival = make_festival()
    morning = make_event(festival, start=EVENT_DAY.replace(hour=9), hours=2)
    late_morning = make_event(festival, start=EVENT_DAY.replace(hour=11), hours=2)
    overlapping = make_event(festival, start=EVENT_DAY.replace(hour=12), hours=2)
    first = enter(morning, 1)
    lunch = enter(late_morning, 1, own=first)
    assert lunch.status == Registration.Status.REGISTERED

    withdraw(registration=lunch, actor=ACTOR, now=BEFORE_DEADLINE)
    assert enter(overlapping, 1, own=lunch).status == Registration.Status.REGISTERED


def test_the_same_person_typed_differently_from_the_same_browser_cannot_register_twice():
    event = make_event()
    first = enter(event, 1, name="Kim Minjun", contact="+82 10-1234-5678")

    with pytest.raises(ServiceError) as refused:
        enter(event, 1, name="ＫＩＭ  minjun", contact="010 (1234) 5678", own=first)

    assert refused.value.code == "duplicate"
    assert Player.objects.count() == 1
    assert Registration.objects.filter(event=event).count() == 1


def test_the_public_form_always_makes_a_new_player_and_the_organiser_s_import_finds_the_stored_one():
    festival = make_festival()
    first = make_event(festival, start=EVENT_DAY.replace(hour=9), hours=1)
    second = make_event(festival, start=EVENT_DAY.replace(hour=14), hours=1)
    third = make_event(festival, start=EVENT_DAY.replace(hour=16), hours=1)

    stored = enter(first, 1)
    assert stored.player_is_new is True
    assert enter(second, 1).player_is_new is True  # another browser: a new player, whoever exists
    assert Player.objects.count() == 2
    imported = register(event=third, details=details(1, name="김민준  1"), actor=ACTOR, by_organiser=True)
    assert imported.player_is_new is False and imported.player == stored.player
    assert Player.objects.count() == 2


@pytest.mark.parametrize(
    "now",
    [EVENT_DAY - dt.timedelta(days=31), EVENT_DAY.replace(hour=10, minute=30)],
    ids=["before-it-opens", "after-it-closes"],
)
def test_registration_outside_its_window_is_refused_and_saves_nothing(now):
    event = make_event()

    with pytest.raises(ServiceError) as refused:
        enter(event, 1, now=now)

    assert refused.value.code == "closed"
    assert not Player.objects.exists()
    assert not AuditEntry.objects.exists()


def test_a_refused_clash_does_not_leave_a_new_player_behind():
    festival = make_festival()
    morning = make_event(festival, start=EVENT_DAY.replace(hour=11))
    overlapping = make_event(festival, start=EVENT_DAY.replace(hour=12))
    existing = make_player(festival, name="Lee", contact="lee@example.org")
    make_registration(morning, existing)

    with pytest.raises(ServiceError):
        register(event=overlapping, details=details(name="Lee", contact="LEE@example.org"), actor=ACTOR,
                 now=BEFORE_DEADLINE, own_tokens=[existing.token])
    assert Player.objects.count() == 1


def test_entering_again_after_withdrawing_queues_at_the_end_of_the_line():
    event = make_event(capacity=1)
    enter(event, 1)
    second = enter(event, 2)
    third = enter(event, 3)
    withdraw(registration=second, actor=ACTOR, now=BEFORE_DEADLINE)

    back = register_existing_player(event=event, player=second.player, actor=ACTOR,
                                    now=BEFORE_DEADLINE + dt.timedelta(minutes=1),
                                    consent=Consent(by=Registration.ConsentBy.PLAYER,
                                                    how=Registration.ConsentHow.ONLINE))

    assert back.pk == second.pk
    assert back.status == Registration.Status.WAITLISTED
    assert waiting_position(third) == 1
    assert waiting_position(back) == 2


def test_a_player_cannot_enter_an_event_of_another_festival():
    player = make_player(make_festival())
    elsewhere = make_event(make_festival())

    with pytest.raises(ServiceError) as refused:
        register_existing_player(event=elsewhere, player=player, actor=ACTOR, now=BEFORE_DEADLINE)

    assert refused.value.code == "other_festival"
    assert not Registration.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_two_players_racing_for_the_last_place_leave_capacity_registered_and_one_waiting(on_postgres):
    event = make_event(capacity=2)
    make_registration(event, status=Registration.Status.REGISTERED)
    barrier = threading.Barrier(2)
    outcomes, failures = [], []

    def racer(n):
        try:
            barrier.wait(timeout=10)
            outcomes.append(enter(event, n).status)
        except Exception as error:  # reported below; a thread's exception would otherwise vanish
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=racer, args=(n,)) for n in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    assert sorted(outcomes) == ["registered", "waitlisted"]
    counts = {status: Registration.objects.filter(event=event, status=status).count()
              for status in ("registered", "waitlisted")}
    assert counts == {"registered": 2, "waitlisted": 1}
