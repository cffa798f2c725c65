"""A hall network without TLS, in a real browser: the app served by gunicorn with the production settings in
plain-HTTP mode, opened as http://hall.lan:<port>/ — a host name, not loopback. Chromium treats 127.0.0.1 and
localhost as secure contexts and keeps Secure cookies there even over HTTP, which hides a deployment that
only works with HTTPS; `--host-resolver-rules` sends hall.lan to this machine without making it loopback.

The chief referee signs in through the real form, a referee sends a game from the table's link, and the chief
referee confirms it on the board: every step needs the session or the CSRF cookie.
"""

import pytest
from playwright.sync_api import expect

from scoring.services.links import ensure_links
from tests.e2e.conftest import PHONE, TIMEOUT_MS, launch_chromium
from tests.factories import make_staff, released_stage
from tests.served import production_server, served_database_url, usable_password
from tournament.services.audit import Actor

HALL = "hall.lan"
PASSWORD = "chief-knows-this-one"


@pytest.fixture(scope="module")
def hall_browser():
    yield from launch_chromium(f"--host-resolver-rules=MAP {HALL} 127.0.0.1")


@pytest.fixture
def hall_phone(hall_browser):
    contexts = []

    def new_phone():
        context = hall_browser.new_context(**PHONE)
        context.set_default_timeout(TIMEOUT_MS)
        context.set_default_navigation_timeout(TIMEOUT_MS)
        contexts.append(context)
        return context.new_page()

    yield new_phone
    for context in contexts:
        context.close()


# The documented switch, and the spelling the README gave before it (still accepted).
@pytest.mark.parametrize("switch", [{"DJANGO_PLAIN_HTTP": "true"}, {"DJANGO_SECURE_SSL_REDIRECT": "false"}],
                         ids=["DJANGO_PLAIN_HTTP", "DJANGO_SECURE_SSL_REDIRECT"])
def test_a_plain_http_hall_network_signs_in_and_takes_sheets(switch, transactional_db, hall_phone, shot, tmp_path):
    stage = released_stage(4)
    link = ensure_links(event=stage.event, actor=Actor(label="organiser"))[0]
    festival, event = stage.event.festival, stage.event
    usable_password(make_staff(festival, "chief referee", username="chief", password=PASSWORD), PASSWORD)

    with production_server(database_url=served_database_url(tmp_path), out=tmp_path, host=HALL, env=switch) as server:
        root = f"http://{HALL}:{server.port}"
        board = f"/manage/{festival.slug}/{event.slug}/board/"

        chief = hall_phone()
        first = chief.goto(f"{root}/accounts/login/?next={board}")
        assert first.status == 200 and chief.url.startswith(f"{root}/"), "no redirect to HTTPS"
        assert "strict-transport-security" not in first.headers
        chief.fill("input[name=username]", "chief")
        chief.fill("input[name=password]", PASSWORD)
        with chief.expect_navigation():
            chief.click("main form button[type=submit]")
        shot(chief, "signed-in")
        assert "expired" not in chief.content(), "the browser kept no CSRF cookie"
        assert chief.url == root + board, "the sign-in did not go through"
        cookies = {cookie["name"]: cookie for cookie in chief.context.cookies()}
        assert {"sessionid", "csrftoken"} <= set(cookies)
        assert not cookies["sessionid"]["secure"] and cookies["sessionid"]["httpOnly"]

        referee = hall_phone()
        referee.goto(f"{root}/t/{link.token}/")
        referee.get_by_role("link", name="Enter the scores").first.click()
        expect(referee.locator("h1")).to_have_text(f"Table {link.table_number}, game 1")
        referee.locator('label[for="went-out-1"]').click()
        for seat, rack in ((2, "12"), (3, "20"), (4, "9")):
            referee.fill(f"#id_s{seat}_rack_value", rack)
            referee.fill(f"#id_s{seat}_jokers", "0")
        expect(referee.locator("#sheet-check")).to_contain_text("No problems found.")
        referee.locator(".sheet-submit").click()
        expect(referee.locator(".sheet-game").first).to_contain_text("Submitted: waiting for the chief referee")
        shot(referee, "sheet-sent")

        chief.reload()
        row = chief.locator(f'#board li[data-table="{link.table_number}"]')
        expect(row).to_have_attribute("data-state", "submitted")
        row.get_by_role("button", name="Confirm").click()
        expect(chief.locator(f'#board li[data-table="{link.table_number}"]')).to_have_attribute(
            "data-state", "confirmed")
        shot(chief, "sheet-confirmed")

    assert "plain HTTP" in (tmp_path / "server-prod.log").read_text(), "no warning at start-up"
