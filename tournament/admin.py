"""The Django admin: the site administrator's (superuser's) window on the records. Organisers never need it:
festivals, events and staff are managed in the app. Nothing is ever deleted: registrations change state
through the organiser's pages and the desk, and the audit log is read-only (DESIGN.md, "Data that must
never be lost").
"""

from django import forms
from django.contrib import admin
from django.contrib.admin.widgets import AdminTextInputWidget
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .models import AuditEntry, Event, Festival, Player, Registration, StaffRole
from .models.fields import ListField
from .slugs import RESERVED_EVENT_SLUGS


class RecordAdmin(admin.ModelAdmin):
    """Nothing is deleted here; list settings are typed as comma text, as wide as the other text fields."""

    formfield_overrides = {ListField: {"widget": AdminTextInputWidget}}

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnlyAdmin(RecordAdmin):
    """Rows that only services write (registrations change state, the log is append-only): shown, never edited."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class StaffRoleInline(admin.TabularInline):
    model = StaffRole
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Festival)
class FestivalAdmin(RecordAdmin):
    list_display = ["name", "starts_on", "ends_on", "venue", "timezone"]
    list_filter = ["starts_on", "timezone"]
    search_fields = ["name", "venue", "slug"]
    date_hierarchy = "starts_on"
    prepopulated_fields = {"slug": ["name"]}
    inlines = [StaffRoleInline]
    fieldsets = [
        (None, {"fields": ["name", "slug", "venue", "contact"]}),
        (_("Dates"), {"fields": ["starts_on", "ends_on", "timezone", "languages"]}),
    ]


class EventAdminForm(forms.ModelForm):
    class Meta:
        model = Event
        fields = [
            "festival",
            "name",
            "slug",
            "game",
            "format",
            "ruleset",
            "capacity",
            "starts_at",
            "ends_at",
            "registration_opens_at",
            "registration_closes_at",
            "withdrawal_deadline",
            "checkin_opens_at",
            "checkin_closes_at",
            "numbering",
        ]

    def clean_slug(self):
        slug = self.cleaned_data["slug"]
        if slug in RESERVED_EVENT_SLUGS:
            raise forms.ValidationError(
                _("“%(slug)s” is used by the organiser's pages; choose another."), params={"slug": slug}
            )
        return slug


@admin.register(Event)
class EventAdmin(RecordAdmin):
    form = EventAdminForm
    list_display = [
        "name",
        "festival",
        "starts_at",
        "game",
        "format",
        "capacity",
        "checkin_override",
        "numbers_assigned_at",
    ]
    list_filter = [("festival", admin.RelatedOnlyFieldListFilter), "game", "format", "ruleset"]
    list_select_related = ["festival"]
    search_fields = ["name", "slug", "festival__name"]
    date_hierarchy = "starts_at"
    prepopulated_fields = {"slug": ["name"]}
    # Check-in state and numbers change only through the organiser's page, which keeps the audit log and
    # refuses to reopen check-in after numbering (R8.2).
    readonly_fields = ["checkin_override", "numbering_seed", "numbers_assigned_at"]
    fieldsets = [
        (None, {"fields": ["festival", "name", "slug", "game", "format", "ruleset", "capacity"]}),
        (
            _("Play"),
            {
                "fields": ["starts_at", "ends_at"],
                "description": _("All times are in the festival's time zone."),
            },
        ),
        (
            _("Registration and withdrawal"),
            {"fields": ["registration_opens_at", "registration_closes_at", "withdrawal_deadline"]},
        ),
        (
            _("Check-in"),
            {
                "fields": ["checkin_opens_at", "checkin_closes_at", "checkin_override"],
                "description": _("Close early or reopen on the organiser's page of the event."),
            },
        ),
        (_("Player numbers"), {"fields": ["numbering", "numbers_assigned_at", "numbering_seed"]}),
    ]

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        """Show and read the times in the festival's own time zone (a Hong Kong event in Hong Kong time).

        The admin renders its response lazily, so it is rendered here, inside the time zone.
        """
        festival = self._festival_of(request, object_id)
        if festival is None:
            return super().changeform_view(request, object_id, form_url, extra_context)
        with timezone.override(festival.tzinfo):
            response = super().changeform_view(request, object_id, form_url, extra_context)
            if hasattr(response, "render"):
                response.render()
        return response

    def _festival_of(self, request, object_id):
        if object_id:
            event = self.get_object(request, object_id)
            return event.festival if event else None
        festival_id = request.POST.get("festival") or request.GET.get("festival")
        if festival_id and str(festival_id).isdecimal() and len(str(festival_id)) < 19:
            return Festival.objects.filter(pk=int(festival_id)).first()
        return None


@admin.register(Player)
class PlayerAdmin(RecordAdmin):
    list_display = ["name", "festival", "birth_year", "affiliation", "ranking_id", "created_at"]
    list_filter = [("festival", admin.RelatedOnlyFieldListFilter), "birth_year"]
    list_select_related = ["festival"]
    search_fields = ["name", "affiliation", "ranking_id", "contact"]
    readonly_fields = ["festival", "created_at"]
    fields = ["festival", "name", "contact", "birth_year", "affiliation", "ranking_id", "created_at"]

    def has_add_permission(self, request):
        # Players come in through registration or import, which check clashes and duplicates.
        return False


@admin.register(Registration)
class RegistrationAdmin(ReadOnlyAdmin):
    """Read-only: withdrawals go through the organiser's page, check-ins through the desk (both audited)."""

    list_display = ["player", "event", "status", "number", "created_at", "checked_in_at", "withdrawn_at"]
    list_filter = ["status", ("event", admin.RelatedOnlyFieldListFilter)]
    list_select_related = ["player", "event"]
    search_fields = ["player__name", "player__affiliation"]
    date_hierarchy = "created_at"
    fields = list_display[:2] + [
        "status",
        "number",
        "created_at",
        "queued_at",
        "checked_in_at",
        "checked_in_by",
        "withdrawn_at",
    ]
    readonly_fields = fields


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    list_display = [
        "at",
        "actor",
        "actor_label",
        "action",
        "festival",
        "event",
        "target_type",
        "target_id",
        "reason",
    ]
    list_filter = ["action", ("festival", admin.RelatedOnlyFieldListFilter)]
    list_select_related = ["actor", "festival", "event"]
    search_fields = ["action", "reason", "actor__username", "actor_label"]
    date_hierarchy = "at"
    fields = [
        "at",
        "actor",
        "actor_label",
        "action",
        "festival",
        "event",
        "target_type",
        "target_id",
        "before",
        "after",
        "reason",
    ]
    readonly_fields = fields
