"""The Django admin: where festivals and events are created and edited (for now), and where the records can
be looked up. Nothing is ever deleted: registrations change state through the organiser's pages and the desk,
and the audit log is read-only (DESIGN.md, "Data that must never be lost").

Superusers see everything. Organisers with admin access ("staff status") see and edit only the festivals
they are staff of, and those festivals' events and players.
"""

from django import forms
from django.contrib import admin
from django.contrib.admin.widgets import AdminTextInputWidget
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .forms.manage import RESERVED_EVENT_SLUGS
from .models import AuditEntry, Event, Festival, Player, Registration
from .models.fields import ListField
from .permissions import ORGANISER


def _organiser_festivals(user):
    """The festivals an admin user may manage (None = all of them)."""
    if user.is_superuser:
        return None
    if not (user.is_active and user.is_staff and user.groups.filter(name=ORGANISER).exists()):
        return Festival.objects.none()
    return Festival.objects.filter(staff=user)


class FestivalScopedAdmin(admin.ModelAdmin):
    """Organisers reach only their own festivals' rows; Django's model permissions still apply on top for others."""

    festival_lookup = "festival"  # from this model to its Festival
    # List settings are typed as comma text, in a box as wide as the admin's other text fields.
    formfield_overrides = {ListField: {"widget": AdminTextInputWidget}}

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        festivals = _organiser_festivals(request.user)
        if festivals is None:
            return queryset
        if self.festival_lookup == "":
            return queryset.filter(pk__in=festivals.values("pk"))
        return queryset.filter(**{f"{self.festival_lookup}__in": festivals})

    def _is_organiser(self, request) -> bool:
        festivals = _organiser_festivals(request.user)
        return festivals is not None and festivals.exists()

    def has_module_permission(self, request):
        return super().has_module_permission(request) or self._is_organiser(request)

    def has_view_permission(self, request, obj=None):
        # get_queryset already hides other festivals' rows, so a foreign id answers "not found".
        return super().has_view_permission(request, obj) or self._is_organiser(request)

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) or self._is_organiser(request)

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnlyAdmin(FestivalScopedAdmin):
    """Rows that only services write (registrations change state, the log is append-only): shown, never edited."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Festival)
class FestivalAdmin(FestivalScopedAdmin):
    festival_lookup = ""
    list_display = ["name", "starts_on", "ends_on", "venue", "timezone"]
    list_filter = ["starts_on", "timezone"]
    search_fields = ["name", "venue", "slug"]
    date_hierarchy = "starts_on"
    prepopulated_fields = {"slug": ["name"]}
    filter_horizontal = ["staff"]
    fieldsets = [
        (None, {"fields": ["name", "slug", "venue", "contact"]}),
        (_("Dates"), {"fields": ["starts_on", "ends_on", "timezone", "languages"]}),
        (_("Staff"), {"fields": ["staff"]}),
    ]

    def get_readonly_fields(self, request, obj=None):
        # Who works at a festival (and so which roles they hold there) is the site administrator's decision.
        return [] if request.user.is_superuser else ["staff"]


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
class EventAdmin(FestivalScopedAdmin):
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

    def has_add_permission(self, request):
        return super().has_add_permission(request) or self._is_organiser(request)

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
        if festival_id and str(festival_id).isdigit() and len(str(festival_id)) < 19:
            return Festival.objects.filter(pk=int(festival_id)).first()
        return None

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "festival":
            festivals = _organiser_festivals(request.user)
            if festivals is not None:
                kwargs["queryset"] = festivals
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(Player)
class PlayerAdmin(FestivalScopedAdmin):
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

    festival_lookup = "event__festival"
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
