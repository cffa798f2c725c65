"""Players and their registrations. Registrations change state; they are never deleted (DESIGN.md)."""

import secrets
import unicodedata

import phonenumbers
from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from .festival import Event, Festival


def new_token() -> str:
    # 192 bits: a personal link cannot be guessed or enumerated.
    return secrets.token_urlsafe(24)


def name_key(name: str) -> str:
    """The same name typed twice: width-folded (NFKC), case-folded, without spaces."""
    return "".join(unicodedata.normalize("NFKC", name).casefold().split())


def erased_contact_key(pk: int) -> str:
    """An erased player's identity key: unique like the contact's key was, derived from nothing personal."""
    return f"erased:{pk}"


def contact_key(contact: str, region: str | None = None) -> str:
    """The same contact however typed: an e-mail address case-folded; a phone number in E.164 ("+821044445555"),
    read in `region`'s numbering (the festival's country, Festival.phone_region) when typed without its country
    code; a number phonenumbers cannot read (no country code and no region) keeps only its digits."""
    contact = unicodedata.normalize("NFKC", contact).strip()
    if "@" in contact:
        return contact.casefold()
    try:
        number = phonenumbers.parse(contact, region)
    except phonenumbers.NumberParseException:
        return "".join(ch for ch in contact if ch.isdigit())
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def mask_contact(value: str) -> str:
    """Enough for the owner to recognise their own contact, too little for anyone else."""
    if "@" in value:
        local, _at, domain = value.partition("@")
        return f"{local[:2]}…@{domain}"
    return f"…{value[-4:]}" if len(value) > 4 else "…"


class Player(models.Model):
    """A person at one festival; they may enter several of its events."""

    festival = models.ForeignKey(Festival, on_delete=models.PROTECT, related_name="players", verbose_name=_("festival"))
    name = models.CharField(_("name"), max_length=100)
    name_key = models.CharField(max_length=100, editable=False, db_index=True)
    # Contact and birth year are erased after the festival's retention period (or on request): then empty / null.
    contact = models.CharField(_("e-mail or phone"), max_length=200)
    contact_key = models.CharField(max_length=200, editable=False)
    birth_year = models.PositiveSmallIntegerField(_("birth year"), null=True)
    affiliation = models.CharField(_("school or club"), max_length=200, blank=True)
    ranking_id = models.CharField(_("national ranking id"), max_length=40, blank=True)
    token = models.CharField(max_length=64, unique=True, default=new_token, editable=False)
    # A child's parent or guardian (below the festival's guardian age): erased with the contact.
    guardian_name = models.CharField(_("guardian's name"), max_length=100, blank=True)
    guardian_contact = models.CharField(_("guardian's e-mail or phone"), max_length=200, blank=True)
    # The player's own choices about public pages, and when their personal data was erased.
    shown_masked = models.BooleanField(_("show my name masked on public pages"), default=False)
    hidden_in_results = models.BooleanField(_("shown as a withdrawn player in public results"), default=False)
    # The separate agreement to give results to the festival's ranking body (Festival.ranking_recipient):
    # None when never asked, then nothing is given; changed by the player or guardian at any time.
    results_to_ranking = models.BooleanField(_("results given to the ranking body"), null=True, blank=True)
    results_to_ranking_at = models.DateTimeField(_("ranking agreement given or withdrawn"), null=True, blank=True)
    personal_data_erased_at = models.DateTimeField(_("personal data erased"), null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("player")
        verbose_name_plural = _("players")
        # Not unique: the public form never matches a stored person (several rows may be one person; the
        # organiser and the desk see them as possible duplicates, services.duplicates).
        indexes = [models.Index(fields=["festival", "name_key", "contact_key"], name="player_same_person")]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs):
        self.name_key = name_key(self.name)
        if self.personal_data_erased_at and self.pk and not self.contact:
            # Two erased players of one name must not look like one person by an empty key.
            self.contact_key = erased_contact_key(self.pk)
        else:
            self.contact_key = contact_key(self.contact, self.festival.phone_region)
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("player-page", kwargs={"token": self.token})

    @property
    def masked_contact(self) -> str:
        return mask_contact(self.contact)

    @property
    def masked_guardian_contact(self) -> str:
        return mask_contact(self.guardian_contact)


class Registration(models.Model):
    class Status(models.TextChoices):
        REGISTERED = "registered", _("Registered")
        WAITLISTED = "waitlisted", _("Waiting list")
        WITHDRAWN = "withdrawn", _("Withdrawn")

    ACTIVE = (Status.REGISTERED, Status.WAITLISTED)

    event = models.ForeignKey(Event, on_delete=models.PROTECT, related_name="registrations", verbose_name=_("event"))
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="registrations", verbose_name=_("player")
    )
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.REGISTERED)
    created_at = models.DateTimeField(_("registered at"), auto_now_add=True, db_index=True)
    # Waiting-list order: the time the player joined the current queue (re-registering queues again).
    queued_at = models.DateTimeField(_("in line since"), null=True, blank=True)
    number = models.PositiveIntegerField(_("player number"), null=True, blank=True)
    checked_in_at = models.DateTimeField(_("checked in at"), null=True, blank=True)
    checked_in_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    withdrawn_at = models.DateTimeField(_("withdrawn at"), null=True, blank=True)
    # When a waiting-list player got a place (a freed place or a late place): their page says so.
    promoted_at = models.DateTimeField(_("place from the waiting list at"), null=True, blank=True)
    # Seeded players are spread across tables by the draw (lower = stronger, e.g. national ranking).
    seed_rank = models.PositiveIntegerField(_("seed"), null=True, blank=True)

    # Consent to the festival's collection notice: which version, when, by whom and how. Empty on registrations
    # made before notices existed.
    class ConsentBy(models.TextChoices):
        PLAYER = "player", _("the player")
        GUARDIAN = "guardian", _("a parent or guardian")

    class ConsentHow(models.TextChoices):
        ONLINE = "online", _("on the registration form")
        PAPER = "paper", _("on a paper form at the desk")
        IMPORT = "import", _("held by the organiser (imported file)")

    # R9 under 15 in the event's year, stored when the birth year is erased so results do not change
    # afterwards; None while the birth year is there (the results compute it from the birth year).
    under_age = models.BooleanField(_("under 15 in the event's year"), null=True, blank=True, editable=False)

    consent_notice_version = models.PositiveIntegerField(_("collection notice version agreed"), null=True, blank=True)
    consented_at = models.DateTimeField(_("consent given at"), null=True, blank=True)
    consent_by = models.CharField(_("consent given by"), max_length=10, choices=ConsentBy.choices, blank=True)
    consent_how = models.CharField(_("consent given"), max_length=10, choices=ConsentHow.choices, blank=True)

    # A child's registration online is checked with the guardian (Korea's PIPA art. 22-2: the organiser checks
    # that the legal representative agreed; the child's own tick is not that): services.guardian. The status
    # machine is untouched: a place held for a child waiting for the guardian counts as taken.
    class GuardianCheck(models.TextChoices):
        NOT_NEEDED = "", _("not needed")
        WAITING = "waiting", _("waiting for the guardian")
        EMAIL = "email", _("by the e-mail link sent to the guardian")
        PAPER = "paper", _("on a paper form at the desk")

    guardian_check = models.CharField(_("guardian's agreement checked"), max_length=10, choices=GuardianCheck.choices,
                                      blank=True, default=GuardianCheck.NOT_NEEDED)
    guardian_checked_at = models.DateTimeField(_("guardian's agreement checked at"), null=True, blank=True)
    # The name the guardian typed on the link's page (or the guardian named on the form, for the desk's paper
    # form): personal data, erased with the guardian's details.
    guardian_checked_name = models.CharField(_("guardian who agreed"), max_length=100, blank=True)
    # The language the child's form was filled in: the guardian's e-mails are written in it.
    guardian_language = models.CharField(_("language of the guardian's e-mails"), max_length=10, blank=True)
    # Only the hash of the link's token is kept (the link itself is in the e-mail). The organiser's new link
    # replaces it; one the app sends (the place moved) keeps the link before it working too, so a guardian
    # agreeing at that very moment is not turned away.
    guardian_token_hash = models.CharField(max_length=64, blank=True, db_index=True, editable=False)
    guardian_previous_token_hash = models.CharField(max_length=64, blank=True, db_index=True, editable=False)
    guardian_link_sent_at = models.DateTimeField(_("guardian's link sent at"), null=True, blank=True)
    # While the child waits with a place: the place is held until then (the festival's guardian_hold_days),
    # then it goes to the next on the waiting list (services.guardian_release).
    guardian_held_until = models.DateTimeField(_("place held for the guardian until"), null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = _("registration")
        verbose_name_plural = _("registrations")
        constraints = [
            models.UniqueConstraint(fields=["event", "player"], name="registration_once_per_event"),
            models.UniqueConstraint(
                fields=["event", "number"], condition=models.Q(number__isnull=False), name="player_number_unique"
            ),
        ]
        indexes = [models.Index(fields=["event", "status"])]

    def __str__(self) -> str:
        return f"{self.player} – {self.event}"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def is_checked_in(self) -> bool:
        return self.checked_in_at is not None

    @property
    def waits_for_guardian(self) -> bool:
        return self.guardian_check == self.GuardianCheck.WAITING
