"""Small forms for the organiser's pages: each one parses one request, the service does the work."""

from django import forms
from django.utils.translation import gettext_lazy as _

from ..models import Event, Registration

# Ids arrive from the browser; anything beyond a 64-bit key is refused before it reaches the database.
MAX_ID = 2**63 - 1


class CheckinOverrideForm(forms.Form):
    """'Close now', 'Reopen' or 'Follow the schedule'. The schedule is spelt out because its stored value is ''."""

    SCHEDULE = "schedule"
    CHOICES = [
        (Event.CheckinOverride.CLOSED, _("Close check-in now")),
        (Event.CheckinOverride.OPEN, _("Reopen check-in")),
        (SCHEDULE, _("Follow the schedule")),
    ]
    checkin = forms.ChoiceField(
        choices=CHOICES,
        error_messages={
            "invalid_choice": _("Unknown check-in setting."),
            "required": _("Choose a check-in setting."),
        },
    )

    # Reopening after numbering: clear every number and number everyone afresh (else numbers are kept).
    renumber = forms.BooleanField(required=False)

    def clean_checkin(self) -> str:
        value = self.cleaned_data["checkin"]
        return Event.CheckinOverride.SCHEDULE if value == self.SCHEDULE else value


class NumberingForm(forms.Form):
    method = forms.ChoiceField(
        label=_("Numbering"),
        choices=Event.Numbering.choices,
        widget=forms.RadioSelect,
        error_messages={
            "invalid_choice": _("Unknown numbering method."),
            "required": _("Choose how to number the players."),
        },
    )


class RegistrationPickForm(forms.Form):
    """An active registration of this event, chosen by id (anything else is refused with a message)."""

    registration = forms.IntegerField(
        min_value=1,
        max_value=MAX_ID,
        widget=forms.HiddenInput,
        error_messages={
            "required": _("Choose a registration."),
            "invalid": _("There is no such registration in this event."),
            "min_value": _("There is no such registration in this event."),
            "max_value": _("There is no such registration in this event."),
        },
    )

    def __init__(self, *args, event: Event, **kwargs):
        super().__init__(*args, **kwargs)
        self.event = event

    def clean_registration(self) -> Registration:
        registration = (
            Registration.objects.select_related("player")
            .filter(event=self.event, pk=self.cleaned_data["registration"])
            .first()
        )
        if registration is None:
            raise forms.ValidationError(_("There is no such registration in this event."), code="unknown")
        if not registration.is_active:
            raise forms.ValidationError(
                _("%(name)s has already withdrawn.") % {"name": registration.player.name}, code="withdrawn"
            )
        return registration


class WithdrawForm(RegistrationPickForm):
    reason = forms.CharField(
        label=_("Reason"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Kept in the audit log, e.g. “phoned to say she is ill”."),
        error_messages={"required": _("Give a reason for the withdrawal.")},
    )


class RegistrationFilterForm(forms.Form):
    """The registrations table: which ones, in what order. Unknown values fall back to the defaults."""

    CHECKED_IN = "checked_in"
    MISSING = "missing"
    GUARDIAN = "guardian"
    SHOW_CHOICES = [
        ("", _("All")),
        *Registration.Status.choices,
        (CHECKED_IN, _("Checked in")),
        (MISSING, _("Registered, not checked in")),
        (GUARDIAN, _("Waiting for the guardian")),
    ]
    ORDER_CHOICES = [("order", _("Registration order")), ("name", _("Name"))]

    status = forms.ChoiceField(label=_("Show"), choices=SHOW_CHOICES, required=False)
    sort = forms.ChoiceField(label=_("Sort by"), choices=ORDER_CHOICES, required=False)

    def filter(self, registrations):
        self.is_valid()  # an unknown value in one field leaves the other field's choice in cleaned_data
        data = self.cleaned_data
        status = data.get("status", "")
        if status in Registration.Status.values:
            registrations = registrations.filter(status=status)
        elif status == self.CHECKED_IN:
            registrations = registrations.filter(
                status=Registration.Status.REGISTERED, checked_in_at__isnull=False
            )
        elif status == self.MISSING:
            registrations = registrations.filter(
                status=Registration.Status.REGISTERED, checked_in_at__isnull=True
            )
        elif status == self.GUARDIAN:
            registrations = registrations.filter(guardian_check=Registration.GuardianCheck.WAITING,
                                                 status__in=Registration.ACTIVE)
        if data.get("sort") == "name":
            return registrations.order_by("player__name", "id")
        return registrations.order_by("created_at", "id")
