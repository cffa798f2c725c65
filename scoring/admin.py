"""Read-only admin for score sheets and table links: sheets change only through the services (and their
audit log); nothing is ever deleted. Link tokens are secrets and are not shown."""

from django.contrib import admin

from .models import RefereeAssignment, ScoreSheet, SheetSeat, TableLink


class ReadOnlyMixin:
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class SheetSeatInline(ReadOnlyMixin, admin.TabularInline):
    model = SheetSeat
    fields = ["position", "registration", "went_out", "tiles", "rack_value", "jokers", "opened", "could_open",
              "conduct_penalty", "penalty", "score", "win"]
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(ScoreSheet)
class ScoreSheetAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["stage", "game", "table_number", "version", "status", "submitted_via", "submitted_at",
                    "decided_by", "decided_at"]
    list_filter = ["status", "stage__event"]
    list_select_related = ["stage__event", "decided_by"]
    search_fields = ["stage__event__name", "submitted_via"]
    exclude = ["idempotency_key"]
    inlines = [SheetSeatInline]


@admin.register(TableLink)
class TableLinkAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["event", "table_number", "created_at", "revoked_at"]
    list_filter = ["event"]
    list_select_related = ["event"]
    fields = ["event", "table_number", "created_at", "revoked_at"]
    readonly_fields = fields


@admin.register(RefereeAssignment)
class RefereeAssignmentAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["event", "table_number", "referee", "assigned_at", "ended_at", "stage"]
    list_filter = ["event"]
    list_select_related = ["event", "referee", "stage"]
