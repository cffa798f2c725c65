"""A shared desk phone: what it keeps for the next person once a volunteer signs out. In Chromium at phone size.

While signed in the phone keeps the desk's pages for a dropped Wi-Fi, and its outbox the check-ins tapped
without a connection. Signing out leaves none of it: no cached page, no list of pages seen, no answered outbox
item, no player's name or personal link, no CSRF token — read from the page, with JavaScript, after sign-out.
A check-in that could not be sent stays on the phone, said so at sign-out, and is sent only under the account
that queued it (or discarded by another desk account, who is told).
"""

import json

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from tests.e2e.offline import (
    desk_with_players,
    device_storage,
    kept_text,
    outbox,
    sync_with_every_page_closed,
    tap_check_ins_offline,
)
from tests.factories import make_staff
from tournament.models import AuditEntry, Registration

NAMES = ["김민준", "Chan Tai Man", "Lee Ka Yan"]


def csrf_tokens(page) -> set[str]:
    """The CSRF tokens the page holds (its meta and its forms) and the cookie's secret."""
    tokens = set(page.evaluate("""() => [document.querySelector('meta[name="csrf-token"]').content,
        ...Array.from(document.querySelectorAll('input[name="csrfmiddlewaretoken"]'), (input) => input.value)]"""))
    tokens |= {cookie["value"] for cookie in page.context.cookies() if cookie["name"] == "csrftoken"}
    return {token for token in tokens if token}


def checked_in(registration) -> bool:
    return Registration.objects.get(pk=registration.pk).is_checked_in


def test_after_sign_out_the_desk_phone_keeps_no_personal_page_name_link_or_token(phone, server, shot, sign_in):
    event, registrations, desk, missing = desk_with_players(phone, server, sign_in, NAMES)
    context = desk.context
    tokens = csrf_tokens(desk)
    players = {name: registrations[name].player for name in NAMES}

    # One player checked in offline through the desk's outbox, sent by the service worker with the page closed:
    # nobody has seen its answer yet.
    tap_check_ins_offline(desk, ["Lee Ka Yan"])
    tokens |= csrf_tokens(desk)
    desk.close()
    sync_with_every_page_closed(context, server, "rk-outbox-desk", lambda: checked_in(registrations["Lee Ka Yan"]))

    # The volunteer opens three personal pages (a scanned QR code) and checks two players in there.
    page = context.new_page()
    for name in NAMES:
        page.goto(server.url(players[name].get_absolute_url()))
        expect(page.locator("h1")).to_have_text(name)
        assert page.evaluate("navigator.serviceWorker.controller !== null"), "the worker sees the personal page"
        tokens |= csrf_tokens(page)
        if name != "Lee Ka Yan":
            with page.expect_navigation():
                page.get_by_role("button", name="Check in").click()
            expect(page.locator(f"#registration-{registrations[name].pk}")).to_contain_text("Checked in at")
            tokens |= csrf_tokens(page)
    assert all(checked_in(registrations[name]) for name in NAMES)
    shot(page, "personal-page-with-desk-controls")

    with page.expect_navigation():
        page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("link", name="Staff sign in")).to_be_visible()
    tokens |= csrf_tokens(page)  # the signed-out page's own token is not the volunteer's, but is not kept either
    shot(page, "signed-out")

    storage = device_storage(page)
    secrets = {**{name: name for name in NAMES}, **{f"link of {name}": players[name].token for name in NAMES},
               **{f"CSRF token {token[:6]}…": token for token in tokens}}
    found = [(what, where) for where, text in kept_text(storage) for what, secret in secrets.items()
             if secret.lower() in text.lower()]
    assert found == [], "\n".join(f"{what} in {where}" for what, where in found)
    assert not [record for record in storage["records"] if "csrf" in record["json"].lower()]
    assert not [entry["url"] for entry in storage["cached"] if "/p/" in entry["url"] or "/desk/" in entry["url"]]
    assert not [key for key in storage["local"] if key.startswith("rk-seen|")]

    # The next person on the phone, without a connection, cannot open a personal page from it.
    context.set_offline(True)
    for name in NAMES:
        with pytest.raises(PlaywrightError):
            page.goto(server.url(players[name].get_absolute_url()))
    context.set_offline(False)


HELD = "Check-ins queued on this phone by {account} and not sent: 1. Sign in as {account} to send them."
DISCARDED = ("Discarded, not sent: check-ins queued by {account} (1). Check those players in again if they are "
             "here.")


def server_in_trouble(monkeypatch):
    """The check-ins the outbox sends get a server error (the phone keeps them and tries again later)."""
    def in_trouble(**_kwargs):
        raise RuntimeError("the database is restarting")
    monkeypatch.setattr("tournament.views.desk.check_in_queued", in_trouble)


def sign_out(page, server) -> None:
    with page.expect_navigation():
        page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("link", name="Staff sign in")).to_be_visible()


def desk_left_with_an_unsent_check_in(phone, server, sign_in, monkeypatch, shot):
    """A volunteer taps a check-in offline; back online the server is in trouble, so it is not sent; they sign
    out anyway (told that it stays on the phone). Returns (the registration, the volunteer, the phone)."""
    event, registrations, desk, missing = desk_with_players(phone, server, sign_in, ["김서연"])
    server_in_trouble(monkeypatch)
    tap_check_ins_offline(desk, ["김서연"])
    desk.context.set_offline(False)
    desk.evaluate("RkOutbox.flush('desk')")  # sent, answered by a server error: still waiting
    expect(desk.locator("[data-desk-waiting]")).to_have_text("Waiting to send (1)")

    desk.get_by_role("button", name="Sign out").click()  # the first tap says what stays on the phone
    account = desk.locator('meta[name="signed-in-as"]').get_attribute("content")
    expect(desk.locator("[data-sign-out-held]")).to_have_text(
        f"Queued on this phone and not sent yet: 1. They stay here and are sent when {account} signs in on this "
        "phone again. Tap “Sign out” again to sign out.")
    shot(desk, "sign-out-with-an-unsent-check-in")
    sign_out(desk, server)
    [kept] = [json.loads(record["json"]) for record in device_storage(desk)["records"]]
    assert kept["queue"] == "desk" and kept["state"] == "queued" and kept["account"] == account
    assert "csrf" not in kept and "name" not in kept
    monkeypatch.undo()  # the server is well again
    return registrations["김서연"], account, desk, missing


def test_a_check_in_left_unsent_is_sent_only_when_its_account_signs_in_again(
        phone, server, shot, sign_in, monkeypatch):
    registration, account, page, missing = desk_left_with_an_unsent_check_in(
        phone, server, sign_in, monkeypatch, shot)
    alice = User.objects.get(username=account)

    # Another volunteer signs in on the same phone: the check-in waits for its own account, said so.
    bob = make_staff(registration.event.festival, "desk")
    sign_in(page, bob, next_url=missing.removeprefix(server.root))
    expect(page.locator("[data-desk-held]")).to_have_text(HELD.format(account=account))
    assert page.evaluate("RkOutbox.flush('desk')") == 0
    assert not checked_in(registration)
    assert [item["state"] for item in outbox(page, "desk")] == ["queued"]
    shot(page, "another-account-sees-it-waiting")
    sign_out(page, server)

    # Its own volunteer signs in again: it is sent, under their account.
    sign_in(page, alice, next_url=missing.removeprefix(server.root))
    expect(page.locator('[data-desk-report="ok"]')).to_have_text("김서연 is checked in.")
    assert checked_in(registration)
    [entry] = AuditEntry.objects.filter(action="checkin.in", target_id=registration.pk)
    assert entry.actor == alice
    shot(page, "sent-under-its-own-account")


def test_another_desk_account_may_discard_a_check_in_left_unsent_and_is_told(
        phone, server, shot, sign_in, monkeypatch):
    registration, account, page, missing = desk_left_with_an_unsent_check_in(
        phone, server, sign_in, monkeypatch, shot)
    bob = make_staff(registration.event.festival, "desk")
    sign_in(page, bob, next_url=missing.removeprefix(server.root))
    expect(page.locator("[data-desk-held]")).to_have_text(HELD.format(account=account))
    page.locator("[data-desk-held-discard]").click()
    expect(page.locator("[data-desk-held]")).to_have_text(DISCARDED.format(account=account))
    assert outbox(page, "desk") == []
    assert not checked_in(registration)
    shot(page, "discarded")
