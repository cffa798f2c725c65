"""The hall's Wi-Fi drops with every page of the app closed: the service worker sends what waits (Background
Sync) and the pages, opened again, show its answers; what an older version queued in localStorage is moved to
the outbox and sent. In Chromium at phone size (the pages open: test_e2e_offline.py).
"""

from playwright.sync_api import expect

from scoring.models import ScoreSheet
from tests.e2e.inflight import answered
from tests.e2e.offline import (
    QUEUED,
    SENT,
    arrived,
    desk_with_players,
    fill,
    nudge,
    outbox,
    referee_at_the_table,
    sheets_of,
    sync_with_every_page_closed,
    tap_check_ins_offline,
    wait_until_cached,
)
from tournament.models import AuditEntry, Registration
from tournament.services.audit import Actor
from tournament.services.checkin import check_in


def test_a_sheet_queued_offline_is_sent_by_the_service_worker_with_the_page_closed(table, phone, server, shot):
    stage, link, seats = table
    referee, table_url, _game_path = referee_at_the_table(phone, server, link)
    context = referee.context

    context.set_offline(True)
    referee.get_by_role("link", name="Enter the scores").first.click()
    fill(referee)
    referee.locator(".sheet-submit").click()
    expect(referee.locator('[data-outbox-game="1"]')).to_have_text(QUEUED)
    [queued] = outbox(referee, "sheet")
    assert queued["state"] == "queued" and sheets_of(stage) == []
    referee.close()
    # The phone's CSRF cookie is gone meanwhile (expired, cleared): the worker gets a fresh token and sends anyway.
    context.clear_cookies(name="csrftoken")

    # The worker posts the sheet, then asks where it is: its answer is recorded once that second answer is in.
    sync_with_every_page_closed(context, server, "rk-outbox-sheets",
                                lambda: sheets_of(stage) and answered("GET", queued["statusUrl"]))
    [sheet] = sheets_of(stage)
    assert sheet.status == ScoreSheet.Status.SUBMITTED and sheet.idempotency_key == queued["key"]
    assert sheet.seats.get(position=3).tiles == "K7 K8"

    # Opened again, still without a connection: the page shows what the worker recorded (it writes it just
    # after the answer: the page, loaded meanwhile, would show it on the worker's message).
    context.set_offline(True)
    again = context.new_page()
    again.goto(table_url)
    assert arrived(again, lambda: [i["state"] for i in outbox(again, "sheet")] == ["sent"])
    again.reload()
    expect(again.locator('[data-outbox-game="1"]')).to_have_text(SENT)
    shot(again, "sent-by-the-worker")
    context.set_offline(False)

    # The answer was lost on the way (as far as the phone knows): the page sends the same sheet again. Sent by
    # the worker and by the page, it is recorded once (the idempotency key, R9).
    again.evaluate("""async () => {
        const [item] = await RkOutbox.all('sheet');
        item.state = 'queued';
        item.sentAt = 0;
        await RkOutbox.put(item);
    }""")
    nudge(again)
    assert arrived(again, lambda: [(i["state"], i["sentAt"] > 0) for i in outbox(again, "sheet")] == [("sent", True)])
    expect(again.locator('[data-outbox-game="1"]')).to_have_text(SENT)
    assert [s.pk for s in sheets_of(stage)] == [sheet.pk], "sent twice, recorded once"


def test_desk_check_ins_queued_offline_are_sent_by_the_service_worker_with_the_page_closed(
        phone, server, shot, sign_in):
    names = ["김민준", "Chan Tai Man"]
    event, registrations, page, missing = desk_with_players(phone, server, sign_in, names)
    context = page.context
    tap_check_ins_offline(page, names)
    posted = [item["url"] for item in outbox(page, "desk")]
    page.close()
    check_in(registration=registrations["Chan Tai Man"], actor=Actor(label="the other desk"))  # meanwhile

    def both_answered():
        return len(posted) == 2 and all(answered("POST", url) for url in posted)
    sync_with_every_page_closed(context, server, "rk-outbox-desk", both_answered)
    arrived_ = Registration.objects.filter(event=event, checked_in_at__isnull=False)
    assert set(arrived_.values_list("player__name", flat=True)) == set(names)
    for name in names:
        assert AuditEntry.objects.filter(action="checkin.in", target_id=registrations[name].pk).count() == 1, name

    # The desk page, opened again offline, says what the server answered the worker.
    context.set_offline(True)
    again = context.new_page()
    again.goto(missing)
    expect(again.locator("[data-desk-report]")).to_have_count(2)
    expect(again.locator('[data-desk-report="ok"]')).to_have_text("김민준 is checked in.")
    expect(again.locator('[data-desk-report="problem"]')).to_have_text(
        "Chan Tai Man was already checked in by another desk: not checked in twice.")
    expect(again.locator("[data-desk-waiting]")).to_be_hidden()
    shot(again, "answers-shown")
    assert outbox(again, "desk") == []  # said once, then dropped


def test_what_an_older_version_queued_in_local_storage_is_moved_to_the_outbox_and_sent(
        table, phone, server, sign_in):
    """A phone that queued with the previous version (localStorage) loses nothing when the app updates."""
    stage, link, seats = table
    referee = phone("referee")
    game_url = server.url("referee-link-game", token=link.token, stage=1, game=1)
    referee.goto(game_url)
    wait_until_cached(referee, game_url.removeprefix(server.root))
    referee.context.set_offline(True)
    fill(referee)
    referee.evaluate("""() => {  // what static/js/outbox.js used to keep for a sheet sent offline
        const form = document.querySelector('form.sheet-form');
        const data = new URLSearchParams(new FormData(form));
        data.set('action', 'submit');
        const key = form.elements.idempotency_key.value, scope = form.dataset.outboxScope;
        localStorage.setItem(`rk-outbox|${scope}|1|${key}`, JSON.stringify({
            scope, game: '1', key, url: form.getAttribute('action'), body: data.toString(), state: 'queued',
            saved: Date.now(), statusUrl: form.dataset.statusUrl}));
    }""")
    referee.reload()
    expect(referee.locator('[data-outbox-game="1"]')).to_have_text(QUEUED)
    assert referee.evaluate("Object.keys(localStorage).filter(k => k.startsWith('rk-outbox|'))") == []
    assert [item["state"] for item in outbox(referee, "sheet")] == ["queued"]
    referee.context.set_offline(False)
    expect(referee.locator('[data-outbox-game="1"]')).to_have_text(SENT)
    assert len(sheets_of(stage)) == 1

    _event, registrations, desk, _missing = desk_with_players(phone, server, sign_in, ["김민준"])
    registration = registrations["김민준"]
    desk.context.set_offline(True)
    desk.evaluate("""() => {  // what static/js/desk-outbox.js used to keep for a tap offline
        const form = document.querySelector('form[data-queue-url]');
        const scope = document.querySelector('[data-desk-outbox]').dataset.deskOutbox;
        const key = 'ab'.repeat(16);
        localStorage.setItem(`rk-desk|${scope}|${key}`, JSON.stringify({
            url: form.dataset.queueUrl, name: form.dataset.name, oneTimeKey: key,
            csrf: form.querySelector('[name=csrfmiddlewaretoken]').value, saved: Date.now()}));
    }""")
    desk.reload()
    expect(desk.locator("[data-desk-waiting]")).to_have_text("Waiting to send (1)")
    assert desk.evaluate("Object.keys(localStorage).filter(k => k.startsWith('rk-desk|'))") == []
    desk.context.set_offline(False)
    expect(desk.locator('[data-desk-report="ok"]')).to_have_text("김민준 is checked in.")
    assert Registration.objects.get(pk=registration.pk).is_checked_in
