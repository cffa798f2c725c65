"""Rows read from a file, checked against the festival as it is now: one report per row, and a fingerprint.

The preview shows these reports, and `importing` computes them again under lock before it writes anything.
The fingerprint names the rows that were valid when the organiser looked, so "import the valid rows" imports
exactly those or nothing. Reads only; changes nothing.
"""

import hashlib
from dataclasses import dataclass, field

from django.db.models import Count, Q
from django.utils.translation import gettext as _

from ...models import Event, Player, Registration
from ...registration_fields import PlayerFields
from ..identity import differences, differences_message, person_key
from ..registration import PlayerDetails
from .layout import FORMULA_STARTS, IMPORT_COLUMNS, header_key


@dataclass
class RowReport:
    line: int
    values: dict
    event: Event | None = None
    details: PlayerDetails | None = None
    problems: list[str] = field(default_factory=list)
    # What importing now would give: "registered" (a place) or "waitlisted".
    outcome: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems


def _resolve_events(festival) -> tuple[dict, dict, dict]:
    events = list(festival.events.all())
    by_slug = {event.slug: event for event in events}
    by_name: dict[str, list[Event]] = {}
    for event in events:
        by_name.setdefault(header_key(event.name), []).append(event)
    return by_slug, by_name, {event.pk: event for event in events}


def _find_event(text: str, by_slug: dict, by_name: dict) -> tuple[Event | None, str]:
    if not text:
        return None, _("No event given.")
    if text in by_slug:
        return by_slug[text], ""
    candidates = by_name.get(header_key(text), [])
    if len(candidates) == 1:
        return candidates[0], ""
    if candidates:
        return None, _("Several events are called “%(event)s”; use the event's short name (%(slugs)s).") % {
            "event": text, "slugs": ", ".join(event.slug for event in candidates)}
    return None, _("Unknown event “%(event)s”.") % {"event": text}


def _field_problems(festival, values: dict) -> tuple[PlayerDetails | None, list[str]]:
    """The registration fields' rules (PlayerFields), so imported players meet the same standard; a
    child's row needs the guardian's name and contact (the organiser declares it holds the consent)."""
    form = PlayerFields(data=values, festival=festival)
    problems = []
    if values["name"].startswith(FORMULA_STARTS):
        problems.append(_("Name: a name cannot start with =, +, - or @ (it looks like a spreadsheet formula)."))
    if not form.is_valid():
        for name, errors in form.errors.items():
            label = form.fields[name].label if name in form.fields else ""
            problems.extend(f"{label}: {error}" if label else str(error) for error in errors)
    if problems:
        return None, problems
    return form.player_details(), []


def validate_rows(*, festival, rows: list[list]) -> list[RowReport]:
    """Every row's problems, in a constant number of queries.

    Problems: fields (missing name, bad contact, birth year outside 1900..this year, too long), unknown event,
    details that differ from the stored person's with the same name and contact (an import never changes a
    stored person), duplicate (earlier in the file, or already registered) and R9 time clashes (earlier in the
    file, or with the person's current registrations). A row is compared only with earlier rows that are valid, so the valid
    rows together can always be imported, and dropping the bad ones never makes a good one bad.
    """
    by_slug, by_name, by_pk = _resolve_events(festival)
    active = (
        Registration.objects.filter(event__festival=festival, status__in=Registration.ACTIVE)
        .values_list("player__name_key", "player__contact_key", "event_id")
    )
    entered: dict[tuple, list[tuple[Event, str]]] = {}  # person → events they are (or will be) in, and where
    for person_name, person_contact, event_id in active:
        entered.setdefault((person_name, person_contact), []).append((by_pk[event_id], ""))
    # Who each row is (services.identity): the stored person with its name and contact, never changed by a row
    # (differing details are a problem), or a person an earlier row of the file makes.
    people: dict[tuple, tuple[Player, str]] = {}
    for player in Player.objects.filter(festival=festival).exclude(contact_key="").order_by("-pk"):
        people[(player.name_key, player.contact_key)] = (player, "")
    taken = dict(
        festival.events.annotate(
            taken=Count("registrations", filter=Q(registrations__status=Registration.Status.REGISTERED))
        ).values_list("pk", "taken")
    )

    reports = []
    for line, *cells in rows:
        # Rows kept (`pending`) before the guardian's columns existed are shorter: those cells are empty.
        cells = (cells + [""] * len(IMPORT_COLUMNS))[:len(IMPORT_COLUMNS)]
        values = dict(zip(IMPORT_COLUMNS, cells, strict=True))
        report = RowReport(line=line, values=values)
        reports.append(report)
        report.event, event_problem = _find_event(values["event"], by_slug, by_name)
        report.details, report.problems = _field_problems(festival, values)
        if event_problem:
            report.problems.insert(0, event_problem)
        if not report.ok:
            continue
        person = person_key(festival, report.details.name, report.details.contact)
        known, made_in_row = people.get(person, (None, ""))
        labels = differences(known, report.details, festival.phone_region) if known else []
        if labels:
            report.problems.append(
                _("Same name and contact as row %(row)s, whose details differ (%(fields)s).")
                % {"row": made_in_row, "fields": ", ".join(labels)} if made_in_row
                else differences_message(known, labels))
        for other, where in entered.get(person, []):
            if other.pk == report.event.pk:
                report.problems.append(
                    _("Same person as row %(row)s for this event.") % {"row": where} if where
                    else _("Already registered for this event.")
                )
            elif other.overlaps(report.event):
                clash = {"event": other.name, "row": where}
                report.problems.append(
                    _("Runs at the same time as “%(event)s” (row %(row)s); a player cannot enter both (R9).") % clash
                    if where else
                    _("Already entered in “%(event)s”, which runs at the same time (R9).") % clash
                )
        if not report.ok:
            continue
        entered.setdefault(person, []).append((report.event, str(line)))
        if person[1] and person not in people:
            people[person] = (Player(festival=festival, name=report.details.name, **_stored(report.details)),
                              str(line))
        places_left = report.event.capacity - taken.get(report.event.pk, 0)
        report.outcome = Registration.Status.REGISTERED if places_left > 0 else Registration.Status.WAITLISTED
        taken[report.event.pk] = taken.get(report.event.pk, 0) + 1
    return reports


def _stored(details: PlayerDetails) -> dict:
    return {"birth_year": details.birth_year, "affiliation": details.affiliation, "ranking_id": details.ranking_id,
            "guardian_name": details.guardian_name, "guardian_contact": details.guardian_contact}


def fingerprint(reports: list[RowReport]) -> str:
    """Which rows were valid when the organiser looked: the confirm step imports exactly those or nothing."""
    valid = ",".join(str(report.line) for report in reports if report.ok)
    return hashlib.sha256(valid.encode()).hexdigest()[:32]
