"""The check-in desk (RULES.md R9): find a player on a phone, check in with one tap, undo, counts,
who is missing; permissions, bad input and htmx partials."""

import datetime as dt
import threading

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from tests.factories import EVENT_DAY, make_event, make_festival, make_player, make_registration, make_staff
from tournament.models import AuditEntry, Event, Registration
from tournament.permissions import DESK, ORGANISER, REFEREE
from tournament.services.audit import Actor
from tournament.services.checkin import check_in
from tournament.services.desk_search import SEARCH_LIMIT

# The organiser reopened check-in, so it is open whatever the wall clock says (tests run on any day).
pytestmark = pytest.mark.event_of(checkin_override=Event.CheckinOverride.OPEN)

HTMX = {"HTTP_HX_REQUEST": "true"}
IN_CHECKIN_WINDOW = EVENT_DAY.replace(hour=10, minute=45)  # R9: check-in 10:30–11:00


def desk_url(event, name="desk", **extra):
    return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug, **extra})


def checkin_url(event, registration_id):
    return desk_url(event, "desk-checkin", registration=registration_id)


def undo_url(event, registration_id):
    return desk_url(event, "desk-undo", registration=registration_id)


def reload(registration):
    return Registration.objects.get(pk=registration.pk)


@pytest.fixture
def desk_client(client, event):
    client.force_login(make_staff(event.festival, DESK))
    return client


@pytest.fixture
def reg(event):
    return make_registration(event, make_player(event.festival, name="김민준", affiliation="부산중학교", birth_year=2011))


def search(client, event, q, htmx=True):
    return client.get(desk_url(event, "desk-search"), {"q": q}, **(HTMX if htmx else {}))


def found_ids(response):
    return [r.pk for r in response.context["results"]]


# --- Permissions: refused on the server, nothing changes -------------------------------------------------


def test_anonymous_is_sent_to_sign_in(client, event):
    response = client.get(desk_url(event))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    assert "next=" in response["Location"]


def test_anonymous_check_in_is_refused_and_changes_nothing(client, event, reg):
    response = client.post(checkin_url(event, reg.pk))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    response = client.post(checkin_url(event, reg.pk), **HTMX)
    assert response["HX-Redirect"].startswith(reverse("login"))
    assert reload(reg).checked_in_at is None
    assert not AuditEntry.objects.filter(action="checkin.in").exists()


def test_desk_user_of_another_festival_is_refused(client, event, reg):
    client.force_login(make_staff(make_festival(), DESK))
    assert client.get(desk_url(event)).status_code == 403
    assert client.get(desk_url(event, "desk-search"), {"q": "민준"}, **HTMX).status_code == 403
    assert client.get(desk_url(event, "desk-missing")).status_code == 403
    assert client.post(checkin_url(event, reg.pk)).status_code == 403
    assert reload(reg).checked_in_at is None
    assert not AuditEntry.objects.filter(action="checkin.in").exists()


def test_referee_without_desk_role_is_refused(client, event, reg):
    client.force_login(make_staff(event.festival, REFEREE))
    response = client.get(desk_url(event))
    assert response.status_code == 403
    assert "this account may not do this here" in response.content.decode()
    assert client.post(checkin_url(event, reg.pk)).status_code == 403
    # htmx: the browser reloads and shows the 403 page, rather than swapping it into a row.
    response = client.post(checkin_url(event, reg.pk), **HTMX)
    assert response.status_code == 403 and response["HX-Refresh"] == "true"
    assert reload(reg).checked_in_at is None


def test_desk_user_cannot_touch_a_registration_of_another_event(desk_client, event):
    other_event = make_event(event.festival, checkin_override=Event.CheckinOverride.OPEN)
    other = make_registration(other_event)
    assert desk_client.post(checkin_url(event, other.pk)).status_code == 404
    other.checked_in_at = IN_CHECKIN_WINDOW
    other.save()
    assert desk_client.post(undo_url(event, other.pk)).status_code == 404
    assert reload(other).checked_in_at == IN_CHECKIN_WINDOW
    assert not AuditEntry.objects.exists()


def test_organiser_holds_the_desk_role(client, event, reg):
    client.force_login(make_staff(event.festival, ORGANISER))
    assert client.get(desk_url(event)).status_code == 200
    assert client.post(checkin_url(event, reg.pk)).status_code == 302
    assert reload(reg).checked_in_at is not None


def test_check_in_and_undo_accept_only_post(desk_client, event, reg):
    assert desk_client.get(checkin_url(event, reg.pk)).status_code == 405
    assert desk_client.get(undo_url(event, reg.pk)).status_code == 405
    assert reload(reg).checked_in_at is None


# --- Search: any script, number, personal link -------------------------------------------------------------


@pytest.mark.parametrize("query", ["민준", "김민", "김 민 준", " 민준 "])
def test_search_finds_a_hangul_name_by_any_part_ignoring_spaces(desk_client, event, reg, query):
    make_registration(event, make_player(event.festival, name="이서연"))
    assert found_ids(search(desk_client, event, query)) == [reg.pk]


def test_search_finds_a_chinese_name_by_part(desk_client, event):
    wanted = make_registration(event, make_player(event.festival, name="陳大文"))
    make_registration(event, make_player(event.festival, name="李小明"))
    assert found_ids(search(desk_client, event, "大文")) == [wanted.pk]


@pytest.mark.parametrize("query", ["anna lee", "ANNALEE", "nna  L", "ＡＮＮＡ"])
def test_search_finds_a_latin_name_whatever_the_case_spacing_or_width(desk_client, event, query):
    wanted = make_registration(event, make_player(event.festival, name="Anna Lee"))
    make_registration(event, make_player(event.festival, name="Bob Park"))
    assert found_ids(search(desk_client, event, query)) == [wanted.pk]


@pytest.mark.parametrize("query", ["17", "#17", "１７"])
def test_search_by_player_number_puts_the_numbered_player_first(desk_client, event, query):
    namesake = make_registration(event, make_player(event.festival, name="Team 17 Kim"))
    numbered = make_registration(event, make_player(event.festival, name="Park"), number=17)
    make_registration(event, make_player(event.festival, name="Choi"), number=18)
    assert found_ids(search(desk_client, event, query)) == [numbered.pk, namesake.pk]


def test_search_by_token_or_scanned_personal_link(desk_client, event, reg):
    make_registration(event)
    token = reg.player.token
    for query in (token, f"https://rummikub.example/p/{token}/", f"/p/{token}/", f"http://testserver/p/{token}"):
        assert found_ids(search(desk_client, event, query)) == [reg.pk], query


def test_scanning_a_player_of_another_event_says_so(desk_client, event):
    elsewhere = make_player(event.festival, name="Wrong Desk")
    make_registration(make_event(event.festival), elsewhere)
    response = search(desk_client, event, f"https://x.example/p/{elsewhere.token}/")
    assert found_ids(response) == []
    assert "Wrong Desk is not entered in this event" in response.content.decode()


def test_search_results_show_the_row_and_one_big_button(desk_client, event, reg):
    response = search(desk_client, event, "민준")
    html = response.content.decode()
    assert "<html" not in html  # a partial for htmx
    assert "김민준" in html and "부산중학교" in html and "2011" in html
    assert f'action="{checkin_url(event, reg.pk)}"' in html and f'hx-post="{checkin_url(event, reg.pk)}"' in html
    assert "Not checked in" in html


def test_waitlisted_and_withdrawn_players_are_found_but_marked_without_a_button(desk_client, event):
    waiting = make_registration(event, make_player(event.festival, name="Kim Waiting"), status="waitlisted")
    gone = make_registration(event, make_player(event.festival, name="Kim Gone"), status="withdrawn")
    response = search(desk_client, event, "kim")
    html = response.content.decode()
    assert set(found_ids(response)) == {waiting.pk, gone.pk}
    assert "Waiting list: no place, cannot be checked in" in html
    assert "Withdrawn: cannot be checked in" in html
    assert "desk-checkin" not in html and "/checkin/" not in html


def test_search_results_are_capped_with_a_note_to_refine(desk_client, event):
    for n in range(SEARCH_LIMIT + 5):
        make_registration(event, make_player(event.festival, name=f"Kim {n:02d}"))
    response = search(desk_client, event, "kim")
    assert len(found_ids(response)) == SEARCH_LIMIT
    assert "refine your search" in response.content.decode()


def test_search_without_htmx_shows_the_desk_page_with_the_query(desk_client, event, reg):
    response = search(desk_client, event, "민준", htmx=False)
    assert response.status_code == 302
    response = desk_client.get(response["Location"])
    html = response.content.decode()
    assert response.status_code == 200 and "<html" in html
    assert 'value="민준"' in html and f"desk-reg-{reg.pk}" in html
    # The page is a GET form (works without JS) with htmx search as enhancement.
    assert 'method="get"' in html and "input changed delay:250ms, search" in html and "autofocus" in html


@pytest.mark.parametrize(
    "query",
    ["x" * 201, "a\x00b", "%", "_", "' OR 1=1 --", "99999999999999999999999", "-1", "https://evil.example/p/../../",
     "/p/short/", "🀄️🀄️", "\u200b", "<script>alert(1)</script>"],
)
def test_garbage_queries_never_fail(desk_client, event, reg, query):
    for response in (search(desk_client, event, query), desk_client.get(desk_url(event), {"q": query})):
        assert response.status_code == 200
        assert reg.pk not in [r.pk for r in response.context["results"]]
        assert "<script>alert" not in response.content.decode()


def test_too_long_query_gets_a_clear_message(desk_client, event):
    assert "too long" in search(desk_client, event, "x" * 201).content.decode()


# --- Check in, undo, twice ------------------------------------------------------------------------------


def test_check_in_without_js_redirects_back_to_the_search(desk_client, event, reg):
    back = desk_url(event) + "?q=%EB%AF%BC%EC%A4%80"
    response = desk_client.post(checkin_url(event, reg.pk), {"next": back})
    assert response.status_code == 302 and response["Location"] == back
    reg = reload(reg)
    assert reg.checked_in_at is not None and reg.checked_in_by.staff_roles.filter(role=DESK).exists()
    assert AuditEntry.objects.filter(action="checkin.in", target_id=reg.pk).count() == 1
    assert "김민준 is checked in." in desk_client.get(back).content.decode()


def test_checking_in_twice_is_harmless(desk_client, event, reg):
    desk_client.post(checkin_url(event, reg.pk))
    first = reload(reg).checked_in_at
    response = desk_client.post(checkin_url(event, reg.pk), **HTMX)
    assert response.status_code == 200 and 'role="alert"' not in response.content.decode()
    assert reload(reg).checked_in_at == first
    assert AuditEntry.objects.filter(action="checkin.in").count() == 1


def test_undo_clears_the_check_in(desk_client, event, reg):
    desk_client.post(checkin_url(event, reg.pk))
    response = desk_client.post(undo_url(event, reg.pk))
    assert response.status_code == 302
    assert reload(reg).checked_in_at is None and reload(reg).checked_in_by is None
    assert AuditEntry.objects.filter(action="checkin.undone", target_id=reg.pk).count() == 1


def test_htmx_check_in_returns_the_row_and_the_counts_out_of_band(desk_client, event, reg):
    make_registration(event)
    response = desk_client.post(checkin_url(event, reg.pk), {"next": desk_url(event)}, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert html.lstrip().startswith(f'<li id="desk-reg-{reg.pk}"')
    assert f'hx-post="{undo_url(event, reg.pk)}"' in html  # the button became "Undo"
    assert 'id="desk-counts"' in html and 'hx-swap-oob="true"' in html
    assert response.context["counts"] == {"registered": 2, "waitlisted": 0, "checked_in": 1, "missing": 1,
                                         "guardian_waiting": 0}


def test_closed_check_in_refuses_late_arrivals(desk_client, event, reg):
    """R9: late arrivals are not admitted once check-in closes."""
    Event.objects.filter(pk=event.pk).update(checkin_override=Event.CheckinOverride.CLOSED)
    response = desk_client.post(checkin_url(event, reg.pk), **HTMX)
    assert response.status_code == 200
    assert "closed; late arrivals cannot be admitted" in response.content.decode()
    response = desk_client.post(checkin_url(event, reg.pk), {"next": desk_url(event)}, follow=True)
    assert "closed; late arrivals cannot be admitted" in response.content.decode()
    assert reload(reg).checked_in_at is None
    assert not AuditEntry.objects.exists()
    # The page says so too, and offers no button.
    html = desk_client.get(desk_url(event), {"q": "민준"}).content.decode()
    assert "closed by the organiser" in html and f"desk-reg-{reg.pk}" in html and "/checkin/" not in html


@pytest.mark.event_of(checkin_override="")
def test_before_check_in_opens_the_desk_says_when_it_opens(desk_client, event, reg):
    """R9: the desk that opens early is told when check-in opens, not that late arrivals are refused."""
    start = (timezone.now() + dt.timedelta(days=3)).replace(second=0, microsecond=0)
    Event.objects.filter(pk=event.pk).update(checkin_opens_at=start, checkin_closes_at=start + dt.timedelta(hours=1),
                                             starts_at=start + dt.timedelta(hours=1),
                                             ends_at=start + dt.timedelta(hours=5))
    opens = timezone.localtime(start, event.festival.tzinfo).strftime("%H:%M")
    for response in (desk_client.post(checkin_url(event, reg.pk), **HTMX),
                     desk_client.get(desk_url(event, "desk-walk-in"))):
        html = response.content.decode()
        assert "late arrivals cannot be admitted" not in html and f"at {opens}" in html
    assert reload(reg).checked_in_at is None and not AuditEntry.objects.exists()


def test_undo_after_check_in_closed_is_refused(desk_client, event, reg):
    desk_client.post(checkin_url(event, reg.pk))
    Event.objects.filter(pk=event.pk).update(checkin_override=Event.CheckinOverride.CLOSED)
    response = desk_client.post(undo_url(event, reg.pk), **HTMX)
    assert "ask the organiser to reopen" in response.content.decode()
    assert reload(reg).checked_in_at is not None


def test_waitlisted_player_cannot_be_checked_in(desk_client, event):
    waiting = make_registration(event, make_player(event.festival, name="Lee Waiting"), status="waitlisted")
    response = desk_client.post(checkin_url(event, waiting.pk), **HTMX)
    html = response.content.decode()
    assert 'role="alert"' in html and "Lee Waiting is on the waiting list" in html
    assert reload(waiting).checked_in_at is None
    assert not AuditEntry.objects.exists()


@pytest.mark.parametrize(
    "next_url", ["https://evil.example/", "//evil.example/x", "javascript:alert(1)", "http://testserver.evil/", "x" * 3000,
                 "xxx", "manage-home"]  # bare words: redirect() would read them as URL names (found by the fuzz tests)
)
def test_non_htmx_post_ignores_an_unsafe_next(desk_client, event, reg, next_url):
    response = desk_client.post(checkin_url(event, reg.pk), {"next": next_url})
    assert response.status_code == 302 and response["Location"] == desk_url(event)


def test_non_htmx_post_returns_to_the_players_personal_page(desk_client, event, reg):
    """The QR code opens p/<token>/, whose desk buttons post here with next= that page."""
    page = f"/p/{reg.player.token}/"
    response = desk_client.post(checkin_url(event, reg.pk), {"next": page})
    assert response["Location"] == page


@pytest.mark.parametrize("registration_id", ["0", "999999", "99999999999999999999", "-1", "1e3", "abc"])
def test_bad_registration_ids_are_not_found(desk_client, event, reg, registration_id):
    base = desk_url(event)
    assert desk_client.post(f"{base}r/{registration_id}/checkin/").status_code == 404
    assert desk_client.post(f"{base}r/{registration_id}/undo/").status_code == 404
    assert reload(reg).checked_in_at is None


def test_unknown_festival_or_event_is_not_found(desk_client, event):
    assert desk_client.get(reverse("desk", kwargs={"festival": "nope", "event": event.slug})).status_code == 404
    assert desk_client.get(reverse("desk", kwargs={"festival": event.festival.slug, "event": "nope"})).status_code == 404


# --- Counts and who is missing ------------------------------------------------------------------------------


def test_counts_refresh_themselves_and_say_whether_check_in_is_open(desk_client, event):
    make_registration(event, checked_in_at=IN_CHECKIN_WINDOW)
    make_registration(event)
    make_registration(event, status="waitlisted")
    make_registration(event, status="withdrawn")
    response = desk_client.get(desk_url(event, "desk-counts"), **HTMX)
    html = response.content.decode()
    assert response.context["counts"] == {"registered": 2, "waitlisted": 1, "checked_in": 1, "missing": 1,
                                         "guardian_waiting": 0}
    assert "data-poll" in html and 'hx-trigger="every 10s"' in html and "<html" not in html
    assert 'data-checkin-state="open"' in html and "reopened by the organiser" in html
    assert desk_client.get(desk_url(event, "desk-counts")).status_code == 302  # without htmx: the desk page


def test_counts_show_the_scheduled_check_in_times(desk_client, event):
    Event.objects.filter(pk=event.pk).update(checkin_override=Event.CheckinOverride.SCHEDULE)
    html = desk_client.get(desk_url(event)).content.decode()  # the test event is in 2030: not open yet
    assert 'data-checkin-state="closed"' in html and "opens 10:30, closes 11:00" in html


def test_who_is_missing_lists_registered_players_not_checked_in_by_name(desk_client, event):
    names = ["최지우", "Anna", "김하늘", "bob"]
    missing = {name: make_registration(event, make_player(event.festival, name=name)) for name in names}
    make_registration(event, make_player(event.festival, name="Arrived"), checked_in_at=IN_CHECKIN_WINDOW)
    make_registration(event, make_player(event.festival, name="Waiting"), status="waitlisted")
    make_registration(event, make_player(event.festival, name="Gone"), status="withdrawn")
    response = desk_client.get(desk_url(event, "desk-missing"))
    assert [r.player.name for r in response.context["missing"]] == ["Anna", "bob", "김하늘", "최지우"]
    html = response.content.decode()
    listed = html.split('id="desk-missing"')[1]  # the list (the page's own words may hold "Waiting")
    assert "Arrived" not in listed and "Waiting" not in listed
    assert f'action="{checkin_url(event, missing["Anna"].pk)}"' in html


# --- Constant query counts -----------------------------------------------------------------------------------


def _fill(event, size):
    for n in range(size):
        status = "waitlisted" if n % 10 == 9 else "registered"
        make_registration(
            event,
            make_player(event.festival, name=f"김선수 {n:03d}", affiliation="부산"),
            status=status,
            number=n + 1,
            checked_in_at=IN_CHECKIN_WINDOW if n % 3 == 0 else None,
        )


PAGE_QUERIES = 7  # event, session, user, 2 for the role, results or missing list, counts
SEARCH_QUERIES = PAGE_QUERIES + 1  # and the festival's other events matching the name
# A check-in tap (bench/taps.py, issue 31), with 3 players or 150: the event, session, user and role, the
# registration, then in a transaction (two statements) the lock, the registration again, how many are checked in,
# the update and its audit record; then the counts.
CHECKIN_QUERIES = 13


@pytest.mark.parametrize("size", [3, 150])
def test_desk_pages_use_a_constant_number_of_queries(desk_client, event, size, django_assert_max_num_queries,
                                                     django_assert_num_queries):
    _fill(event, size)
    with django_assert_max_num_queries(SEARCH_QUERIES):
        response = desk_client.get(desk_url(event), {"q": "선수"})
    assert len(response.context["results"]) == min(size, SEARCH_LIMIT)
    with django_assert_max_num_queries(SEARCH_QUERIES):
        response = search(desk_client, event, "1")
    assert response.context["results"]
    with django_assert_max_num_queries(PAGE_QUERIES):
        response = desk_client.get(desk_url(event, "desk-missing"))
    assert len(response.context["missing"]) == response.context["counts"]["missing"] > 0
    with django_assert_max_num_queries(PAGE_QUERIES):
        desk_client.get(desk_url(event, "desk-counts"), **HTMX)
    waiting = Registration.objects.filter(event=event, status="registered", checked_in_at__isnull=True).first()
    with django_assert_num_queries(CHECKIN_QUERIES):
        desk_client.post(checkin_url(event, waiting.pk), **HTMX)
    assert reload(waiting).checked_in_at is not None


# --- Two desks at once (PostgreSQL row locks) ----------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_two_desks_checking_in_the_same_player_at_once_check_in_once(on_postgres):
    event = make_event()
    registration = make_registration(event)
    volunteers = [make_staff(event.festival, DESK) for _ in range(2)]
    start = threading.Barrier(len(volunteers))
    errors = []

    def tap(user):
        try:
            start.wait()
            check_in(registration=registration, actor=Actor(user=user), now=IN_CHECKIN_WINDOW)
        except Exception as exc:  # noqa: BLE001 - any error at all fails the test below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=tap, args=(user,)) for user in volunteers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert AuditEntry.objects.filter(action="checkin.in", target_id=registration.pk).count() == 1
    registration = reload(registration)
    assert registration.checked_in_at == IN_CHECKIN_WINDOW and registration.checked_in_by in volunteers
