"""The guardian's e-mail once through a real SMTP server (aiosmtpd, started by the test on loopback), as
production sends it: Django's SMTP backend, the message in the child's form's language, the link in it working.
And the production settings read the mail server from the environment.

The server runs in its own process (smtp_inbox.py, isolated from the project's sys.path): aiosmtpd imports
the `atpublic` package as `public`, which the project's own `public` app would shadow here."""

import email
import email.policy
import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.urls import reverse

from tests.factories import make_festival, open_event
from tests.test_deploy import in_deployment
from tournament.models import AuditEntry, Registration

pytestmark = pytest.mark.django_db

SERVER = Path(__file__).with_name("smtp_inbox.py")


class Inbox:
    """What the server process accepted, read from its directory; `refuse` makes it answer every message
    with a 550 (a flag file the server looks for)."""

    def __init__(self, directory: Path):
        self.directory = directory

    @property
    def messages(self) -> list[email.message.EmailMessage]:
        return [email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
                for path in sorted(self.directory.glob("*.eml"))]

    @property
    def refuse(self) -> bool:
        return (self.directory / "refuse").exists()

    @refuse.setter
    def refuse(self, value: bool):
        if value:
            (self.directory / "refuse").touch()
        else:
            (self.directory / "refuse").unlink(missing_ok=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(server: subprocess.Popen, port: int, log: Path, deadline: float = 15):
    """Until the server accepts connections; its own log if it ends first or takes too long."""
    stop = time.monotonic() + deadline
    while time.monotonic() < stop:
        if server.poll() is not None:
            pytest.fail(f"the SMTP server ended ({server.returncode}):\n{log.read_text()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    pytest.fail(f"the SMTP server did not answer on port {port} within {deadline} s:\n{log.read_text()}")


@pytest.fixture
def smtp(settings, tmp_path):
    inbox = Inbox(tmp_path / "inbox")
    inbox.directory.mkdir()
    port, log = free_port(), tmp_path / "smtp.log"
    # -I: neither the project root nor this folder on the server's sys.path (nor PYTHONPATH, dropped too).
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    with log.open("wb") as output:
        server = subprocess.Popen([sys.executable, "-I", str(SERVER), str(inbox.directory), str(port)],
                                  cwd=tmp_path, env=environment, stdout=output, stderr=subprocess.STDOUT)
    try:
        wait_for(server, port, log)
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
        settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
        settings.EMAIL_TIMEOUT = 10
        settings.DEFAULT_FROM_EMAIL = "rummikub@busan-festival.kr"
        yield inbox
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


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
