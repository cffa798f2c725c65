"""`manage.py load_demo`: the Busan 2014 and Hong Kong 2016 festivals a newcomer sees after `make run`, laid out
around the moment it runs (tests/scoring/test_demo_any_hour.py checks every role at three times of day)."""

import datetime as dt
import io
import zoneinfo

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.urls import reverse

from tests.clock import fixed_clock
from tournament.models import AuditEntry, Event, Festival, Player, Registration, StaffRole
from tournament.models.registration import contact_key, name_key
from tournament.permissions import CHIEF_REFEREE, DESK, ORGANISER, REFEREE, has_role
from tournament.services import ServiceError
from tournament.services.audit import Actor
from tournament.services.checkin import set_checkin_override
from tournament.services.registration import PlayerDetails, register, register_existing_player, withdraw

pytestmark = pytest.mark.django_db

SEOUL = zoneinfo.ZoneInfo("Asia/Seoul")
# The real festival day (seed 000), at 10:40 in Seoul: the day is laid out around 10:30.
NOW = dt.datetime(2014, 11, 1, 10, 40, tzinfo=SEOUL)
ANCHOR = NOW.replace(minute=30)
PASSWORD = "rummikub-demo"
TESTER = Actor(label="test")
Status = Registration.Status


@pytest.fixture(autouse=True)
def clock(monkeypatch):
    fixed_clock(monkeypatch, NOW)
    return lambda moment: fixed_clock(monkeypatch, moment)


def load(*args) -> str:
    """The test settings run with DEBUG off, so every load but the refusal test needs --force."""
    out = io.StringIO()
    call_command("load_demo", "--force", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def event(festival_slug: str, slug: str) -> Event:
    return Event.objects.select_related("festival").get(festival__slug=festival_slug, slug=slug)


def statuses(evt: Event) -> dict[str, int]:
    return {s: evt.registrations.filter(status=s).count() for s in Status.values}


def snapshot() -> dict:
    return {
        "users": list(User.objects.order_by("id").values_list("username", "password", "is_superuser")),
        "staff": sorted(StaffRole.objects.values_list("festival_id", "user_id", "role")),
        "festivals": list(Festival.objects.order_by("id").values()),
        "events": list(Event.objects.order_by("id").values()),
        "players": list(Player.objects.order_by("id").values()),
        "registrations": list(Registration.objects.order_by("id").values()),
        "audit": AuditEntry.objects.count(),
    }


def test_loading_twice_writes_nothing_the_second_time():
    load()
    first = snapshot()
    load()
    assert snapshot() == first
    assert Player.objects.count() == 128 + 6 + 9 + 6 + 64
    assert AuditEntry.objects.filter(action="demo.loaded").count() == 2


def test_busan_main_event_is_full_with_withdrawals_a_waiting_list_and_half_checked_in():
    load()
    rummikub = event("busan-2014", "rummikub")
    assert statuses(rummikub) == {Status.REGISTERED: 128, Status.WITHDRAWN: 6, Status.WAITLISTED: 9}
    checked_in = rummikub.registrations.filter(checked_in_at__isnull=False)
    assert 50 <= checked_in.count() <= 78
    assert set(checked_in.values_list("status", flat=True)) == {Status.REGISTERED}
    assert set(checked_in.values_list("checked_in_by__username", flat=True)) == {"desk"}
    assert not rummikub.registrations.filter(status=Status.WITHDRAWN, withdrawn_at__isnull=True).exists()
    assert not rummikub.registrations.filter(number__isnull=False).exists()


def test_waiting_list_holds_only_those_who_signed_up_after_the_event_filled():
    """R9: a withdrawal before the deadline would have promoted the first in line, so every withdrawal
    and every place must come before the first waiting-list sign-up."""
    load()
    regs = event("busan-2014", "rummikub").registrations
    first_waiting = regs.filter(status=Status.WAITLISTED).earliest("created_at").created_at
    assert regs.exclude(status=Status.WAITLISTED).latest("created_at").created_at < first_waiting
    assert regs.filter(status=Status.WITHDRAWN).latest("withdrawn_at").withdrawn_at < first_waiting
    assert all(r.queued_at == r.created_at for r in regs.all())
    assert regs.values("created_at").distinct().count() == regs.count()


def test_busan_players_span_the_ages_with_a_good_share_under_15():
    """R9: results of players under 15 do not count for the national ranking."""
    load()
    players = Player.objects.filter(festival__slug="busan-2014")
    years = list(players.values_list("birth_year", flat=True))
    under_15 = [year for year in years if 2014 - year < 15]
    assert 0.2 <= len(under_15) / len(years) <= 0.6
    assert min(years) >= 1965 and max(years) <= 2008
    assert not players.filter(birth_year__gt=1999).exclude(ranking_id="").exists()
    assert players.exclude(ranking_id="").count() >= 3


def test_players_have_identity_keys_so_a_second_sign_up_is_refused_as_duplicate():
    load()
    for player in Player.objects.all():
        assert (player.name_key, player.contact_key) == (name_key(player.name),
                                                         contact_key(player.contact, player.festival.phone_region))
    player = event("busan-2014", "rummikub").registrations.filter(status=Status.REGISTERED).first().player
    details = PlayerDetails(name=player.name, contact=player.contact, birth_year=player.birth_year)
    with pytest.raises(ServiceError) as refused:
        register(event=event("busan-2014", "rummikub"), details=details, actor=TESTER, by_organiser=True)
    assert refused.value.code == "duplicate"


def test_word_event_clashes_with_the_main_event_and_nobody_entered_both():
    """R9: a player may enter several events, but not two that run at the same time."""
    load()
    rummikub, word = event("busan-2014", "rummikub"), event("busan-2014", "rummikub-word")
    assert rummikub.overlaps(word)
    assert statuses(word)[Status.REGISTERED] == 12
    in_rummikub = set(rummikub.registrations.filter(status__in=Registration.ACTIVE).values_list("player", flat=True))
    in_word = set(word.registrations.filter(status__in=Registration.ACTIVE).values_list("player", flat=True))
    assert not in_rummikub & in_word
    player = Player.objects.get(pk=min(in_rummikub))
    with pytest.raises(ServiceError) as refused:
        register_existing_player(event=word, player=player, actor=TESTER, now=word.registration_closes_at - dt.timedelta(hours=1))
    assert refused.value.code == "clash"


def test_some_children_play_the_kids_event_and_the_main_event():
    load()
    rummikub, kids = event("busan-2014", "rummikub"), event("busan-2014", "rummikub-kids")
    assert not kids.overlaps(rummikub)
    both = Player.objects.filter(registrations__event=kids).filter(
        registrations__event=rummikub, registrations__status=Status.REGISTERED
    )
    assert both.count() == 12
    assert all(2014 - player.birth_year < 15 for player in both)


def test_hong_kong_final_has_64_checked_in_pupils_numbered_1_to_64_in_registration_order():
    """R8.2: the Hong Kong format seats by number, given when check-in closed at the briefing (R9)."""
    load()
    final = event("hong-kong-2016", "final")
    regs = list(final.registrations.order_by("created_at", "id").select_related("player"))
    assert [r.number for r in regs] == list(range(1, 65))
    assert all(r.status == Status.REGISTERED and r.is_checked_in for r in regs)
    assert final.numbers_assigned_at is not None
    assert final.numbering == Event.Numbering.REGISTRATION
    assert final.checkin_override == Event.CheckinOverride.CLOSED and not final.checkin_is_open()
    assert all("\u4e00" <= ch <= "\u9fff" for r in regs for ch in r.player.name)
    under_15 = [r for r in regs if 2014 - r.player.birth_year < 15]
    assert len(under_15) > 48


def test_the_day_is_laid_out_around_now_in_each_festivals_time_zone():
    """Whatever the hour: the main event in check-in, the Word event open for registration, the children's
    event over, the Hong Kong final begun (check-in closed at its briefing, R9)."""
    load()
    busan = Festival.objects.get(slug="busan-2014")
    assert (busan.name, busan.timezone, busan.languages) == ("2014 부산 보드게임페스티벌", "Asia/Seoul", ["ko", "en"])
    assert busan.starts_on == busan.ends_on == dt.date(2014, 11, 1)
    rummikub = event("busan-2014", "rummikub")
    assert rummikub.checkin_opens_at == ANCHOR - dt.timedelta(minutes=30)
    assert rummikub.starts_at == rummikub.checkin_closes_at == ANCHOR + dt.timedelta(hours=1)
    assert rummikub.checkin_is_open(NOW) and not rummikub.registration_is_open(NOW)
    assert rummikub.checkin_override == ""  # open by the schedule, not held open
    assert rummikub.withdrawal_deadline == dt.datetime(2014, 10, 31, 0, 0, tzinfo=SEOUL)  # end of Thursday
    word = event("busan-2014", "rummikub-word")
    assert word.registration_is_open(NOW) and NOW < word.registration_closes_at <= word.starts_at
    kids = event("busan-2014", "rummikub-kids")
    assert kids.ends_at <= NOW and not kids.registration_is_open(NOW)
    assert kids.numbers_assigned_at is not None
    final = event("hong-kong-2016", "final")
    assert final.starts_at <= NOW < final.ends_at
    assert final.checkin_closes_at == final.starts_at - dt.timedelta(minutes=10)


def test_late_in_the_evening_the_festival_runs_past_midnight(clock):
    clock(dt.datetime(2014, 11, 1, 22, 5, tzinfo=SEOUL))
    load()
    busan = Festival.objects.get(slug="busan-2014")
    assert (busan.starts_on, busan.ends_on) == (dt.date(2014, 11, 1), dt.date(2014, 11, 2))
    assert event("busan-2014", "rummikub").checkin_is_open()
    hong_kong = Festival.objects.get(slug="hong-kong-2016")
    assert hong_kong.starts_on == dt.date(2014, 11, 1)  # 21:05 in Hong Kong


def test_a_given_date_keeps_the_time_of_day():
    load("--date", "2015-03-07")
    rummikub = event("busan-2014", "rummikub")
    assert rummikub.starts_at == dt.datetime(2015, 3, 7, 11, 30, tzinfo=SEOUL)
    assert Festival.objects.get(slug="hong-kong-2016").starts_on == dt.date(2015, 3, 7)


def test_loading_on_a_later_day_moves_the_schedule_but_keeps_what_the_newcomer_did(clock):
    load()
    rummikub = event("busan-2014", "rummikub")
    left = rummikub.registrations.filter(status=Status.REGISTERED, checked_in_at__isnull=True).first()
    withdraw(registration=left, actor=TESTER, by_organiser=True)
    set_checkin_override(event=rummikub, override=Event.CheckinOverride.CLOSED, actor=TESTER)
    registrations = Registration.objects.count()

    clock(NOW + dt.timedelta(days=1))
    load()

    rummikub.refresh_from_db()
    assert rummikub.starts_at == dt.datetime(2014, 11, 2, 11, 30, tzinfo=SEOUL)
    assert rummikub.checkin_override == Event.CheckinOverride.CLOSED
    assert Registration.objects.get(pk=left.pk).status == Status.WITHDRAWN
    assert Registration.objects.count() == registrations
    assert AuditEntry.objects.filter(action="demo.loaded").count() == 4


def test_demo_accounts_sign_in_with_the_published_password(client):
    load()
    for username in ("organiser", "chief", "referee", "desk", "admin"):
        response = client.post(reverse("login"), {"username": username, "password": PASSWORD})
        assert response.status_code == 302, username
        assert client.session["_auth_user_id"] == str(User.objects.get(username=username).pk)
        client.logout()


def test_demo_accounts_hold_their_role_at_both_festivals():
    load()
    roles = {"organiser": ORGANISER, "chief": CHIEF_REFEREE, "referee": REFEREE, "desk": DESK}
    for festival in Festival.objects.all():
        for username, role in roles.items():
            assert has_role(User.objects.get(username=username), festival, role)
        assert not has_role(User.objects.get(username="desk"), festival, ORGANISER, REFEREE)
    assert User.objects.get(username="admin").is_superuser


def test_an_existing_account_keeps_its_own_password_but_gets_its_role():
    User.objects.create_user(username="desk", password="changed-by-the-team")
    load()
    desk = User.objects.get(username="desk")
    assert desk.check_password("changed-by-the-team")
    assert not desk.check_password(PASSWORD)
    assert has_role(desk, Festival.objects.get(slug="busan-2014"), DESK)


def test_refuses_without_force_when_debug_is_off():
    err = io.StringIO()
    with pytest.raises(CommandError, match="--force"):
        call_command("load_demo", stdout=io.StringIO(), stderr=err)
    assert "DEBUG is off" in err.getvalue()
    assert not Festival.objects.exists()
    assert not User.objects.exists()


def test_loads_without_force_in_development(settings):
    settings.DEBUG = True
    call_command("load_demo", stdout=io.StringIO(), stderr=io.StringIO())
    assert Festival.objects.count() == 2


def test_rejects_a_malformed_date_and_loads_nothing():
    with pytest.raises(CommandError):
        load("--date", "1 November")
    assert not Festival.objects.exists()


def test_summary_names_the_festivals_counts_accounts_and_address():
    out = load()
    for expected in ("busan-2014", "hong-kong-2016", "128/128 registered", "9 waiting", "64 checked in",
                     "organiser", "desk", PASSWORD, "http://127.0.0.1:8000/"):
        assert expected in out
