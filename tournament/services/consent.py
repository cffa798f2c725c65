"""Consent to a festival's collection notice (Korea's PIPA, Hong Kong's PDPO), and a child's guardian.

Every way in (the public form, a walk-in at the desk, a file import) says who agreed and how; the registration
keeps that with the version of the notice agreed to. A child below the festival's guardian age registers with
a parent's or guardian's name, contact and consent, or not at all.
"""

from dataclasses import dataclass

from django.utils.translation import gettext as _

from ..models import Festival, Registration
from .errors import ServiceError


@dataclass(frozen=True)
class Consent:
    """Who agreed to the notice (Registration.ConsentBy) and how (Registration.ConsentHow). `notice_version`
    is the version the person read (the public form sends it back); None: the festival's current one.
    `language`: the one the form was read in (a child's guardian is written to in it, services.guardian)."""

    by: str
    how: str
    notice_version: int | None = None
    language: str = ""
    # The separate agreement to give results to the festival's ranking body; None: not asked (none named).
    ranking: bool | None = None


def needs_guardian(festival: Festival, birth_year: int | None) -> bool:
    """Whether a player born in `birth_year` may be younger than the festival's guardian age on its first day.

    A birth year alone cannot tell whether the birthday has passed, so the rule never lets a child through:
    born in year Y, the player is (first year − Y) or one less on the first day, so may be younger than N
    exactly when first year − Y − 1 < N, i.e. Y >= first year − N. (Born 2012, first day in 2026, N = 14: 14 or
    13, so a guardian is asked; born 2011: 15 or 14, not.) An unknown (erased) birth year asks nothing here.
    """
    if birth_year is None:
        return False
    return birth_year >= festival.starts_on.year - festival.guardian_age


def youngest_without_guardian(festival: Festival) -> int:
    """The latest birth year that registers without a guardian (for notes on the forms)."""
    return festival.starts_on.year - festival.guardian_age - 1


def guardian_refusal(festival: Festival) -> str:
    return _("Players who may be younger than %(age)s on the festival's first day (born in %(year)s or later) "
             "register with a parent's or guardian's consent: give the guardian's name and contact, and the "
             "guardian's agreement.") % {"age": festival.guardian_age, "year": youngest_without_guardian(festival) + 1}


def check_consent(*, festival: Festival, birth_year, guardian_name: str, guardian_contact: str,
                  consent: Consent) -> int:
    """Refuse a registration the notice does not cover; the notice version to store. `festival` is read fresh
    by the caller inside its transaction."""
    current = festival.privacy_notice_version
    if consent.notice_version is not None and consent.notice_version != current:
        raise ServiceError(_("The collection notice was changed while you were reading it. Please read it "
                             "again and agree to it."), code="notice_changed")
    if needs_guardian(festival, birth_year) and (
        consent.by != Registration.ConsentBy.GUARDIAN or not guardian_name or not guardian_contact
    ):
        raise ServiceError(guardian_refusal(festival), code="guardian")
    return current


FIELDS = ["consent_notice_version", "consented_at", "consent_by", "consent_how"]


def stamp(registration: Registration, *, consent: Consent, version: int, now) -> list[str]:
    """Store the consent on the registration (not saved); the fields to save."""
    registration.consent_notice_version = version
    registration.consented_at = now
    registration.consent_by = consent.by
    registration.consent_how = consent.how
    return FIELDS


def carry(registration: Registration, *, agreed: Registration) -> list[str]:
    """Store on the registration (not saved) the agreement another of the player's registrations gave to the
    same notice: its version, time, who and how. The fields to save."""
    for name in FIELDS:
        setattr(registration, name, getattr(agreed, name))
    return FIELDS


def stamp_ranking(player, *, agrees: bool | None, festival: Festival, now) -> list[str]:
    """Store on the player (not saved) the answer to the separate question about the ranking body, when the
    festival names one and the answer changes what is stored; the fields to save."""
    if agrees is None or not festival.ranking_recipient or player.results_to_ranking is agrees:
        return []
    player.results_to_ranking, player.results_to_ranking_at = agrees, now
    return ["results_to_ranking", "results_to_ranking_at"]


def ranking_answer(consent: Consent | None) -> dict:
    """The answer about the ranking body as the audit log keeps it beside the registration (empty: not asked)."""
    if consent is None or consent.ranking is None:
        return {}
    return {"results_to_ranking": consent.ranking}


def snapshot(registration: Registration) -> dict:
    """The consent as the audit log keeps it (no personal data)."""
    return {"notice_version": registration.consent_notice_version, "by": registration.consent_by,
            "how": registration.consent_how}
