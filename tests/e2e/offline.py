"""What the offline browser tests share (test_e2e_offline.py: pages open; test_e2e_offline_closed.py: every
page closed, the service worker sending): the phone's cache and outbox, a sheet filled in, a desk with players."""

from django.db import OperationalError
from playwright.sync_api import expect

from scoring.models import ScoreSheet
from tests.factories import make_event, make_player, make_registration, make_staff
from tournament.models import Event

QUEUED = "Saved on this phone — not sent yet (no connection)."
SENT = "Sent — waiting for the chief referee."


def sheets_of(stage):
    return list(ScoreSheet.objects.filter(stage=stage, game=1))


def wait_until_cached(page, path: str) -> None:
    """The service worker controls the page and holds `path` in one of its caches."""
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    for _ in range(100):  # a wait, not a timing assertion: the worker fetches in the background
        if page.evaluate("async (path) => !!(await caches.match(path, {ignoreSearch: true}))", path):
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"{path} never reached the cache: {cached_paths(page)}")


def cached_paths(page) -> list[str]:
    return page.evaluate("""async () => {
        const found = [];
        for (const name of await caches.keys()) {
            for (const request of await (await caches.open(name)).keys()) {
                found.push(name.split('-').slice(0, 2).join('-') + ' ' + new URL(request.url).pathname);
            }
        }
        return found;
    }""")


def fill(page, *, jokers_of_seat_4: int = 0) -> None:
    page.locator('label[for="went-out-1"]').click()  # also chooses "went out" as the end
    page.fill("#id_s2_rack_value", "12")
    page.fill("#id_s2_jokers", "0")
    page.fill("#id_s3_tiles", "K7 K8")
    page.fill("#id_s4_rack_value", "9")
    page.fill("#id_s4_jokers", str(jokers_of_seat_4))


def nudge(page) -> None:
    """The page comes back to the front: its outbox sends and asks again (as on a timer, without waiting)."""
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")


def outbox(page, queue: str) -> list[dict]:
    """What waits in the phone's outbox (IndexedDB, static/js/outbox-store.js)."""
    return page.evaluate("(queue) => RkOutbox.all(queue)", queue)


def arrived(probe, check) -> bool:
    for _ in range(100):  # a wait, not a timing assertion: the worker sends in the background
        try:
            if check():
                return True
        except OperationalError:  # SQLite: the live server is writing that table right now
            pass
        probe.wait_for_timeout(100)
    return False


def sync_with_every_page_closed(context, server, tag: str, check) -> None:
    """The connection returns while no page of the app is open: Chromium fires the worker's Background Sync by
    itself; should it not have by the time `check()` would hold, Chromium's own dispatch (DevTools) fires it."""
    probe = context.new_page()  # about:blank: no page of the site, so only the service worker can send
    context.set_offline(False)
    if not arrived(probe, check):
        cdp = context.new_cdp_session(probe)
        registrations = []
        cdp.on("ServiceWorker.workerRegistrationUpdated", lambda event: registrations.extend(event["registrations"]))
        cdp.send("ServiceWorker.enable")
        assert arrived(probe, lambda: registrations), "no service worker registered"
        for registration in registrations:
            cdp.send("ServiceWorker.dispatchSyncEvent", {
                "origin": server.root, "registrationId": registration["registrationId"], "tag": tag,
                "lastChance": False})
        assert arrived(probe, check), "the service worker did not send"
    probe.close()


def referee_at_the_table(phone, server, link):
    """A referee's phone on the table link's page, the sheet of game 1 in its cache (the table page asks the
    worker to keep it). Returns (the page, the table page's address, game 1's path)."""
    referee = phone("referee")
    table_url = server.url("referee-link-table", token=link.token)
    game_path = server.url("referee-link-game", token=link.token, stage=1, game=1).removeprefix(server.root)
    referee.goto(table_url)
    wait_until_cached(referee, game_path)
    return referee, table_url, game_path


def desk_with_players(phone, server, sign_in, names: list[str]):
    """A desk phone signed in on the list of who is missing, with that page in its cache; check-in open.
    Returns (event, registration per name, the page, the page's address)."""
    event = make_event(checkin_override=Event.CheckinOverride.OPEN)
    registrations = {name: make_registration(event, make_player(event.festival, name=name)) for name in names}
    page = phone("desk")
    missing = server.url("desk-missing", festival=event.festival.slug, event=event.slug)
    sign_in(page, make_staff(event.festival, "desk"), next_url=missing.removeprefix(server.root))
    wait_until_cached(page, missing.removeprefix(server.root))
    return event, registrations, page, missing


def tap_check_ins_offline(page, names: list[str]) -> None:
    page.context.set_offline(True)
    for name in names:
        page.locator("li", has_text=name).get_by_role("button", name="Check in").click()
        expect(page.locator("li", has_text=name).locator("[data-desk-queued]")).to_be_visible()
    expect(page.locator("[data-desk-waiting]")).to_have_text(f"Waiting to send ({len(names)})")


def device_storage(page) -> dict:
    """Everything the site keeps on this phone outside cookies, read from the page: every Cache Storage entry
    (cache, address, body), every localStorage key and value, every IndexedDB record (as JSON)."""
    return page.evaluate("""async () => {
        const cached = [];
        for (const name of await caches.keys()) {
            const cache = await caches.open(name);
            for (const request of await cache.keys()) {
                const response = await cache.match(request);
                cached.push({cache: name, url: request.url, body: await response.text()});
            }
        }
        const local = {};
        for (let i = 0; i < localStorage.length; i++) {
            const key = localStorage.key(i);
            local[key] = localStorage.getItem(key);
        }
        const done = (request) => new Promise((resolve, reject) => {
            request.onsuccess = () => resolve(request.result);
            request.onerror = () => reject(request.error);
        });
        const records = [];
        for (const info of await indexedDB.databases()) {
            const db = await done(indexedDB.open(info.name));
            for (const store of db.objectStoreNames) {
                for (const record of await done(db.transaction(store).objectStore(store).getAll())) {
                    records.push({database: info.name, store, json: JSON.stringify(record)});
                }
            }
            db.close();
        }
        return {cached, local, records};
    }""")


def kept_text(storage: dict) -> list[tuple[str, str]]:
    """(where, text) of every piece of `device_storage`: addresses, bodies, keys, values, records."""
    texts = []
    for entry in storage["cached"]:
        texts += [(f"cache {entry['cache']} address", entry["url"]), (f"cache {entry['cache']} {entry['url']}", entry["body"])]
    for key, value in storage["local"].items():
        texts += [("localStorage key", key), (f"localStorage {key}", value)]
    texts += [(f"IndexedDB {record['database']}/{record['store']}", record["json"]) for record in storage["records"]]
    return texts
