"""Who works at a festival, and as what: one row per person and role (a person may hold several)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .festival import Festival


class StaffRole(models.Model):
    class Role(models.TextChoices):
        ORGANISER = "organiser", _("organiser")
        CHIEF_REFEREE = "chief referee", _("chief referee")
        REFEREE = "referee", _("referee")
        DESK = "desk", _("desk")

    festival = models.ForeignKey(Festival, on_delete=models.CASCADE, related_name="staff_roles",
                                 verbose_name=_("festival"))
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="staff_roles",
                             verbose_name=_("user"))
    role = models.CharField(_("role"), max_length=20, choices=Role.choices)
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["festival", "user", "role"]
        verbose_name = _("staff role")
        verbose_name_plural = _("staff roles")
        constraints = [models.UniqueConstraint(fields=["festival", "user", "role"], name="staff_role_unique")]

    def __str__(self) -> str:
        return f"{self.user} – {self.get_role_display()} ({self.festival})"


class StaffInvitation(models.Model):
    """A festival's invitation to work there in one role, made by one of its organisers.

    Nothing is granted until the invited person says yes: an existing account accepts when it next signs in
    (My work), a new person makes their own account from the link. The link's token is stored only as its
    hash; only this festival's organisers can renew it (a new token; the old link stops working).
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting for an answer")
        ACCEPTED = "accepted", _("accepted")
        DECLINED = "declined", _("declined")
        WITHDRAWN = "withdrawn", _("withdrawn")

    festival = models.ForeignKey(Festival, on_delete=models.CASCADE, related_name="invitations",
                                 verbose_name=_("festival"))
    role = models.CharField(_("role"), max_length=20, choices=StaffRole.Role.choices)
    # What the organiser typed (a username or an e-mail address), and its case-folded form for "the same again".
    identifier = models.CharField(_("username or e-mail"), max_length=254)
    identifier_key = models.CharField(max_length=254, editable=False)
    # The account the identifier named when the invitation was made; empty for someone without one yet.
    account = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True,
                                related_name="staff_invitations", verbose_name=_("account"))
    made_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                related_name="+", verbose_name=_("invited by"))
    made_at = models.DateTimeField(auto_now_add=True)
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    expires_at = models.DateTimeField(_("link valid until"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    answered_at = models.DateTimeField(null=True, blank=True)
    answered_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                    related_name="+")

    class Meta:
        ordering = ["festival", "-made_at"]
        verbose_name = _("staff invitation")
        verbose_name_plural = _("staff invitations")
        constraints = [
            models.UniqueConstraint(fields=["festival", "identifier_key", "role"], condition=models.Q(status="pending"),
                                    name="staff_invitation_one_pending"),
        ]

    def __str__(self) -> str:
        return f"{self.identifier} – {self.get_role_display()} ({self.festival})"

    def save(self, *args, **kwargs):
        self.identifier_key = self.identifier.strip().casefold()
        super().save(*args, **kwargs)
