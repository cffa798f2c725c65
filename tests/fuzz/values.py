"""What the fuzzer types into fields: each kind of field has values a careful user would send and
the hostile ones — huge and negative numbers, floats, NaN and Infinity, HTML and script, unicode, RTL and
NUL characters, very long strings, wrong types (a list, an object, null), and ids of other events, other
festivals and of nothing at all.

A kind is a function of the request's context (`Aim`) returning a hypothesis strategy for one field's value,
so ids can be this event's (often) or anyone's.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from hypothesis import strategies as st

# Markers of text that must never reach a page unescaped. Each is a complete tag an attacker would try.
SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
PAYLOADS = (SCRIPT, IMG, "'><svg onload=alert(1)>")
RAW_MARKERS = ("<script>alert(", "<img src=x onerror", "<svg onload")

HUGE_NUMBERS = ["99999999999999999999", str(2**31), str(2**63), str(2**64), "1" * 400, "-1", "-0", "0",
                "-99999999999", "1.5", "1e309", "-1e309", "1e3", "0x10", "NaN", "nan", "Infinity", "-Infinity",
                "inf", "١٢", "１２", " 3 ", "+3", "3\x00", "--1", "1_000"]
WRONG_TYPES = ["[]", "{}", "null", "None", "undefined", "true", "[object Object]", '{"a": 1}', '["1", "2"]', "",
               " ", "\x00", "\ufeff", "\u202e1", "🙂", "%00", "%s%s%n", "{0}", "%(name)s", "' OR 1=1 --",
               "../../etc/passwd", "javascript:alert(1)", "\r\n\r\nSet-Cookie: x=1"]
UNICODE = ["김민준", "陳大文", "مرحبا", "\u202eevil\u202c", "a\u0301", "Ｚｅｎ", "\u200b", "𝕏", "\U0010ffff", "e\u0000x"]

hostile_text = st.one_of(
    st.sampled_from(PAYLOADS + tuple(WRONG_TYPES) + tuple(UNICODE) + tuple(HUGE_NUMBERS)),
    st.text(max_size=40),
    st.builds(lambda s, p: s + p, st.text(max_size=10), st.sampled_from(PAYLOADS)),
    st.integers(min_value=300, max_value=20_000).map(lambda n: "x" * n),
    st.just("\u202e" * 3000),
)
hostile_number = st.one_of(
    st.sampled_from(HUGE_NUMBERS),
    st.integers().map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)
hostile = st.one_of(hostile_text, hostile_number)


def payload_text(base: str) -> st.SearchStrategy[str]:
    """A plausible text with a hostile tag in it: a form that keeps it must show it escaped everywhere."""
    return st.sampled_from(PAYLOADS).map(lambda p: f"{base} {p}")


@dataclass
class Aim:
    """What a request is aimed at: the world, the event in its address (if any) and what the address names."""

    world: object
    event: object | None = None
    seats: list = field(default_factory=list)  # the table's seats, for a score sheet's fields
    extra: dict = field(default_factory=dict)

    def pick(self, mine: list, everyone: list, nonsense=(0, 2**31, 2**63)) -> st.SearchStrategy:
        """An id: this event's (most often), anyone's (another event's, another festival's), or nobody's."""
        return st.sampled_from([str(v) for v in list(mine) * 4 + list(everyone) + list(nonsense)])


Kind = Callable[[Aim], st.SearchStrategy]


def choice(*values: str) -> Kind:
    return lambda aim: st.sampled_from(values)


def text(*examples: str) -> Kind:
    """Free text a form stores (a reason, a note, a name), always with a tag in it: whatever a form keeps
    must then be shown escaped (the fuzzer walks the pages after such a write)."""
    plain = st.sampled_from(examples or ("ok",))
    return lambda aim: plain.flatmap(payload_text)


def number(low: int, high: int) -> Kind:
    return lambda aim: st.integers(min_value=low, max_value=high).map(str)


def id_of(mine: Callable, everyone: Callable) -> Kind:
    return lambda aim: aim.pick(mine(aim), everyone(aim))


def seat_registration(aim: Aim) -> st.SearchStrategy:
    # The position is not known here: any registration seated at the table, or someone else's.
    return aim.pick([s.registration_id for s in aim.seats], aim.world.registrations())


def seat_code(aim: Aim) -> st.SearchStrategy:
    """A code of the card of the table in the address (any of its seats), another card's, or no code at all."""
    return aim.pick(aim.extra.get("seat_codes", []), aim.world.seat_codes(),
                    ("0000", "1234", "12345", "abcd", "", "9999", "０１２３", "12 34"))


def answered_sheet(aim: Aim) -> st.SearchStrategy:
    """The sheet a table's players answer: the one in play at the address's table, or another sheet's id."""
    live = aim.extra.get("live")
    mine = [live.pk] if live is not None else []
    return aim.pick(mine * 2 + aim.world.sheet_ids(aim.event), aim.world.sheet_ids())


def sheet_version(aim: Aim) -> st.SearchStrategy:
    """The version of the sheet in play at the table (the one its players saw), another, or nonsense."""
    live = aim.extra.get("live")
    return aim.pick([live.version] if live is not None else [], [1, 2, 3],
                    ("0", "-1", "32768", "99999", "1.0", "abc", "１", "²", ""))


def idempotency_key(aim: Aim) -> st.SearchStrategy:
    return st.one_of(st.uuids().map(lambda u: u.hex), st.sampled_from(["", "0" * 32, "Z" * 32, "a" * 64]))


KINDS: dict[str, Kind] = {
    "bool": choice("on", "1", "true", ""),
    "yes_no": choice("yes", "no", ""),
    "end": choice("went_out", "blocked", "time"),
    "seat": choice("1", "2", "3", "4", ""),
    "rack": number(0, 130),
    "jokers": number(0, 2),
    "tiles": choice("", "R5 B13 J", "K9 K10", "R1 R1 R1 J J J", "X99", "r5,b13"),
    "words": choice("", "PLANET", "GARDEN", "LAP CHIP EAR", "CAT DOG", "ZZZZ", "QXJ"),
    "rows": choice("12", "20", "1", "300"),
    "key": idempotency_key,
    "correction_key": lambda aim: st.one_of(st.uuids().map(lambda u: u.hex), st.sampled_from(["short", "a" * 65])),
    "reason": text("miscounted rack", "phoned: ill", "seat swap after complaint"),
    "note": text("talked during play", "slow play"),
    "name": text("김민준", "Chan Tai Man", "Ana"),
    "short_text": text("A1", "김"),  # ranking ids: at most 40 characters
    "contact": choice("minjun@example.kr", "+82 10 1234 5678", "010-1234-5678", "not an address"),
    "birth_year": number(1900, 2030),
    "notice_version": choice("1", "2", "0", "-1", "abc", "9" * 30, ""),
    "guardian_age": choice("14", "1", "0", "-1", "abc", "200", ""),
    "retention_days": choice("90", "0", "-5", "1e9", "99999999999", ""),
    "guardian_hold_days": choice("3", "1", "0", "31", "-2", "abc", ""),
    "seed": number(0, 2**31 - 1),
    "place": number(1, 8),
    "points": choice("100,70,50", "100, 70, 50, 40", "", "1,2,3,4,5,6,7,8,9,10"),
    "stage_no": number(1, 5),
    "game": number(1, 4),
    "table": number(1, 5),
    "checkin": choice("closed", "open", "schedule"),
    "numbering": choice("registration", "random", "seeded"),
    "public_names": choice("full", "masked"),
    "sheets_by": choice("referees", "players"),
    "sheet_answer": choice("agree", "dispute", "maybe", ""),
    "seat_code": lambda aim: seat_code(aim),
    "sheet": lambda aim: answered_sheet(aim),
    "version": lambda aim: sheet_version(aim),
    "agreement_minutes": number(0, 61),
    "yes_no_name": choice("yes", "no"),
    "import_action": choice("all", "valid", "cancel"),
    "conduct_kind": choice("warning", "disqualified", "withdrew", "forfeit"),
    "conduct_action": choice("warning", "disqualify", "leave"),
    "sheet_action": choice("submit", "check", "more", ""),
    "language": choice("en", "ko", "zh-hant", "xx"),
    "next": choice("/", "/manage/", "https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)",
                   "xxx", "manage-home"),
    "username": text("organiser", "admin"),
    "identifier": choice("referee", "Desk", "new.person@example.org", "bad@", "two words", "", "x" * 300),
    "role": choice("desk", "referee", "chief referee", "organiser", "king", ""),
    "password": choice("wrong", "", "pw-for-tests-only"),
    "registration": id_of(lambda a: a.world.registrations(a.event), lambda a: a.world.registrations()),
    "seat_registration": seat_registration,
    "number": id_of(lambda a: a.world.numbers(a.event), lambda a: a.world.numbers()),
    "link": id_of(lambda a: a.world.link_ids(a.event), lambda a: a.world.link_ids()),
    "invitation": id_of(lambda a: a.world.invitation_ids(a.event.festival if a.event else a.world.festival),
                        lambda a: a.world.invitation_ids()),
    "answer": choice("accept", "decline", "maybe", ""),
    "user": id_of(lambda a: [a.world.users["referee"].pk], lambda a: a.world.user_ids()),
    "event_slug": lambda aim: st.sampled_from([e.slug for e in aim.world.events.values()] + ["", "nope"]),
    "fingerprint": choice("", "0" * 64, "deadbeef"),
    # A walk-in's choice between stored players of the typed name (ids) and a new person.
    "walk_in_person": choice("new", "", "1", "2", "abc", "-1", "9" * 30),
    "walk_in_seen": choice("", "1", "1,2", "2,1", "x,y", ",", "-1", "9" * 40),
    "seated": lambda aim: aim.pick(aim.extra.get("seated", []), aim.world.registrations()),
    "sheet_file": lambda aim: registrations_file(aim),
    # festivals and events (tournament/forms/festival.py, timetable.py)
    "date": choice("2030-11-02", "2030-11-03", "2030-11-01", "2030-02-31", "02/11/2030", "0001-01-01", "9999-12-31"),
    "time": choice("10:20", "11:00", "14:30", "00:00", "23:59", "24:00", "25:99", "10:20:30", "1020"),
    "moment": choice("2030-11-01T23:59", "2030-10-01T10:00", "2030-11-02T11:00", "2030-11-02 11:00",
                     "2030-13-01T10:00", "9999-12-31T23:59"),
    "slug": choice("busan-2030", "new-festival", "edit", "new-event", "import", "open", "x" * 61, "부산", "a b", ""),
    "timezone": choice("Asia/Seoul", "Asia/Hong_Kong", "Europe/London", "Mars/Olympus", ""),
    "language_code": choice("ko", "en", "zh-hant", "xx"),
    "preset": choice("busan", "hk", "word", "", "chess"),
    "game_kind": choice("classic", "word", "poker"),
    "format": choice("busan", "hk", "swiss"),
    "ruleset": choice("wrc-2014", "hk-2016", "casual", "house"),
    "first_seating": choice("number", "random", "alphabet"),
    "players": number(0, 6000),
    "games": number(0, 10),
    "stage_games": choice("3,3,3", "3,3", "3", "", "0,3", "3,,3", "10", "３,３"),
    "tiebreaks": choice("", "wins,points", "wins,average,lot", "luck"),
    "slot_kind": choice("round", "final", "briefing", "play", "scoring", "other", "checkin", "boss"),
    "slot_action": choice("save", "generate", ""),
    "propose": choice("", "1"),
}


def _csv(rows) -> bytes:
    lines = ["event,name,contact,birth_year,affiliation,ranking_id"]
    lines += [",".join(f'"{cell}"' for cell in row) for row in rows]
    return "\n".join(lines).encode("utf-8")


def _xlsx(rows) -> bytes:
    import io

    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["event", "name", "contact", "birth_year", "affiliation", "ranking_id"])
    for row in rows:
        sheet.append(list(row))
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def registrations_file(aim: Aim) -> st.SearchStrategy:
    """(file name, content): a real sheet of registrations (CSV or XLSX, tags in the names), or junk."""
    slugs = [e.slug for e in aim.world.events.values()] + ["nope", ""]
    row = st.tuples(st.sampled_from(slugs), st.sampled_from(["Lee", "Wong", "Ana"]).flatmap(payload_text),
                    st.sampled_from(["a@example.org", "+82 10 1234 5678", "x"]),
                    st.sampled_from(["2001", "1850", "NaN", ""]), st.sampled_from(["", "=cmd|' /C calc'!A0"]),
                    st.just(""))
    rows = st.lists(row, min_size=0, max_size=4)
    real = st.one_of(rows.map(lambda r: ("players.csv", _csv(r))), rows.map(lambda r: ("players.xlsx", _xlsx(r))))
    junk = st.tuples(st.sampled_from(["x.csv", "x.xlsx", "x.xls", "x.exe", "../../x.csv", f"{SCRIPT}.csv", "", "noext"]),
                     st.one_of(st.binary(max_size=200), st.just(b""), st.just(b"PK\x03\x04" + b"\x00" * 50),
                               st.just(b"\xff\xfe" + "event,name\n".encode("utf-16-le")),
                               st.just(b"a" * (2 * 1024 * 1024 + 1))))
    return st.one_of(real, junk)


# --- recipes: a whole form as the page would send it, which the fuzzer then damages a little ----------------

def _post(initial: dict) -> dict:
    """Form initial values as a browser posts them: ticked boxes "on", unticked and empty ones left out."""
    data = {}
    for name, value in initial.items():
        if value is True:
            data[name] = "on"
        elif value not in (None, False, ""):
            data[name] = str(value)
    return data


def sheet_recipe(aim: Aim) -> dict | None:
    """A correct classic sheet (seat 1 went out, small racks) or Word sheet for the table in the address."""
    if not aim.seats:
        return None
    if aim.seats[0].draw.stage.event.game == "word":
        data = {"rows": "12", "end": "went_out", "t0_seat": "1", "t0_words": "PLANET", "t1_seat": "2",
                "t1_words": "GARDEN"}
        data.update({f"j{s.position}_jokers": "0" for s in aim.seats})
    else:
        data = {"end": "went_out", "went_out": str(aim.seats[0].position)}
        for index, seat in enumerate(aim.seats):
            p = seat.position
            data.update({f"s{p}_registration": str(seat.registration_id), f"s{p}_opened": "yes"})
            if index:
                data.update({f"s{p}_rack_value": str(5 * index), f"s{p}_jokers": "0"})
    # Every example starts from the same rolled-back world, so a fixed key is new every time.
    return data | {"idempotency_key": "f" * 32, "accept_warnings": "on"}


def _typed_code(aim: Aim) -> dict:
    """The seat code a table card's form carries: a seat's own (half the time), or one from `seat_code` — most
    often another card's, well-formed and wrong. A personal page's form has none."""
    codes = aim.extra.get("seat_codes") or []
    if not codes:
        return {}
    return {"seat_code": st.one_of(st.sampled_from(codes), seat_code(aim))}


def table_sheet_recipe(aim: Aim) -> dict | st.SearchStrategy | None:
    """At a table keeping its own sheet, a seated player's correct sheet: a correction of the version in play
    when the table has entered one, with a seat code when the card asks for one. Elsewhere the sheet of
    `sheet_recipe`."""
    data = sheet_recipe(aim)
    if data is None or not aim.extra.get("keeps_sheet"):
        return data
    live = aim.extra.get("live")
    if live is not None:
        data["correcting"] = str(live.version)
    return st.fixed_dictionaries({name: st.just(value) for name, value in data.items()} | _typed_code(aim))


def answer_recipe(aim: Aim) -> st.SearchStrategy | None:
    """An answer to the sheet in play at the table as the answer form sends it: an agreement, or a dispute with
    a tag in its reason; through the card with a seat code."""
    live = aim.extra.get("live")
    if live is None:
        return None
    return st.fixed_dictionaries({
        "sheet": st.just(str(live.pk)), "version": st.just(str(live.version)),
        "answer": st.sampled_from(["dispute", "agree"]), "reason": st.just(f"seat 3 kept a joker {SCRIPT}"),
        "key": st.just("d" * 32), **_typed_code(aim)})


def correction_recipe(aim: Aim) -> dict | None:
    """The correction form of the sheet in the address, as the page fills it in, with a reason."""
    from scoring.games import game_of

    sheet = aim.extra.get("sheet")
    if sheet is None:
        return None
    initial = game_of(sheet.stage.event).correction_initial(sheet) | {"idempotency_key": "e" * 32}
    return _post(initial) | {"reason": f"recount {SCRIPT}", "accept_warnings": "on"}


def swap_recipe(aim: Aim) -> dict | None:
    seated = aim.extra.get("seated") or []
    return {"first": str(seated[0]), "second": str(seated[-1])} if len(seated) > 1 else None


def conduct_recipe(aim: Aim) -> dict | None:
    numbers = aim.world.numbers(aim.event) if aim.event else []
    if not numbers:
        return None
    return {"action": "warning", "warning-number": str(numbers[0]), "warning-kind": "warning",
            "warning-note": f"slow play {IMG}", "warning-key": "c" * 32}


def registration_recipe(aim: Aim) -> dict:
    """A new player (the world's are "Player n"), with tags in every text."""
    return {"name": f"Lee {SCRIPT}", "contact": "lee@example.org", "birth_year": "2001",
            "affiliation": f"Club {IMG}", "ranking_id": "R1 <svg onload=alert(1)>", "guardian_name": f"Mum {SCRIPT}",
            "guardian_contact": "mum@example.org", "guardian_agrees": "on", "agree": "on", "notice_version": "1"}


def upload_recipe(aim: Aim) -> dict:
    return {"default_event": "", "upload": "Check the file"}  # the file itself comes from its kind


def keep_recipe(aim: Aim) -> dict:
    """The chief referee lets the player on three warnings (world.py: number 5 of the classic event) play on."""
    return {"number": "5", "note": f"apologised {SCRIPT}"}


def _form_post(initial: dict, tz) -> dict:
    """A festival or event form's initial values as the browser posts them (times in the festival's zone)."""
    import datetime as dt

    from django.utils import timezone

    from tournament.list_text import as_text

    data = {}
    for name, value in initial.items():
        if isinstance(value, dt.datetime):
            data[name] = timezone.localtime(value, tz).strftime("%Y-%m-%dT%H:%M")
        elif isinstance(value, dt.time):
            data[name] = value.strftime("%H:%M")
        elif isinstance(value, dt.date):
            data[name] = value.isoformat()
        elif isinstance(value, list) and name != "languages":
            data[name] = as_text(value)
        else:
            data[name] = value
    return _post({k: v for k, v in data.items() if not isinstance(v, list)}) | {
        k: v for k, v in data.items() if isinstance(v, list)}


def festival_recipe(aim: Aim) -> dict:
    """A new festival (or the aimed one edited), with tags in its texts."""
    zone = aim.event.festival.timezone if aim.event else "Asia/Hong_Kong"
    return {"name": f"Festival {SCRIPT}", "slug": "", "starts_on": "2030-11-02", "ends_on": "2030-11-03",
            "venue": f"Hall {IMG}", "contact": "a@example.org", "timezone": zone, "languages": ["ko", "en"]}


def festival_edit_recipe(aim: Aim) -> dict | None:
    """The aimed event's festival as its form shows it, renamed with a tag."""
    from tournament.forms.festival import FestivalForm

    if aim.event is None:
        return None
    festival = aim.event.festival
    return _form_post(FestivalForm(festival=festival).initial, festival.tzinfo) | {
        "name": f"Renamed {SCRIPT}", "privacy_notice": f"Our notice {IMG}\nline two"}


def event_recipe(aim: Aim) -> dict | None:
    """A new Busan event of the aimed event's festival as the preset fills it, with a tag in its name."""
    from tournament.forms.festival import EventForm

    if aim.event is None:
        return None
    festival = aim.event.festival
    initial = EventForm.initial_for_preset("busan", festival)
    return _form_post(initial, festival.tzinfo) | {"name": f"Open {SCRIPT}"}


def event_edit_recipe(aim: Aim) -> dict | None:
    """The aimed event's form as it stands, renamed, with one place more."""
    from tournament.forms.festival import EventForm

    if aim.event is None:
        return None
    event = aim.event
    return _form_post(EventForm.initial_for_event(event), event.festival.tzinfo) | {
        "name": f"Renamed {IMG}", "capacity": str(event.capacity + 1)}


def schedule_recipe(aim: Aim) -> dict | None:
    """The aimed event's timetable as the editor shows it, with the prize-giving added at the end."""
    import datetime as dt

    from django.utils import timezone

    from tournament.forms.timetable import initial_rows

    if aim.event is None:
        return None
    with timezone.override(aim.event.festival.tzinfo):
        rows = initial_rows(aim.event)
    data = {"slot-TOTAL_FORMS": str(len(rows)), "slot-INITIAL_FORMS": str(len(rows)), "action": "save"}
    for index, row in enumerate(rows):
        for name, value in row.items():
            if value not in (None, ""):
                data[f"slot-{index}-{name}"] = value.strftime("%H:%M") if hasattr(value, "strftime") else str(value)
    ends = timezone.localtime(aim.event.ends_at, aim.event.festival.tzinfo)
    data |= {f"slot-{len(rows) - 2}-label": f"Prizes {SCRIPT}", f"slot-{len(rows) - 2}-ends": ends.strftime("%H:%M"),
             f"slot-{len(rows) - 2}-starts": (ends - dt.timedelta(minutes=20)).strftime("%H:%M")}
    return data


RECIPES = {"registration": registration_recipe, "keep": keep_recipe, "upload": upload_recipe, "sheet": sheet_recipe,
           "table_sheet": table_sheet_recipe, "answer": answer_recipe, "correction": correction_recipe,
           "swap": swap_recipe, "conduct": conduct_recipe, "festival": festival_recipe,
           "festival_edit": festival_edit_recipe, "event": event_recipe, "event_edit": event_edit_recipe,
           "schedule": schedule_recipe}
