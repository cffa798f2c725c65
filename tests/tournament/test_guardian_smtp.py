"""The guardian's e-mail once through a real SMTP server (aiosmtpd, started by the test on loopback), as
production sends it: Django's SMTP backend, the message in the child's form's language, the link in it working.
And the production settings read the mail server from the environment."""

import email
import email.policy
import json
import re
import socket

import pytest
from aiosmtpd.controller import Controller
from django.urls import reverse

from tests.factories import make_festival, open_event
from tests.test_deploy import in_deployment
from tournament.models import AuditEntry, Registration

pytestmark = pytest.mark.django_db


class Inbox:
    """An SMTP handler keeping what it accepts; `refuse` makes it answer every message with a 550."""

    def __init__(self):
        self.messages: list[email.message.EmailMessage] = []
        self.refuse = False

    async def handle_DATA(self, server, session, envelope):
        if self.refuse:
            return "550 mailbox unavailable"
        message = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        message["X-Envelope-To"] = ", ".join(envelope.rcpt_tos)
        self.messages.append(message)
        return "250 OK"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def smtp(settings):
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", controller.port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_TIMEOUT = 10
    settings.DEFAULT_FROM_EMAIL = "rummikub@busan-festival.kr"
    try:
        yield inbox
    finally:
        controller.stop()


def child_form(event) -> dict:
    return {"name": "王小欣", "contact": "9123 4567", "birth_year": str(event.festival.starts_on.year - 11),
            "affiliation": "", "ranking_id": "", "guardian_name": "王大文", "guardian_contact": "parent@example.hk",
            "guardian_agrees": "on", "agree": "on", "notice_version": "1"}


@pytest.mark.server  # the SMTP server on loopback
def test_the_guardian_s_link_goes_through_a_real_smtp_server_and_works(client, smtp,
                                                                       django_capture_on_commit_callbacks):
    event = open_event(make_festival(name="香港魔力橋大賽", contact="info@hk-rummikub.org"), name="兒童組")
    client.cookies["django_language"] = "zh-hant"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("event-register", kwargs={"festival": event.festival.slug,
                                                                 "event": event.slug}), child_form(event))
    assert response.status_code == 302
    [message] = smtp.messages
    assert message["X-Envelope-To"] == "parent@example.hk" and message["To"] == "parent@example.hk"
    assert message["From"] == "rummikub@busan-festival.kr" and message["Reply-To"] == "info@hk-rummikub.org"
    assert "香港魔力橋大賽" in message["Subject"] and "王小欣" in message["Subject"]
    body = message.get_content()
    assert "家長或監護人" in body and "兒童組" in body
    path = re.search(r"http://testserver(/guardian/[A-Za-z0-9_-]+/)", body).group(1)
    registration = Registration.objects.get()
    assert registration.guardian_link_sent_at is not None  # the server took it

    client.cookies.pop("django_language")  # the guardian's own browser: the page speaks the form's language
    page = client.get(path).content.decode()
    assert 'lang="zh-hant"' in page and "王小欣" in page
    assert client.post(path, {"name": "王大文", "agree": "on"}).status_code == 302
    registration.refresh_from_db()
    assert (registration.guardian_check, registration.guardian_checked_name) == (
        Registration.GuardianCheck.EMAIL, "王大文")


@pytest.mark.server
def test_a_server_that_refuses_the_message_leaves_a_record_and_the_registration(client, smtp,
                                                                                 django_capture_on_commit_callbacks):
    smtp.refuse = True
    event = open_event()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("event-register", kwargs={"festival": event.festival.slug,
                                                                 "event": event.slug}), child_form(event))
    assert response.status_code == 302  # the registration stands; the organiser sends the link again
    registration = Registration.objects.get()
    assert registration.waits_for_guardian and registration.guardian_link_sent_at is None
    assert AuditEntry.objects.filter(action="registration.guardian_mail_failed").count() == 1


MAIL_SETTINGS = """
import json, django
django.setup()
from django.conf import settings as s
print(json.dumps([s.EMAIL_BACKEND, getattr(s, "EMAIL_HOST", ""), getattr(s, "EMAIL_PORT", None),
                  getattr(s, "EMAIL_USE_TLS", None), getattr(s, "EMAIL_USE_SSL", None), s.DEFAULT_FROM_EMAIL,
                  s.SITE_URL]))
"""
PRODUCTION = {"DJANGO_SETTINGS_MODULE": "config.settings.production", "DJANGO_SECRET_KEY": "k" * 64,
              "DJANGO_ALLOWED_HOSTS": "rummikub.example.org"}


@pytest.mark.parametrize(("variables", "expected"), [
    ({}, ["django.core.mail.backends.console.EmailBackend", "", 25, False, False,  # Django's defaults, unused
          "noreply@rummikub.example.org", "https://rummikub.example.org"]),
    ({"DJANGO_EMAIL_HOST": "smtp.example.org", "DJANGO_EMAIL_HOST_USER": "u", "DJANGO_EMAIL_HOST_PASSWORD": "p",
      "DJANGO_DEFAULT_FROM_EMAIL": "Busan <kids@busan.kr>", "DJANGO_SITE_URL": "https://kids.busan.kr/"},
     ["django.core.mail.backends.smtp.EmailBackend", "smtp.example.org", 587, True, False, "Busan <kids@busan.kr>",
      "https://kids.busan.kr"]),
    ({"DJANGO_EMAIL_HOST": "smtp.example.org", "DJANGO_EMAIL_PORT": "465", "DJANGO_PLAIN_HTTP": "true"},
     ["django.core.mail.backends.smtp.EmailBackend", "smtp.example.org", 465, False, True,
      "noreply@rummikub.example.org", "http://rummikub.example.org"]),
])
def test_production_reads_the_mail_server_from_the_environment(variables, expected):
    assert json.loads(in_deployment(MAIL_SETTINGS, PRODUCTION | variables)) == expected
