"""Invitations: the one way onto a festival's staff. A newcomer makes their own account from the link, an
existing account accepts on My work or from the link; only the festival's own organisers renew or withdraw;
a link never sets the password of an account another festival uses."""

import datetime as dt
import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from tests.factories import make_event, make_festival, make_staff
from tournament.models import AuditEntry, StaffInvitation, StaffRole
from tournament.permissions import has_role
from tournament.services import ServiceError
from tournament.services.audit import Actor
from tournament.services.invitations import (
    LinkAllows,
    accept,
    by_token,
    invite,
    invite_to_set_password,
    link_allows,
    renew,
    withdraw,
)

User = get_user_model()
pytestmark = pytest.mark.django_db
PASSWORD = "tile-rack-77x!"


@pytest.fixture
def festival():
    festival = make_festival(name="Busan Open")
    make_event(festival)
    return festival


@pytest.fixture
def organiser(festival):
    return make_staff(festival, "organiser", username="boss")


def staff_url(festival, name="manage-staff"):
    return reverse(name, kwargs={"festival": festival.slug})


def link_of(response) -> str:
    return re.search(r'value="http://testserver(/accounts/invitation/[^"]+)"', response.content.decode()).group(1)


def invite_through_page(client, festival, organiser, identifier, role="desk") -> str:
    client.force_login(organiser)
    response = client.post(staff_url(festival, "manage-staff-add"), {"identifier": identifier, "role": role})
    assert response.status_code == 200
    client.logout()
    return link_of(response)


def legacy_account(username: str, *festivals_and_roles) -> User:
    """An account made by the old staff page: no password yet, roles already given."""
    user = User.objects.create_user(username)
    user.set_unusable_password()
    user.save()
    for festival, role in festivals_and_roles:
        StaffRole.objects.create(festival=festival, user=user, role=role)
    return user


def test_a_newcomer_makes_their_own_account_from_the_link_and_works_at_once(client, festival, organiser):
    link = invite_through_page(client, festival, organiser, "jiwoo@school.kr")
    assert not User.objects.filter(email="jiwoo@school.kr").exists()  # nothing is made before they say yes
    page = client.get(link)
    assert page.status_code == 200 and 'value="jiwoo"' in page.content.decode()
    assert "no-store" in page["Cache-Control"]
    done = client.post(link, {"username": "jiwoo", "password1": PASSWORD, "password2": PASSWORD})
    assert done.status_code == 302 and done["Location"] == reverse("manage-home")
    person = User.objects.get(username="jiwoo")
    assert person.email == "jiwoo@school.kr" and person.check_password(PASSWORD)
    assert has_role(person, festival, "desk")
    assert client.get(reverse("manage-home")).status_code == 200  # signed in
    client.logout()
    again = client.get(link)
    assert again.status_code == 404 and "used, withdrawn or is too old" in again.content.decode()
    invitation = StaffInvitation.objects.get()
    assert invitation.status == "accepted" and invitation.answered_by == person and invitation.made_by == organiser
    assert AuditEntry.objects.filter(action="staff.invited").exists()
    assert AuditEntry.objects.filter(action="staff.added", actor=person).exists()


@pytest.mark.parametrize("data, message", [
    ({"username": "two words", "password1": PASSWORD, "password2": PASSWORD}, "Enter a valid username"),
    ({"username": "jiwoo", "password1": PASSWORD, "password2": "other-77x!"}, "didn’t match"),
    ({"username": "jiwoo", "password1": "123", "password2": "123"}, "too short"),
    ({"username": "BOSS", "password1": PASSWORD, "password2": PASSWORD}, "taken"),
    ({}, "This field is required."),
])
def test_a_bad_new_account_is_refused_and_the_invitation_still_waits(client, festival, organiser, data, message):
    link = invite_through_page(client, festival, organiser, "jiwoo@school.kr")
    users = User.objects.count()
    response = client.post(link, data)
    assert response.status_code == 400 and message in response.content.decode()
    assert User.objects.count() == users and StaffInvitation.objects.get().status == "pending"


def test_an_existing_account_accepts_on_my_work_and_nothing_is_granted_before(client, festival, organiser):
    known = User.objects.create_user("minjun", email="minjun@example.org", password="own-password-1")
    invite_through_page(client, festival, organiser, "MINJUN@example.org", role="referee")
    assert not has_role(known, festival, "referee")
    client.force_login(known)
    home = client.get(reverse("manage-home")).content.decode()
    assert "Busan Open invites you to work there as referee." in home and "Invited by boss." in home
    invitation = StaffInvitation.objects.get()
    response = client.post(reverse("staff-invitation-answer"), {"invitation": invitation.pk, "answer": "accept"})
    assert response.status_code == 302 and has_role(known, festival, "referee")
    assert "invites you" not in client.get(reverse("manage-home")).content.decode()


def test_declining_grants_nothing_and_ends_the_invitation(client, festival, organiser):
    known = User.objects.create_user("minjun", password="own-password-1")
    link = invite_through_page(client, festival, organiser, "minjun")
    client.force_login(known)
    assert client.post(link, {"answer": "decline"}).status_code == 302
    assert not has_role(known, festival, "desk") and StaffInvitation.objects.get().status == "declined"
    assert client.get(link).status_code == 404


def test_a_link_for_an_account_asks_its_owner_to_sign_in_and_refuses_anyone_else(client, festival, organiser):
    known = User.objects.create_user("minjun", password="own-password-1")
    link = invite_through_page(client, festival, organiser, "minjun")
    anonymous = client.get(link)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith(reverse("login"))
    client.post(link, {"username": "minjun", "password1": PASSWORD, "password2": PASSWORD})
    known.refresh_from_db()
    assert known.check_password("own-password-1")  # a link never sets an existing account's password
    someone_else = User.objects.create_user("eunji", password="own-password-2")
    client.force_login(someone_else)
    page = client.get(link)
    assert "This invitation is for another account" in page.content.decode()
    client.post(link, {"answer": "accept"})
    client.post(reverse("staff-invitation-answer"), {"invitation": StaffInvitation.objects.get().pk, "answer": "accept"})
    assert not has_role(someone_else, festival, "desk") and not has_role(known, festival, "desk")


def test_signing_in_from_the_link_comes_back_to_it(client, festival, organiser):
    User.objects.create_user("minjun", password="own-password-1")
    link = invite_through_page(client, festival, organiser, "minjun")
    signed_in = client.post(reverse("login") + f"?next={link}",
                            {"username": "minjun", "password": "own-password-1", "next": link})
    assert signed_in["Location"] == link
    assert "Accept" in client.get(link).content.decode()


def test_renewing_makes_a_new_link_and_the_old_one_dies(client, festival, organiser):
    old = invite_through_page(client, festival, organiser, "jiwoo@school.kr")
    invitation = StaffInvitation.objects.get()
    client.force_login(organiser)
    response = client.post(staff_url(festival, "manage-staff-renew"), {"invitation": invitation.pk})
    new = link_of(response)
    client.logout()
    assert new != old and client.get(old).status_code == 404 and client.get(new).status_code == 200


def test_withdrawing_kills_the_link(client, festival, organiser):
    link = invite_through_page(client, festival, organiser, "jiwoo@school.kr")
    client.force_login(organiser)
    client.post(staff_url(festival, "manage-staff-withdraw"), {"invitation": StaffInvitation.objects.get().pk})
    client.logout()
    assert client.get(link).status_code == 404
    assert client.post(link, {"username": "jiwoo", "password1": PASSWORD, "password2": PASSWORD}).status_code == 404
    assert not User.objects.filter(username="jiwoo").exists()


def test_only_the_festivals_own_organisers_renew_or_withdraw_its_invitations(client, festival, organiser):
    invited = invite(festival=festival, identifier="jiwoo@school.kr", role="desk", actor=Actor(user=organiser))
    other = make_festival()
    other_organiser = make_staff(other, "organiser")
    client.force_login(other_organiser)
    pk = invited.invitation.pk
    for name in ("manage-staff-renew", "manage-staff-withdraw"):
        assert client.post(staff_url(festival, name), {"invitation": pk}).status_code == 403
        assert client.post(staff_url(other, name), {"invitation": pk}).status_code == 302  # not theirs: refused
    assert "/accounts/invitation/" not in client.get(staff_url(other)).content.decode()
    with pytest.raises(ServiceError):
        renew(festival=other, invitation_id=pk, actor=Actor(user=other_organiser))
    with pytest.raises(ServiceError):
        withdraw(festival=other, invitation_id=pk, actor=Actor(user=other_organiser))
    assert StaffInvitation.objects.get().status == "pending" and by_token(invited.token) is not None


def test_an_expired_link_does_nothing(client, festival, organiser):
    invited = invite(festival=festival, identifier="jiwoo@school.kr", role="desk", actor=Actor(user=organiser),
                     now=timezone.now() - dt.timedelta(days=8))
    link = reverse("staff-invitation", kwargs={"token": invited.token})
    assert client.get(link).status_code == 404
    assert client.post(link, {"username": "jiwoo", "password1": PASSWORD, "password2": PASSWORD}).status_code == 404
    client.force_login(organiser)
    assert "The link has expired" in client.get(staff_url(festival)).content.decode()


def test_the_same_invitation_twice_is_refused_and_the_refusal_names_no_account(festival, organiser):
    invite(festival=festival, identifier="jiwoo@school.kr", role="desk", actor=Actor(user=organiser))
    with pytest.raises(ServiceError, match="waiting already"):
        invite(festival=festival, identifier="JIWOO@school.kr", role="desk", actor=Actor(user=organiser))
    invite(festival=festival, identifier="jiwoo@school.kr", role="referee", actor=Actor(user=organiser))


def test_an_address_several_accounts_share_is_invited_without_naming_any(festival, organiser):
    User.objects.create_user("kim1", email="family@example.org", password="own-password-1")
    User.objects.create_user("kim2", email="family@example.org", password="own-password-2")
    invited = invite(festival=festival, identifier="family@example.org", role="desk", actor=Actor(user=organiser))
    assert invited.invitation.account is None


def test_a_legacy_account_only_this_festival_made_sets_its_first_password(client, festival, organiser):
    person = legacy_account("jiwoo", (festival, "desk"))
    client.force_login(organiser)
    response = client.post(staff_url(festival, "manage-staff-link"), {"user": person.pk})
    link = link_of(response)
    client.logout()
    assert "Your username is <strong>jiwoo</strong>" in client.get(link).content.decode()
    assert client.post(link, {"password1": PASSWORD, "password2": PASSWORD}).status_code == 302
    person.refresh_from_db()
    assert person.check_password(PASSWORD) and has_role(person, festival, "desk")


def test_an_account_that_works_elsewhere_never_gets_a_password_link(client, festival, organiser):
    elsewhere = make_festival()
    person = legacy_account("shared", (festival, "desk"), (elsewhere, "organiser"))
    with pytest.raises(ServiceError, match="works elsewhere"):
        invite_to_set_password(festival=festival, user_id=person.pk, actor=Actor(user=organiser))
    client.force_login(organiser)
    response = client.post(staff_url(festival, "manage-staff-link"), {"user": person.pk}, follow=True)
    assert "/accounts/invitation/" not in response.content.decode()


def test_a_password_link_dies_when_the_account_is_given_a_role_elsewhere(client, festival, organiser):
    person = legacy_account("jiwoo", (festival, "desk"))
    invited = invite_to_set_password(festival=festival, user_id=person.pk, actor=Actor(user=organiser))
    other = make_festival()
    invite(festival=other, identifier="jiwoo", role="organiser", actor=Actor(user=make_staff(other, "organiser")))
    assert link_allows(by_token(invited.token), None) is LinkAllows.SIGN_IN
    link = reverse("staff-invitation", kwargs={"token": invited.token})
    client.post(link, {"password1": PASSWORD, "password2": PASSWORD})
    person.refresh_from_db()
    assert not person.has_usable_password()


def test_accepting_twice_or_after_withdrawal_is_refused(festival, organiser):
    known = User.objects.create_user("minjun", password="own-password-1")
    invited = invite(festival=festival, identifier="minjun", role="desk", actor=Actor(user=organiser))
    accept(invitation_id=invited.invitation.pk, user=known)
    with pytest.raises(ServiceError, match="no longer waiting"):
        accept(invitation_id=invited.invitation.pk, user=known)
    assert StaffRole.objects.filter(user=known).count() == 1


@pytest.mark.parametrize("token", ["x", "x" * 300, "../../etc", "%00"])
def test_nonsense_tokens_answer_not_found(client, token):
    assert client.get(f"/accounts/invitation/{token}/").status_code == 404


@pytest.mark.parametrize("data", [{}, {"invitation": "x", "answer": "accept"}, {"invitation": 10**30},
                                  {"invitation": 1, "answer": "maybe"}])
def test_nonsense_answers_from_my_work_change_nothing(client, festival, organiser, data):
    invited = invite(festival=festival, identifier="boss", role="desk", actor=Actor(user=organiser))
    client.force_login(organiser)
    assert client.post(reverse("staff-invitation-answer"), data).status_code == 302
    assert StaffInvitation.objects.get(pk=invited.invitation.pk).status == "pending"


def test_an_invitation_to_a_newcomer_is_answered_only_with_its_link(client, festival, organiser):
    invited = invite(festival=festival, identifier="jiwoo@school.kr", role="organiser", actor=Actor(user=organiser))
    stranger = User.objects.create_user("stranger", password="own-password-1")
    client.force_login(stranger)
    client.post(reverse("staff-invitation-answer"), {"invitation": invited.invitation.pk, "answer": "accept"})
    assert not has_role(stranger, festival, "organiser")
    with pytest.raises(ServiceError, match="Open the invitation's link"):
        accept(invitation_id=invited.invitation.pk, user=stranger)
    with pytest.raises(ServiceError):
        accept(invitation_id=invited.invitation.pk, user=stranger, token="guess")
    link = reverse("staff-invitation", kwargs={"token": invited.token})
    client.post(link, {"answer": "accept"})  # holding the link is what the organiser handed over
    assert has_role(stranger, festival, "organiser")


@pytest.mark.parametrize("name", ["\u3164", "\u3164\u3164", "\u2800"])
def test_a_username_that_shows_nothing_is_refused_when_inviting_and_when_making_an_account(client, festival,
                                                                                       organiser, name):
    with pytest.raises(ServiceError):
        invite(festival=festival, identifier=name, role="desk", actor=Actor(user=organiser))
    link = invite_through_page(client, festival, organiser, "jiwoo@school.kr")
    response = client.post(link, {"username": name, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 400 and not User.objects.filter(username=name).exists()
