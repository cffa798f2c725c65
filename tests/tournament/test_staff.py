"""Staff and roles per festival: the organiser adds people by username or e-mail, new accounts set their
password through a one-time link, removing a role ends its access at once, and who may create festivals."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

from tests.factories import make_event, make_festival, make_staff
from tournament.models import AuditEntry, StaffRole
from tournament.permissions import has_role, may_organise_festivals, roles_at
from tournament.services import ServiceError
from tournament.services.audit import Actor
from tournament.services.staff import add_staff, grant_role, remove_role, set_password_path

User = get_user_model()
pytestmark = pytest.mark.django_db


@pytest.fixture
def festival():
    festival = make_festival()
    make_event(festival)
    return festival


@pytest.fixture
def organiser(festival):
    return make_staff(festival, "organiser", username="boss")


def staff_url(festival, name="manage-staff"):
    return reverse(name, kwargs={"festival": festival.slug})


def text(response) -> str:
    return response.content.decode()


def test_a_role_counts_only_at_the_festival_that_gave_it(festival):
    desk = make_staff(festival, "desk")
    elsewhere = make_festival()
    assert roles_at(desk, festival) == {"desk"}
    assert roles_at(desk, elsewhere) == set()
    assert has_role(desk, festival, "desk") and not has_role(desk, festival, "referee")


def test_adding_an_existing_account_by_e_mail_gives_it_the_role_and_no_password_link(festival, organiser):
    known = User.objects.create_user("minjun", email="Minjun@Example.org", password="own-password-1")
    added = add_staff(festival=festival, identifier="minjun@example.org", role="referee", actor=Actor(user=organiser))
    assert added.user == known and not added.account_created
    assert has_role(known, festival, "referee")
    with pytest.raises(ServiceError):  # an organiser never gets a way into someone else's account
        set_password_path(festival=festival, user=known)
    entry = AuditEntry.objects.get(action="staff.added")
    assert entry.after == {"user": "minjun", "role": "referee", "account_created": False}


def test_a_new_person_gets_an_account_and_sets_the_password_once_through_the_link(client, festival, organiser):
    client.force_login(organiser)
    response = client.post(staff_url(festival, "manage-staff-add"), {"identifier": "jiwoo@school.kr", "role": "desk"})
    assert response.status_code == 200
    person = User.objects.get(email="jiwoo@school.kr")
    assert person.username == "jiwoo" and not person.has_usable_password()
    link = re.search(r'value="(http://testserver/accounts/password/[^"]+)"', text(response)).group(1)
    client.logout()
    page = client.get(link, follow=True)  # Django moves the token into the session, then shows the form
    assert "Set your password" in text(page) and "jiwoo" in text(page)
    done = client.post(page.redirect_chain[-1][0], {"new_password1": "tile-rack-77x", "new_password2": "tile-rack-77x"})
    assert done.status_code == 302
    person.refresh_from_db()
    assert person.check_password("tile-rack-77x")
    again = client.get(link, follow=True)
    assert "This link has been used or is too old." in text(again)


@pytest.mark.parametrize("identifier, message", [
    ("", "This field is required."),
    ("two words", "A username may hold only letters"),
    ("bad@", "valid e-mail address"),
    ("x" * 300, "at most 254 characters"),
])
def test_nonsense_is_refused_at_the_field_and_changes_nothing(client, festival, organiser, identifier, message):
    client.force_login(organiser)
    users = User.objects.count()
    response = client.post(staff_url(festival, "manage-staff-add"), {"identifier": identifier, "role": "desk"})
    assert response.status_code == 400 and message in text(response)
    assert User.objects.count() == users and StaffRole.objects.count() == 1


def test_the_same_role_twice_is_refused_kindly(client, festival, organiser):
    make_staff(festival, "referee", username="ref")
    client.force_login(organiser)
    response = client.post(staff_url(festival, "manage-staff-add"), {"identifier": "REF", "role": "referee"})
    assert response.status_code == 400 and "ref already works here in this role." in text(response)


def test_removing_a_role_ends_its_access_at_once_and_is_audited(client, festival, organiser):
    desk = make_staff(festival, "desk")
    desk_client = client.__class__()
    desk_client.force_login(desk)
    event = festival.events.get()
    desk_url = reverse("desk", kwargs={"festival": festival.slug, "event": event.slug})
    assert desk_client.get(desk_url).status_code == 200
    client.force_login(organiser)
    response = client.post(staff_url(festival, "manage-staff-remove"), {"user": desk.pk, "role": "desk"})
    assert response.status_code == 302
    assert desk_client.get(desk_url).status_code == 403
    assert AuditEntry.objects.filter(action="staff.removed", target_id=desk.pk).exists()


def test_a_festival_keeps_one_organiser(festival, organiser):
    with pytest.raises(ServiceError, match="at least one organiser"):
        remove_role(festival=festival, user=organiser, role="organiser", actor=Actor(user=organiser))
    second = make_staff(festival, "organiser")
    remove_role(festival=festival, user=organiser, role="organiser", actor=Actor(user=second))
    assert not has_role(organiser, festival, "organiser")


@pytest.mark.parametrize("role", ["desk", "referee", "chief referee"])
def test_only_organisers_reach_the_staff_page(client, festival, role):
    client.force_login(make_staff(festival, role))
    assert client.get(staff_url(festival)).status_code == 403
    response = client.post(staff_url(festival, "manage-staff-add"), {"identifier": "intruder", "role": "organiser"})
    assert response.status_code == 403 and not User.objects.filter(username="intruder").exists()


def test_an_organiser_of_another_festival_cannot_touch_this_one(client, festival):
    other = make_festival()
    client.force_login(make_staff(other, "organiser"))
    assert client.get(staff_url(festival)).status_code == 403


@pytest.mark.parametrize("data", [{}, {"user": "x", "role": "desk"}, {"user": 99999, "role": "desk"},
                                  {"user": 1, "role": "king"}, {"user": 10**30, "role": "desk"}])
def test_nonsense_removals_change_nothing(client, festival, organiser, data):
    client.force_login(organiser)
    for name in ("manage-staff-remove", "manage-staff-link"):
        assert client.post(staff_url(festival, name), data).status_code == 302
    assert StaffRole.objects.count() == 1


@pytest.mark.parametrize("people", [1, 30])
def test_the_staff_page_costs_the_same_queries_for_few_or_many(client, festival, organiser, people,
                                                             django_assert_max_num_queries):
    for n in range(people):
        make_staff(festival, "referee" if n % 2 else "desk")
    client.force_login(organiser)
    with django_assert_max_num_queries(6):
        assert client.get(staff_url(festival)).status_code == 200


def test_add_organiser_lets_an_account_create_festivals_and_the_creator_organises_its_festival(festival):
    call_command("add_organiser", "founder", "--create", "--password", "long-enough-pw-1")
    founder = User.objects.get(username="founder")
    assert may_organise_festivals(founder)
    assert not may_organise_festivals(User.objects.create_user("nobody"))
    grant_role(festival=festival, user=founder, role="organiser", actor=Actor(user=founder))
    grant_role(festival=festival, user=founder, role="organiser", actor=Actor(user=founder))  # safe to repeat
    assert roles_at(founder, festival) == {"organiser"}
    assert AuditEntry.objects.filter(action="staff.added").count() == 1
