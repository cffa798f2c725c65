"""The client's address behind the deployment's reverse proxy (deploy/nginx.conf), where every request comes
from the proxy and the proxy names the client in X-Real-IP: the sign-in lock-out and the registration rate
limit tell clients apart by it, believe the header only from a trusted proxy (TRUSTED_PROXIES), and lock a
user name per address, so one client cannot lock out another."""

import time

import pytest
from django.conf import settings
from django.test import Client, RequestFactory, override_settings
from django.urls import reverse
from django_ratelimit.core import get_usage

from tests.factories import make_festival, make_staff, open_event
from tournament.views.registration import ADDRESS_GROUP

pytestmark = pytest.mark.django_db

PROXY = "10.254.201.10"
ATTACKER, CHIEF_PHONE = "203.0.113.5", "198.51.100.7"
PASSWORD = "the-chief-s-own-password"
behind_the_proxy = override_settings(TRUSTED_PROXIES=[PROXY])
# The registration limit per address, lowered so a flood is eleven posts (the setting is read per request).
ten_a_minute = override_settings(REGISTRATION_RATE="10/m")


@pytest.fixture
def chief():
    return make_staff(make_festival(), "chief referee", username="chief", password=PASSWORD)


def sign_in(*, remote: str, password: str, real_ip: str | None = None, forwarded_for: str | None = None):
    """A sign-in from its own browser; `real_ip` and `forwarded_for` are the headers as the server gets them."""
    headers = {"X-Real-IP": real_ip, "X-Forwarded-For": forwarded_for}
    return Client().post(reverse("login"), {"username": "chief", "password": password}, REMOTE_ADDR=remote,
                         headers={name: value for name, value in headers.items() if value})


def locked(response) -> bool:
    return "Too many failed sign-in attempts" in response.content.decode()


def signed_in(response) -> bool:
    return response.status_code == 302 and response["Location"] == reverse("manage-home")


@behind_the_proxy
def test_one_client_behind_the_proxy_cannot_lock_out_another(chief):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        assert not signed_in(sign_in(remote=PROXY, real_ip=ATTACKER, password="a-guess"))
    assert locked(sign_in(remote=PROXY, real_ip=ATTACKER, password=PASSWORD)), "the guesser is locked out"

    assert signed_in(sign_in(remote=PROXY, real_ip=CHIEF_PHONE, password=PASSWORD))


@behind_the_proxy
def test_a_client_not_behind_the_proxy_cannot_choose_its_address(chief):
    for n in range(settings.AXES_FAILURE_LIMIT):
        sign_in(remote=ATTACKER, real_ip=f"192.0.2.{n}", forwarded_for=f"192.0.2.{n}", password="a-guess")

    spoofed = sign_in(remote=ATTACKER, real_ip=CHIEF_PHONE, forwarded_for=CHIEF_PHONE, password=PASSWORD)

    assert locked(spoofed)
    assert signed_in(sign_in(remote=PROXY, real_ip=CHIEF_PHONE, password=PASSWORD))


@behind_the_proxy
def test_the_proxy_s_header_is_the_address_only_when_it_is_one(chief):
    """A proxy that sends no usable X-Real-IP leaves the proxy's own address (all its clients share it)."""
    for _ in range(settings.AXES_FAILURE_LIMIT):
        sign_in(remote=PROXY, real_ip="not-an-address", password="a-guess")
    assert locked(sign_in(remote=PROXY, password=PASSWORD))
    assert signed_in(sign_in(remote=PROXY, real_ip=CHIEF_PHONE, password=PASSWORD))


# --- the registration rate limit reads the same address ---------------------------------------------------

def register(event, *, remote: str, real_ip: str | None = None):
    url = reverse("event-register", kwargs={"festival": event.festival.slug, "event": event.slug})
    headers = {"X-Real-IP": real_ip, "X-Forwarded-For": real_ip} if real_ip else {}
    # No contact: the form answers 200 and registers nobody, and the post still counts (per address: without a
    # contact there is no count per contact).
    return Client().post(url, {"name": "Kim", "contact": ""}, REMOTE_ADDR=remote, headers=headers)


def wait_out_a_nearly_finished_window(remote: str, real_ip: str | None = None):
    """django-ratelimit counts per fixed window; eleven quick POSTs must not straddle its end."""
    request = RequestFactory().post("/", REMOTE_ADDR=remote, headers={"X-Real-IP": real_ip} if real_ip else {})
    usage = get_usage(request, group=ADDRESS_GROUP, key="ip", rate=settings.REGISTRATION_RATE, method="POST")
    if usage["time_left"] < 5:
        time.sleep(usage["time_left"] + 1)


@behind_the_proxy
@ten_a_minute
def test_behind_the_proxy_each_client_has_its_own_registration_limit():
    event = open_event()
    wait_out_a_nearly_finished_window(PROXY, ATTACKER)
    flood = [register(event, remote=PROXY, real_ip=ATTACKER).status_code for _ in range(11)]
    assert flood == [200] * 10 + [429]

    assert register(event, remote=PROXY, real_ip=CHIEF_PHONE).status_code == 200


@behind_the_proxy
@ten_a_minute
def test_a_client_not_behind_the_proxy_cannot_dodge_the_registration_limit():
    event = open_event()
    wait_out_a_nearly_finished_window(ATTACKER)
    answers = [register(event, remote=ATTACKER, real_ip=f"192.0.2.{n}").status_code for n in range(11)]
    assert answers == [200] * 10 + [429]


@pytest.mark.parametrize("page", ["login", "admin:login"])
def test_a_user_name_longer_than_any_account_s_is_a_failed_sign_in_and_counts_toward_the_lock_out(chief, page):
    """Nothing stops a 300-character name at the form; the lock-out records it cut to an account name's
    length (its column holds 255: uncut it was a server error on PostgreSQL), and still counts the failures."""
    from axes.models import AccessAttempt

    client = Client(raise_request_exception=False)
    long_name = "chief" + "x" * 295
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        response = client.post(reverse(page), {"username": long_name, "password": "a-guess"}, REMOTE_ADDR=ATTACKER)
        assert response.status_code == 200 and not locked(response)
    assert locked(client.post(reverse(page), {"username": long_name, "password": "a-guess"}, REMOTE_ADDR=ATTACKER))
    assert AccessAttempt.objects.get().username == long_name[:150]
    assert signed_in(sign_in(remote=CHIEF_PHONE, password=PASSWORD))  # the real account is not locked
