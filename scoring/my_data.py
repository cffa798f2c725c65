"""Everything the app holds about one player, for their "Download my data" (JSON).

Their player record, their registrations with the consent they gave, their results, conduct records and the
audit entries about them — without other people's data: who acted is said only as "staff" or the link used,
never an account's name, and other players are not named.
"""

from django.db.models import Q
from django.utils import timezone

from tournament.models import AuditEntry, ConductRecord, Player
from tournament.services.erasure import erasure_due
from tournament.visibility import visibility

from .results.event import results_for_events

SCHEMA = "rummikub-my-data/1"


def _iso(value):
    return value.isoformat() if value is not None else None


def my_data(player: Player, *, page_url: str = "") -> dict:
    """A constant number of queries, however many events the player entered."""
    festival = player.festival
    registrations = list(player.registrations.select_related("event__festival").order_by("event__starts_at", "pk"))
    shown = [r.event for r in registrations if visibility(r.event).results]
    results = results_for_events(shown, conduct=True) if shown else {}
    rows = {}
    for event_results in results.values():
        for row in event_results.rows:
            if row.registration.player_id == player.pk:
                rows[row.registration.pk] = (event_results, row)
    conduct = {}
    for c in ConductRecord.objects.filter(registration__in=registrations).select_related("stage").order_by("created_at"):
        conduct.setdefault(c.registration_id, []).append(
            {"kind": c.kind, "stage": c.stage.number if c.stage else None, "game": c.game, "note": c.note,
             "at": _iso(c.created_at)})
    audit = AuditEntry.objects.filter(
        Q(target_type="player", target_id=player.pk)
        | Q(target_type="registration", target_id__in=[r.pk for r in registrations])).order_by("at", "pk")
    return {
        "schema": SCHEMA,
        "generated_at": _iso(timezone.now()),
        "festival": {"slug": festival.slug, "name": festival.name, "starts_on": festival.starts_on.isoformat(),
                     "ends_on": festival.ends_on.isoformat(), "organiser_contact": festival.contact,
                     "retention_days": festival.retention_days, "ranking_recipient": festival.ranking_recipient,
                     "personal_data_erased_by": _iso(erasure_due(festival))},
        "player": {
            "name": player.name, "contact": player.contact, "birth_year": player.birth_year,
            "affiliation": player.affiliation, "ranking_id": player.ranking_id,
            "guardian_name": player.guardian_name, "guardian_contact": player.guardian_contact,
            "shown_masked": player.shown_masked, "hidden_in_results": player.hidden_in_results,
            "results_to_ranking": player.results_to_ranking, "results_to_ranking_at": _iso(player.results_to_ranking_at),
            "personal_data_erased_at": _iso(player.personal_data_erased_at), "created_at": _iso(player.created_at),
            "personal_page": page_url,
        },
        "registrations": [_registration(r, rows.get(r.pk), conduct.get(r.pk, [])) for r in registrations],
        "audit": [{"at": _iso(e.at), "action": e.action, "by": "staff" if e.actor_id else e.actor_label,
                   "target": e.target_type, "before": e.before, "after": e.after, "reason": e.reason}
                  for e in audit],
    }


def _registration(r, result, conduct) -> dict:
    out = {
        "event": r.event.slug, "event_name": r.event.name, "starts_at": _iso(r.event.starts_at),
        "status": r.status, "number": r.number, "registered_at": _iso(r.created_at),
        "in_line_since": _iso(r.queued_at), "promoted_at": _iso(r.promoted_at),
        "checked_in_at": _iso(r.checked_in_at), "withdrawn_at": _iso(r.withdrawn_at), "seed": r.seed_rank,
        "consent": {"notice_version": r.consent_notice_version, "at": _iso(r.consented_at), "by": r.consent_by,
                    "how": r.consent_how},
        # A child's guardian's agreement as the organiser checked it: waiting, "email" (the link) or "paper".
        "guardian_agreement": {"check": r.guardian_check, "at": _iso(r.guardian_checked_at),
                               "name": r.guardian_checked_name, "held_until": _iso(r.guardian_held_until),
                               "link_sent_at": _iso(r.guardian_link_sent_at)},
        "conduct": conduct,
        "result": None,
    }
    if result is not None:
        results, row = result
        out["result"] = {"final": results.final, "place": row.place, "shared": row.shared, "wins": row.wins,
                         "games": row.games, "total": str(row.total), "ranking_points": str(row.ranking_points),
                         "under_15_no_points": row.under_age}
    return out
