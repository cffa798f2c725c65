"""Send one fuzzed POST and judge what happened.

For every request: never a server error; no raw tag from the input in an HTML answer; a redirect never
leaves the site. Around it, a fingerprint of every row of every app table: a refusal (4xx, an error message,
a form shown again with errors) or a sender without the role changed nothing; an accepted change is whole
(audited, consistent — see checks.py) and what it stored is shown escaped on every page.
"""

import io
import json
import re
from urllib.parse import urlencode, urlsplit

from django.apps import apps
from django.contrib import messages
from django.forms import BaseForm
from django.template.context import Context
from django.test import Client
from django.test.utils import ContextList
from django.urls import reverse
from hypothesis import strategies as st

from scoring.models import ScoreSheet, TableLink
from scoring.services.access import TableAccess, table_for_player
from tests.fuzz.endpoints import Endpoint
from tests.fuzz.values import KINDS, RAW_MARKERS, RECIPES, Aim, hostile
from tests.fuzz.world import ANONYMOUS, NO_ROLE, OUTSIDER, SUPERUSER, World
from tournament.models import Draw, Player, Registration, Stage
from tournament.permissions import ORGANISER
from tournament.services import seating

# Sessions and django-axes' failed-login log are written by design on refused requests; content types and
# permissions never change at run time; an upload waiting for its preview is the sender's, like a session.
NOT_FINGERPRINTED = {"sessions", "axes", "contenttypes"}
NOT_FINGERPRINTED_MODELS = {"auth.Permission", "tournament.PendingImport"}
EXPANSIONS = {"p": range(1, 6), "i": range(0, 14), "a": ("warning", "disqualify", "leave"), "s": range(0, 8)}
LANGUAGES = ["en", "ko", "zh-hant", "zh-Hant-HK,zh;q=0.8", "ko-KR,ko;q=0.9,en;q=0.5", "xx", "*"]
NONSENSE_INTS = [0, 2**31, 2**63, 10**30]


# --- the database before and after -----------------------------------------------------------------------

def fingerprinted_models():
    return [m for m in apps.get_models(include_auto_created=True)
            if m._meta.app_label not in NOT_FINGERPRINTED and m._meta.label not in NOT_FINGERPRINTED_MODELS]


# Signing in (force_login) stamps last_login, the test's doing, not the request's; a table link notes when its
# phone was last heard from (any page of the link, refused or not): neither is a change the request made.
UNWATCHED_COLUMNS = ("last_login", "last_contact_at")
_UNWATCHED = "|".join(UNWATCHED_COLUMNS)
ONLY_UNWATCHED = re.compile(rf'\s*UPDATE\s+\S+\s+SET\s+"(?:{_UNWATCHED})"\s*=\s*[^,]*\sWHERE\s', re.IGNORECASE)


def _columns(model) -> list[str]:
    return [f.attname for f in model._meta.concrete_fields if f.attname not in UNWATCHED_COLUMNS]


def fingerprint() -> dict[str, list[tuple]]:
    """Every row of every app table (a few hundred in the fuzz world)."""
    return {m._meta.label: list(m.objects.order_by("pk").values_list(*_columns(m))) for m in fingerprinted_models()}


WRITE = re.compile(r"^\s*(INSERT|UPDATE|DELETE|REPLACE)\b", re.IGNORECASE)
UNWATCHED_TABLES = ("django_session", "axes_", "tournament_pendingimport")


def wrote(queries) -> bool:
    """Whether any statement could have changed a fingerprinted table (the cheap test before comparing)."""
    for query in queries:
        sql = query["sql"]
        if (WRITE.match(sql) and not any(table in sql.split("(")[0] for table in UNWATCHED_TABLES)
                and not ONLY_UNWATCHED.match(sql)):
            return True
    return False


def changes(before: dict, after: dict) -> dict[str, list[tuple]]:
    """The new or changed rows of each table that changed."""
    out = {}
    for label, rows in after.items():
        if rows != before[label]:
            old = set(map(repr, before[label]))
            out[label] = [row for row in rows if repr(row) not in old]
    return out


def gone(before: dict, after: dict) -> dict[str, list]:
    """The primary keys of rows that disappeared, per table."""
    out = {}
    for label, rows in before.items():
        left = {row[0] for row in after[label]}
        missing = [row[0] for row in rows if row[0] not in left]
        if missing:
            out[label] = missing
    return out


def stored_markers(changed: dict) -> bool:
    return any(marker in repr(row) for rows in changed.values() for row in rows for marker in RAW_MARKERS)


# --- what the answer says ----------------------------------------------------------------------------------

def refusal(response) -> str:
    """Why the answer is a refusal ('' when it is not): a 4xx, an error message, a form with errors, or a JSON
    answer to a phone's outbox saying "refused"."""
    if response.status_code >= 400:
        return f"status {response.status_code}"
    if "json" in response.get("Content-Type", "") and not getattr(response, "streaming", False):
        try:
            said = json.loads(response.content)
        except ValueError:
            said = None
        if isinstance(said, dict) and said.get("status") == "refused":
            return f"refused {said.get('message', '')!r}"
    storage = getattr(response.wsgi_request, "_messages", None)
    # Messages shown on the page itself have moved from the queued to the loaded list.
    shown = getattr(storage, "_loaded_messages", []) + getattr(storage, "_queued_messages", [])
    errors = [str(m) for m in shown if m.level >= messages.ERROR]
    if errors:
        return f"error message {errors}"
    contexts = response.context
    if contexts is None:
        return ""
    for context in contexts if isinstance(contexts, ContextList) else [contexts]:
        flat = context.flatten() if isinstance(context, Context) else dict(context)
        if flat.get("error"):
            return f"error {flat['error']!r}"
        for value in flat.values():
            if isinstance(value, BaseForm) and value.is_bound and value.errors:
                return f"form errors {value.errors.as_data()}"
    return ""


def check_answer(response, what: str) -> None:
    assert response.status_code < 500, f"{what}: server error {response.status_code}"
    content_type = response.get("Content-Type", "")
    if "html" in content_type and not getattr(response, "streaming", False):
        body = response.content.decode("utf-8", "replace")
        for marker in RAW_MARKERS:
            assert marker not in body, f"{what}: unescaped {marker!r} in the page"
    location = response.get("Location")
    if location:
        parts = urlsplit(location.replace("\\", "/"))  # browsers read a backslash as a slash
        assert parts.scheme in ("", "http", "https") and parts.netloc in ("", "testserver"), \
            f"{what}: redirects off the site to {location[:300]!r}"
        for marker in RAW_MARKERS:
            assert marker not in location, f"{what}: unescaped {marker!r} in the redirect"


# --- aiming: the URL's arguments and the people --------------------------------------------------------

def effective_role(person: str, festival, world: World) -> str:
    """The role `person` holds at `festival`: festival A's staff hold theirs there only; the outsider
    organises festival B."""
    if person in (SUPERUSER, ANONYMOUS) or festival is None:
        return person
    if festival == world.other_festival:
        return ORGANISER if person == OUTSIDER else NO_ROLE
    return person


def url_arguments(draw, endpoint: Endpoint, world: World, event) -> tuple[dict, Aim]:
    """The aimed event's real arguments (mostly), else each one the aimed event's, anyone's or nonsense."""
    aim = Aim(world=world, event=event)
    crossed = draw(st.sampled_from([False] * 3 + [True]), label="crossed address")

    def pick(mine, everyone, nonsense):
        mine = list(mine)
        if mine and not crossed:
            return draw(st.sampled_from(mine))
        return draw(st.sampled_from(mine + list(everyone) + list(nonsense)))

    kwargs = {}
    for name in _pattern_args(endpoint.name):
        if name == "festival":
            kwargs[name] = pick([event.festival.slug], [world.other_festival.slug, world.festival.slug], ["nope"])
        elif name == "event":
            kwargs[name] = pick([event.slug], [e.slug for e in world.events.values()], ["nope"])
        elif name == "registration_id":  # the player's own registration, in the player's link
            mine = Registration.objects.filter(player__token=kwargs.get("token")).values_list("pk", flat=True)
            kwargs[name] = pick(mine, world.registrations(), NONSENSE_INTS)
        elif name == "registration":
            kwargs[name] = pick(world.registrations(event), world.registrations(), NONSENSE_INTS)
        elif name == "sheet_id":
            kwargs[name] = pick(world.sheet_ids(event), world.sheet_ids(), NONSENSE_INTS)
        elif name == "draw":
            kwargs[name] = pick(world.draw_ids(event), world.draw_ids(), NONSENSE_INTS)
        elif name == "stage":
            kwargs[name] = pick(event.stages.values_list("number", flat=True), [1, 2, 3], [0, 2**40])
        elif name == "stage_id":
            kwargs[name] = pick(event.stages.values_list("pk", flat=True), world.stage_ids(), NONSENSE_INTS)
        elif name == "game" and "token" in kwargs:  # a table's phone: mostly the game in play (the world's 1)
            kwargs[name] = pick([1, 1, 1, 2], [3, 4, 99], [0, 2**40])
        elif name == "game":
            kwargs[name] = pick([1, 2], [3, 4, 99], [0, 2**40])
        elif name == "table":
            kwargs[name] = pick([1, 2, 3], [4, 5], [0, 10_001, 2**31])
        elif name == "number":
            kwargs[name] = pick(world.numbers(event)[:4], world.numbers()[-2:], [0, 99_999_999])
        elif name == "token" and endpoint.name.startswith("referee-link"):
            mine = TableLink.objects.filter(event=event).values_list("token", flat=True)
            kwargs[name] = pick(mine, world.link_tokens(), ["x" * 64, "short", "A" * 65])
        elif name == "token" and endpoint.name == "staff-invitation":
            kwargs[name] = pick(world.invitation_tokens(event.festival), world.invitation_tokens(), ["x" * 43, "short"])
        elif name == "token":
            mine = Player.objects.filter(registrations__event=event).values_list("token", flat=True)
            kwargs[name] = pick(mine, world.player_tokens(), ["x" * 64, "short"])
        elif name == "fmt":
            kwargs[name] = pick(["csv", "xlsx"], ["json", "CSV"], ["exe", "csv.exe"])
        elif name == "key":
            kwargs[name] = "not-waiting"  # replaced by a real upload's key when the sender may upload
        else:
            raise AssertionError(f"teach url_arguments the argument {name!r} of {endpoint.name}")
    aim.seats, aim.extra["seated"] = _seats(endpoint.name, kwargs)
    aim.extra["sheet"] = ScoreSheet.objects.filter(pk=kwargs["sheet_id"]).first() if "sheet_id" in kwargs else None
    aim.extra.update(_kept_table(endpoint.name, kwargs))
    return kwargs, aim


def _pattern_args(name: str) -> list[str]:
    from tests.fuzz.coverage import route_patterns

    return route_patterns()[name]


def table_opened(name: str, kwargs: dict) -> tuple:
    """(stage, table number, card): what a table card's or a player's address opens now, with the table's live
    card; (None, None, None) when it opens no table."""
    if name.startswith("referee-link"):
        link = TableLink.objects.filter(token=kwargs["token"]).select_related("event").first()
        return (seating.stage_in_play(link.event), link.table_number, link) if link else (None, None, None)
    access = table_for_player(kwargs["token"], kwargs.get("event", ""))
    if not isinstance(access, TableAccess):
        return None, None, None
    link = TableLink.objects.filter(event=access.stage.event, table_number=access.table_number,
                                    revoked_at__isnull=True).first()
    return access.stage, access.table_number, link


def _kept_table(name: str, kwargs: dict) -> dict:
    """At a table that keeps its own sheet (a card's or a player's address): the codes printed on its card, and
    the game's submitted sheet the table answers (a player's answer and correction name its id and version)."""
    if "token" not in kwargs or not name.startswith(("referee-link", "player-sheet")):
        return {}
    stage, table, card = table_opened(name, kwargs)
    live = None
    if stage is not None and 0 < kwargs.get("game", 1) < 100:
        live = (ScoreSheet.objects.filter(stage=stage, table_number=table, game=kwargs.get("game", 1),
                                          status=ScoreSheet.Status.SUBMITTED).order_by("-version").first())
    return {"seat_codes": list(card.seat_codes) if card else [], "live": live,
            "keeps_sheet": stage is not None and stage.event.sheets_by == stage.event.SheetsBy.PLAYERS}


def _seats(name: str, kwargs: dict) -> tuple[list, list]:
    """The table's seats a sheet form is about, and the registrations seated in a draw (for swaps)."""
    stage, table, game = None, kwargs.get("table"), kwargs.get("game", 1)
    if "token" in kwargs and name.startswith(("referee-link", "player-sheet")):
        stage, table, _card = table_opened(name, kwargs)
    elif "stage_id" in kwargs:
        stage = Stage.objects.filter(pk=kwargs["stage_id"]).first()
    elif "sheet_id" in kwargs:
        sheet = ScoreSheet.objects.filter(pk=kwargs["sheet_id"]).select_related("stage").first()
        stage, table, game = (sheet.stage, sheet.table_number, sheet.game) if sheet else (None, None, 1)
    seats = []
    if stage is not None and table is not None and game < 100:
        draw = seating.game_draw(stage, game)
        seats = seating.seats(draw, table=table) if draw is not None else []
    seated = []
    if "draw" in kwargs:
        draw = Draw.objects.filter(pk=kwargs["draw"]).first()
        seated = list(draw.seats.values_list("registration_id", flat=True)) if draw else []
    return seats, seated


# --- the form data ---------------------------------------------------------------------------------------

def _expand(template: str) -> list[tuple[str, dict]]:
    for key, values in EXPANSIONS.items():
        if "{" + key + "}" in template:
            return [(template.replace("{" + key + "}", str(v)), {key: v}) for v in values]
    return [(template, {})]


def form_data(draw, endpoint: Endpoint, aim: Aim) -> tuple[dict, dict]:
    """Field values (a value, or a list for a duplicated field), and files, for one request.

    The mode makes whole forms valid often enough to be accepted (so writes and stored text are checked
    too): a recipe's valid form with a field or two damaged, each field plausible, each field plausible or
    hostile, or everything hostile."""
    recipe = RECIPES[endpoint.recipe](aim) if endpoint.recipe else None
    modes = ["recipe"] * 3 * (recipe is not None) + ["plausible", "plausible", "mixed", "hostile"]
    mode = draw(st.sampled_from(modes), label="mode")
    if mode == "recipe":
        # A recipe is a form, or a strategy of forms when who sends it varies (a seat's code on a table card).
        data = dict(draw(recipe, label="recipe") if isinstance(recipe, st.SearchStrategy) else recipe)
        fields = dict(name_kind for template, kind in endpoint.fields.items()
                      for name_kind in ((name, kind) for name, _where in _expand(template)))
        for name in draw(st.lists(st.sampled_from(sorted(fields)), max_size=2, unique=True), label="damaged"):
            data[name] = draw(st.one_of(KINDS[fields[name]](aim), hostile, st.just(None)))
            if data[name] is None:
                del data[name]
        return data, {name: draw(KINDS[kind](aim)) for name, kind in endpoint.files.items()}
    data = {}
    for template, kind in endpoint.fields.items():
        for name, where in _expand(template):
            if "p" in where and aim.seats and kind == "seat_registration":
                seat = next((s for s in aim.seats if s.position == where["p"]), None)
                plausible = st.just(str(seat.registration_id)) if seat else KINDS[kind](aim)
            else:
                plausible = KINDS[kind](aim)
            value = {"plausible": plausible, "mixed": st.one_of(plausible, hostile), "hostile": hostile}[mode]
            shape = draw(st.sampled_from(["one"] * 8 + ["missing", "twice"]))
            if shape == "one":
                data[name] = draw(value)
            elif shape == "twice":
                data[name] = [draw(value), draw(hostile)]
    if mode != "plausible":
        data.update(draw(st.dictionaries(st.text(min_size=1, max_size=8), hostile, max_size=2), label="junk"))
    files = {name: draw(KINDS[kind](aim)) for name, kind in endpoint.files.items()}
    return data, files


def request(draw, client: Client, path: str, data: dict, files: dict):
    """A POST as a browser would send it (multipart, urlencoded), as JSON, or empty; sometimes by htmx.
    Returns a function that sends it (again: a phone on bad Wi-Fi sends twice)."""
    headers = {"HTTP_ACCEPT_LANGUAGE": draw(st.sampled_from(LANGUAGES))}
    if draw(st.sampled_from([False] * 3 + [True]), label="asks for JSON"):  # a phone's outbox sending a queued tap
        headers["HTTP_ACCEPT"] = "application/json"
    if draw(st.booleans(), label="htmx"):
        headers.update(HTTP_HX_REQUEST="true", HTTP_HX_TARGET=draw(st.sampled_from(["board", "x", "<b>"])))
    encoding = draw(st.sampled_from(["multipart"] * 4 + ["urlencoded", "json", "empty"]), label="encoding")
    if encoding == "multipart":
        return lambda: client.post(path, {**data, **{name: _upload(*file) for name, file in files.items()}},
                                   **headers)
    if encoding == "urlencoded":
        body = urlencode(data, doseq=True)
        return lambda: client.post(path, body, content_type="application/x-www-form-urlencoded", **headers)
    if encoding == "json":  # wrong types too: null, numbers, objects, lists where text belongs
        typed = {name: draw(st.sampled_from([value, None, 10**30, -1.5, True, {"$gt": ""}, [value]]))
                 for name, value in data.items()}
        return lambda: client.post(path, json.dumps(typed), content_type="application/json", **headers)
    return lambda: client.post(path, **headers)


def _upload(name: str, content: bytes):
    """A file as the browser sends it; any name, even one Django's SimpleUploadedFile refuses to make."""
    upload = io.BytesIO(content)
    upload.name = name
    return upload


def path_for(name: str, kwargs: dict) -> str:
    return reverse(name, kwargs=kwargs)
