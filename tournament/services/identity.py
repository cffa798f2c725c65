"""Which stored person a way in means (R9: one person, one event at a time).

- The public form never matches a stored person: it makes a new player holding exactly what was typed, so it
  answers alike whether or not someone with those details exists, and no stored person changes or shows.
  Only players whose personal links the browser already holds (`own_players`) are looked at: those are the
  person, so a clash or a second entry with their registrations is still refused.
- Staff ways in (the organiser's import, the desk's walk-in) take the festival's player with the same name and
  contact (`stored_person`), and never change them: details that differ are refused (`differences`).
- Several players may thus be one person: the organiser's list and the desk's search mark each as a possible
  duplicate of the others (`mark_possible_duplicates`), one query for a whole page. No merging.
"""

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, QuerySet
from django.utils.translation import gettext as _

from ..models import Festival, Player, Registration
from ..models.registration import contact_key, name_key
from .errors import ServiceError


def person_key(festival: Festival, name: str, contact: str) -> tuple[str, str]:
    """(name key, contact key) as Player.save computes them at this festival."""
    return name_key(name), contact_key(contact, festival.phone_region)


def _same_person(festival: Festival, name: str, contact: str):
    """The festival's players with this name and contact (a walk-in without a contact: this name and none; an
    erased player's key is their own, so they are never found)."""
    name_part, contact_part = person_key(festival, name, contact)
    return Player.objects.filter(festival=festival, name_key=name_part, contact_key=contact_part)


def own_players(*, festival: Festival, name: str, contact: str, tokens: Collection[str]) -> list[Player]:
    """The players with this name and contact whose personal links the caller already holds."""
    if not tokens:
        return []
    return list(_same_person(festival, name, contact).filter(token__in=list(tokens)))


def same_person(player: Player) -> list[Player]:
    """For staff: the festival's other players with `player`'s name and contact."""
    return list(_same_person(player.festival, player.name, player.contact).exclude(pk=player.pk))


def differences(player: Player, details, region: str | None) -> list[str]:
    """The stored details (labels) that `details` would change: the birth year, the guardian, and a school or
    club or ranking id given and not the stored one. Compared as keys (case, width, spaces, phone spellings)."""
    labels = []
    if details.birth_year != player.birth_year:
        labels.append(Player._meta.get_field("birth_year").verbose_name)
    if (name_key(details.guardian_name), contact_key(details.guardian_contact, region)) != (
            name_key(player.guardian_name), contact_key(player.guardian_contact, region)):
        labels.append(Player._meta.get_field("guardian_name").verbose_name)
    for field in ("affiliation", "ranking_id"):
        given = name_key(getattr(details, field))
        if given and given != name_key(getattr(player, field)):
            labels.append(Player._meta.get_field(field).verbose_name)
    return [str(label) for label in labels]


def differences_message(player: Player, labels: list[str]) -> str:
    return _("Same name and contact as player #%(id)s, whose details differ (%(fields)s). Nothing typed here "
             "changes a stored player: correct that player's details first, or give them as stored.") % {
        "id": player.pk, "fields": ", ".join(labels)}


def stored_person(*, festival: Festival, details) -> Player | None:
    """Staff ways in: the festival's (earliest) player with these name and contact, or None. Refused (code
    "details_differ") when the details given differ from the stored ones."""
    player = _same_person(festival, details.name, details.contact).order_by("pk").first()
    if player is not None:
        labels = differences(player, details, festival.phone_region)
        if labels:
            raise ServiceError(differences_message(player, labels), code="details_differ")
    return player


SAME_EVENT, SAME_TIME = "same event", "same time"


@dataclass(frozen=True)
class PossibleDuplicate:
    """Another player with the same name and contact, and the events they are entered in: (name, SAME_EVENT
    when it is the registration's own event, SAME_TIME when it runs at the same time, else "")."""

    player_id: int
    events: tuple[tuple[str, str], ...]

    @property
    def events_text(self) -> str:
        if not self.events:
            return _("no event now")
        words = {SAME_EVENT: _("this event"), SAME_TIME: _("%(event)s, at the same time")}
        return ", ".join(words[relation] % {"event": name} if relation else name for name, relation in self.events)


def flag_possible_duplicates(registrations: QuerySet) -> QuerySet:
    """Annotate `has_possible_duplicate`: whether another player of the festival has the registration's
    player's name and contact. In the list's own query, so `mark_possible_duplicates` costs nothing when no
    listed player has one."""
    others = (Player.objects.filter(festival_id=OuterRef("player__festival_id"), name_key=OuterRef("player__name_key"),
                                    contact_key=OuterRef("player__contact_key"))
              .exclude(pk=OuterRef("player_id")).exclude(contact=""))
    return registrations.annotate(has_possible_duplicate=Exists(others))


def mark_possible_duplicates(registrations: Iterable[Registration]) -> None:
    """Set `possible_duplicates` (a list of PossibleDuplicate) on each registration (its player loaded). At
    most one query, however many registrations: every registration of the players sharing a listed player's
    key; none when the list was flagged (`flag_possible_duplicates`) and no row has a duplicate."""
    registrations = list(registrations)
    keyed = [r for r in registrations
             if r.player.contact and getattr(r, "has_possible_duplicate", True)]
    for registration in registrations:
        registration.possible_duplicates = []
    if not keyed:
        return
    rows = (Player.objects
            .filter(festival_id__in={r.player.festival_id for r in keyed},
                    name_key__in={r.player.name_key for r in keyed},
                    contact_key__in={r.player.contact_key for r in keyed})
            .order_by("pk", "registrations__event__starts_at")
            .values_list("pk", "festival_id", "name_key", "contact_key", "registrations__event_id",
                         "registrations__event__name", "registrations__event__starts_at",
                         "registrations__event__ends_at", "registrations__status"))
    players: dict[tuple, dict[int, list]] = {}  # person key → player id → its active (event id, name, times)
    times = {}
    for pk, festival_id, name_part, contact_part, event_id, event_name, starts, ends, status in rows:
        entered = players.setdefault((festival_id, name_part, contact_part), {}).setdefault(pk, [])
        if event_id is not None:
            times[event_id] = (starts, ends)
            if status in Registration.ACTIVE:
                entered.append((event_id, event_name, starts, ends))
    for registration in keyed:
        player = registration.player
        starts, ends = times[registration.event_id]
        others = players.get((player.festival_id, player.name_key, player.contact_key), {})
        registration.possible_duplicates = [
            PossibleDuplicate(player_id=pk, events=tuple(
                (name, SAME_EVENT if event_id == registration.event_id
                 else SAME_TIME if other_starts < ends and other_ends > starts else "")
                for event_id, name, other_starts, other_ends in entered))
            for pk, entered in others.items() if pk != player.pk
        ]
