"""The collection notice shown before registering: the organiser's own text, or the default one.

The default is written in the shape both laws expect, so its translations can use their headings: Korea's PIPA
(수집·이용 목적, 수집 항목, 보유 및 이용 기간, 동의를 거부할 권리 및 불이익) and Hong Kong's PDPO Personal
Information Collection Statement (收集目的, 資料轉移, 查閱及更正資料的權利). It follows the reader's language.
"""

from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from .models import Festival


@dataclass(frozen=True)
class Notice:
    version: int
    text: str = ""  # the organiser's own text; when empty, `sections`
    sections: list[tuple[str, str]] = field(default_factory=list)
    # The section on giving results to the ranking body, shown with the organiser's own text too: the separate
    # tick box on the forms refers to it. None when nothing leaves the organiser.
    third_party: tuple[str, str] | None = None


def third_party_section(festival: Festival) -> tuple[str, str] | None:
    """PIPA art. 17(2): who receives, why, what, how long they keep it, the right to refuse and what follows."""
    if not festival.ranking_recipient:
        return None
    return (_("Giving results to a third party"),
            _("Only with your separate agreement (the second tick box), the organisers give %(recipient)s your "
              "name, birth year, school or club, national ranking id, and your places and ranking points in this "
              "festival's events, so that your results count toward its ranking. %(recipient)s keeps them "
              "%(keeps)s. You may refuse: you still play and your results stay on this festival's pages, but they "
              "are not given and count toward no ranking. You may withdraw your agreement later from your "
              "personal page.") % {"recipient": festival.ranking_recipient, "keeps": festival.ranking_recipient_keeps})


def default_sections(festival: Festival) -> list[tuple[str, str]]:
    values = {"name": festival.name, "contact": festival.contact, "days": festival.retention_days,
              "age": festival.guardian_age}
    if festival.contact:
        who = _("The organisers of %(name)s (contact: %(contact)s) collect and use the personal data below.")
        ask = _("You may ask to see, correct or erase your data: ask the organisers (%(contact)s).")
    else:  # a festival saved before the form asked for a contact: it says none is given, never "the desk"
        who = _("The organisers of %(name)s collect and use the personal data below. They have not yet given a "
                "contact for questions about it.")
        ask = _("You may ask the organisers of %(name)s to see, correct or erase your data.")
    if festival.ranking_recipient:
        shared = _("Public pages, the hall display and printed lists show names (possibly shortened, as 김*준) and "
                   "results. Contacts and birth years are never public: only the organisers and their staff at "
                   "this festival see them. Nothing is passed to anyone else, except the results given for the "
                   "ranking with your separate agreement (below).")
    else:
        shared = _("Public pages, the hall display and printed lists show names (possibly shortened, as 김*준) and "
                   "results. Contacts and birth years are never public: only the organisers and their staff at "
                   "this festival see them, and they are not passed to anyone else.")
    return [
        (_("Who collects your data"), who % values),
        (_("Purpose of collection and use"),
         _("To run the festival's events: registration and the waiting list, check-in, player numbers and "
           "seating, results and standings, national ranking points (players under 15 earn none), and "
           "reaching you about this festival.")),
        (_("Data collected"),
         _("Name, e-mail or phone, birth year, school or club (optional), national ranking id (optional). For a "
           "player who may be younger than %(age)s on the festival's first day, also a parent's or guardian's "
           "name and contact, and the guardian's consent.") % values),
        (_("Who sees what"), shared),
        (_("How long it is kept"),
         _("Until %(days)s days after the festival's last event; then contacts, birth years and guardians' "
           "details are erased. Names and results stay as the record of the events.") % values),
        (_("Your right to refuse, and what follows"),
         _("You may refuse to agree. The name, a contact and the birth year are needed to run the events, so "
           "without your agreement you cannot register.")),
        (_("Access and correction"), ask % values),
    ]


def notice_for(festival: Festival) -> Notice:
    third_party = third_party_section(festival)
    if festival.privacy_notice.strip():
        return Notice(version=festival.privacy_notice_version, text=festival.privacy_notice, third_party=third_party)
    return Notice(version=festival.privacy_notice_version, sections=default_sections(festival),
                  third_party=third_party)
