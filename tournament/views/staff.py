"""The organiser's staff page: who works at the festival and as what; add, remove, set-password links."""

from itertools import groupby

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from ..forms.staff import AddStaffForm, StaffPersonForm, StaffRoleForm
from ..models import StaffRole
from ..permissions import ORGANISER
from ..qr import qr_svg
from ..services import ServiceError
from ..services import staff as staff_service
from ..services.audit import Actor
from .helpers import form_errors, run_service, staff_view

organiser_view = staff_view(ORGANISER, home="manage-staff")


def _page_url(festival) -> str:
    return reverse("manage-staff", kwargs={"festival": festival.slug})


def _people(festival) -> list[dict]:
    rows = StaffRole.objects.filter(festival=festival).select_related("user").order_by("user__username", "role")
    people = []
    for user, roles in groupby(rows, key=lambda row: row.user):
        people.append({"user": user, "roles": [row.role for row in roles],
                       "needs_password": not user.has_usable_password()})
    return people


def _render(request, festival, form=None, status=200):
    return render(request, "tournament/manage/staff.html", {
        "festival": festival, "people": _people(festival), "form": form or AddStaffForm(),
        "role_choices": StaffRole.Role.choices,
    }, status=status)


def _password_link(request, festival, user):
    """A page with the one-time link (and QR) for an account made here: shown once, never stored."""
    url = request.build_absolute_uri(staff_service.set_password_path(festival=festival, user=user))
    return render(request, "tournament/manage/staff_link.html", {
        "festival": festival, "person": user, "url": url, "qr": qr_svg(url, title=user.get_username()),
    })


@never_cache
@require_GET
@organiser_view
def staff_page(request, festival):
    return _render(request, festival)


@never_cache
@require_POST
@organiser_view
def staff_add(request, festival):
    form = AddStaffForm(request.POST)
    if not form.is_valid():
        return _render(request, festival, form, status=400)
    try:
        added = staff_service.add_staff(festival=festival, identifier=form.cleaned_data["identifier"],
                                        role=form.cleaned_data["role"], actor=Actor.of(request))
    except ServiceError as refusal:
        form.add_error("identifier", refusal.message)
        return _render(request, festival, form, status=400)
    if added.account_created:
        return _password_link(request, festival, added.user)
    messages.success(request, _("%(user)s now works here as %(role)s.") % {
        "user": added.user.get_username(), "role": StaffRole.Role(added.role).label})
    return redirect(_page_url(festival))


@never_cache
@require_POST
@organiser_view
def staff_remove(request, festival):
    form = StaffRoleForm(request.POST)
    if not form.is_valid():
        messages.error(request, form_errors(form))
        return redirect(_page_url(festival))
    row = StaffRole.objects.filter(festival=festival, user_id=form.cleaned_data["user"]).select_related("user").first()
    if row is None:
        messages.error(request, _("This person does not work at this festival."))
        return redirect(_page_url(festival))
    person, role = row.user, form.cleaned_data["role"]
    return run_service(
        request,
        lambda: staff_service.remove_role(festival=festival, user=person, role=role, actor=Actor.of(request)),
        done=_("%(user)s no longer works here as %(role)s; what that role opened is closed now.") % {
            "user": person.get_username(), "role": StaffRole.Role(role).label},
        then=_page_url(festival),
    )


@never_cache
@require_POST
@organiser_view
def staff_password_link(request, festival):
    form = StaffPersonForm(request.POST)
    row = (StaffRole.objects.filter(festival=festival, user_id=form.cleaned_data["user"]).select_related("user").first()
           if form.is_valid() else None)
    if row is None:
        messages.error(request, _("This person does not work at this festival."))
        return redirect(_page_url(festival))
    try:
        return _password_link(request, festival, row.user)
    except ServiceError as refusal:
        messages.error(request, refusal.message)
        return redirect(_page_url(festival))


urlpatterns = [
    path("<slug:festival>/staff/", staff_page, name="manage-staff"),
    path("<slug:festival>/staff/add/", staff_add, name="manage-staff-add"),
    path("<slug:festival>/staff/remove/", staff_remove, name="manage-staff-remove"),
    path("<slug:festival>/staff/password-link/", staff_password_link, name="manage-staff-link"),
]
