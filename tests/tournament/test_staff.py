"""Staff and roles per festival: roles count only where they were given, nonsense changes nothing, removing a
role ends its access at once, and who may create festivals. (Invitations: test_staff_invitations.py.)"""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.urls import reverse

from tests.factories import make_event, make_festival, make_staff
from tournament.models import AuditEntry, StaffInvitation, StaffRole
from tournament.permissions import has_role, may_organise_festivals, roles_at
from tournament.services import ServiceError
from tournament.services.audit import Actor
from tournament.services.invitations import invite
from tournament.services.staff import grant_role, remove_role

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
    assert not StaffInvitation.objects.exists()


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
    for name in ("manage-staff-remove", "manage-staff-link", "manage-staff-renew", "manage-staff-withdraw"):
        assert client.post(staff_url(festival, name), data | {"invitation": data.get("user", "")}).status_code == 302
    assert StaffRole.objects.count() == 1 and not StaffInvitation.objects.exists()


@pytest.mark.parametrize("people", [1, 30])
def test_the_staff_page_costs_the_same_queries_for_few_or_many(client, festival, organiser, people,
                                                             django_assert_max_num_queries):
    for n in range(people):
        make_staff(festival, "referee" if n % 2 else "desk")
        invite(festival=festival, identifier=f"helper{n}@school.kr", role="desk", actor=Actor(user=organiser))
    client.force_login(organiser)
    with django_assert_max_num_queries(6):
        assert client.get(staff_url(festival)).status_code == 200


def typed(monkeypatch, *answers):
    """What the person types at each password prompt of `add_organiser`, in order."""
    prompts, answers = [], list(answers)

    def getpass(prompt=""):
        prompts.append(prompt)
        return answers.pop(0)

    monkeypatch.setattr("getpass.getpass", getpass)
    return prompts


def test_add_organiser_asks_for_the_password_twice_and_makes_the_account_when_both_match(db, monkeypatch):
    prompts = typed(monkeypatch, "river-tiles-1987", "river-tiles-1987")
    call_command("add_organiser", "founder", "--create", stdout=io.StringIO())
    assert len(prompts) == 2 and "again" in prompts[1]
    assert User.objects.get(username="founder").check_password("river-tiles-1987")


def test_add_organiser_refuses_passwords_that_differ_and_asks_again(db, monkeypatch):
    out = io.StringIO()
    typed(monkeypatch, "river-tiles-1987", "river-tiles-1978", "", "", "river-tiles-1987", "river-tiles-1987")
    call_command("add_organiser", "founder", "--create", stdout=out, stderr=out)
    said = out.getvalue()
    assert "do not match" in said and "cannot be empty" in said
    assert User.objects.get(username="founder").check_password("river-tiles-1987")


@pytest.mark.parametrize("first,second,problem", [
    ("river-tiles-1987", "something-else-1", "do not match"),
    ("1234", "1234", "too short"),  # the site's password rules, as everywhere else
])
def test_add_organiser_gives_up_after_three_refused_passwords_and_makes_nothing(db, monkeypatch, first, second,
                                                                              problem):
    typed(monkeypatch, *[first, second] * 3)
    with pytest.raises(CommandError, match=problem):
        call_command("add_organiser", "founder", "--create", stdout=io.StringIO(), stderr=io.StringIO())
    assert not User.objects.filter(username="founder").exists()


def test_add_organiser_lets_an_account_create_festivals_and_the_creator_organises_its_festival(festival):
    call_command("add_organiser", "founder", "--create", "--password", "long-enough-pw-1")
    founder = User.objects.get(username="founder")
    assert may_organise_festivals(founder)
    assert not may_organise_festivals(User.objects.create_user("nobody"))
    grant_role(festival=festival, user=founder, role="organiser", actor=Actor(user=founder))
    grant_role(festival=festival, user=founder, role="organiser", actor=Actor(user=founder))  # safe to repeat
    assert roles_at(founder, festival) == {"organiser"}
    assert AuditEntry.objects.filter(action="staff.added").count() == 1
