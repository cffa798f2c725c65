"""The attacks on staff accounts, replayed through the pages: an organiser of one festival must never get a way
into an account another festival uses, adding an existing account is never a silent grant, and the answer
to "add this person" never tells whether an account exists."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from tests.factories import make_event, make_festival, make_staff
from tournament.models import StaffRole
from tournament.permissions import has_role

User = get_user_model()
pytestmark = pytest.mark.django_db

NEW_PASSWORD = "taken-over-77x!"


def staff_url(festival, name="manage-staff"):
    return reverse(name, kwargs={"festival": festival.slug})


def links_in(html: str) -> list[str]:
    """Every link on a page that could lead to setting a password or accepting an invitation."""
    found = re.findall(r'(?:value|href)="(http://testserver/[^"]+|/[^"]+)"', html)
    return [url for url in found if "/accounts/" in url or "/invitation/" in url]


def try_every_link(client: Client, urls: list[str]) -> None:
    """Follow each link and post a new password in every form Django's views take."""
    for url in urls:
        page = client.get(url, follow=True)
        target = page.redirect_chain[-1][0] if page.redirect_chain else url
        client.post(target, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD,
                             "password1": NEW_PASSWORD, "password2": NEW_PASSWORD, "username": "whoever"})


@pytest.fixture
def two_festivals():
    first, second = make_festival(name="A Open"), make_festival(name="B Cup")
    make_event(first), make_event(second)
    return first, second


def test_an_organiser_cannot_take_over_an_account_another_festival_made(client, two_festivals):
    festival_a, festival_b = two_festivals
    # An account festival B made for its new organiser, who has not set a password yet.
    victim = User.objects.create_user("bcup-boss", email="boss@bcup.org")
    victim.set_unusable_password()
    victim.save()
    StaffRole.objects.create(festival=festival_b, user=victim, role="organiser")

    attacker = make_staff(festival_a, "organiser")
    client.force_login(attacker)
    added = client.post(staff_url(festival_a, "manage-staff-add"), {"identifier": "boss@bcup.org", "role": "desk"})
    urls = links_in(added.content.decode())
    page = client.get(staff_url(festival_a)).content.decode()
    for form_action in re.findall(r'action="([^"]+)"', page):
        if "link" in form_action or "renew" in form_action:
            for value in re.findall(r'name="(?:user|invitation)" value="(\d+)"', page):
                response = client.post(form_action, {"user": value, "invitation": value})
                urls += links_in(response.content.decode())
    client.logout()
    try_every_link(client, urls)

    victim.refresh_from_db()
    assert not victim.has_usable_password()
    assert not has_role(victim, festival_a, "desk")  # nothing granted without the account's own yes
    assert client.get(staff_url(festival_b)).status_code in (302, 403)


def test_adding_an_existing_account_is_an_invitation_it_accepts_not_a_grant(client, two_festivals):
    festival_a, _ = two_festivals
    known = User.objects.create_user("minjun", email="minjun@example.org", password="own-password-1")
    client.force_login(make_staff(festival_a, "organiser"))
    client.post(staff_url(festival_a, "manage-staff-add"), {"identifier": "minjun", "role": "referee"})
    assert not has_role(known, festival_a, "referee")


def normalised(html: str, identifier: str) -> str:
    html = html.replace(identifier, "IDENTIFIER")
    html = re.sub(r"/invitation/[\w-]+/", "/invitation/TOKEN/", html)
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)
    html = re.sub(r'name="csrf-token" content="[^"]+"', "", html)
    html = re.sub(r"<svg.*?</svg>", "QR", html, flags=re.S)
    return html


def test_the_answer_is_the_same_whether_or_not_the_account_exists(client, two_festivals):
    festival_a, _ = two_festivals
    User.objects.create_user("exists-here", password="own-password-1")
    client.force_login(make_staff(festival_a, "organiser"))
    answers = []
    for identifier in ("exists-here", "nobody-here"):
        response = client.post(staff_url(festival_a, "manage-staff-add"), {"identifier": identifier, "role": "desk"},
                               follow=True)
        answers.append((response.status_code, normalised(response.content.decode(), identifier)))
    assert answers[0][0] == answers[1][0]
    assert answers[0][1] == answers[1][1]
