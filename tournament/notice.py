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


def default_sections(festival: Festival) -> list[tuple[str, str]]:
    values = {"name": festival.name, "contact": festival.contact or _("at the festival's desk"),
              "days": festival.retention_days, "age": festival.guardian_age}
    return [
        (_("Who collects your data"),
         _("The organisers of %(name)s (contact: %(contact)s) collect and use the personal data below.")
         % values),
        (_("Purpose of collection and use"),
         _("To run the festival's events: registration and the waiting list, check-in, player numbers and "
           "seating, results and standings, national ranking points (players under 15 earn none), and "
           "reaching you about this festival.")),
        (_("Data collected"),
         _("Name, e-mail or phone, birth year, school or club (optional), national ranking id (optional). For a "
           "player who may be younger than %(age)s on the festival's first day, also a parent's or guardian's "
           "name and contact, and the guardian's consent.") % values),
        (_("Who sees what"),
         _("Public pages, the hall display and printed lists show names (possibly shortened, as 김*준) and "
           "results. Contacts and birth years are never public: only the organisers and their staff at this "
           "festival see them, and they are not passed to anyone else.")),
        (_("How long it is kept"),
         _("Until %(days)s days after the festival's last event; then contacts, birth years and guardians' "
           "details are erased. Names and results stay as the record of the events.") % values),
        (_("Your right to refuse, and what follows"),
         _("You may refuse to agree. The name, a contact and the birth year are needed to run the events, so "
           "without your agreement you cannot register.")),
        (_("Access and correction"),
         _("You may ask to see, correct or erase your data: ask the organisers (%(contact)s).") % values),
    ]


def notice_for(festival: Festival) -> Notice:
    if festival.privacy_notice.strip():
        return Notice(version=festival.privacy_notice_version, text=festival.privacy_notice)
    return Notice(version=festival.privacy_notice_version, sections=default_sections(festival))
