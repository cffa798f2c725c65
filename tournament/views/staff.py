"""The organiser's staff page: who works at the festival and as what, the invitations waiting for an answer;
invite, renew or withdraw an invitation, remove a role."""

from itertools import groupby

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from ..forms.staff import InvitationForm, InviteStaffForm, StaffPersonForm, StaffRoleForm
from ..models import StaffInvitation, StaffRole
from ..permissions import ORGANISER
from ..qr import qr_svg
from ..services import ServiceError, invitations
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
                       "never_signed_in": not user.has_usable_password()})
    return people


def _waiting(festival) -> list[StaffInvitation]:
    return list(StaffInvitation.objects.filter(festival=festival, status=StaffInvitation.Status.PENDING)
                .select_related("made_by").order_by("made_at"))


def _render(request, festival, form=None, status=200):
    return render(request, "tournament/manage/staff.html", {
        "festival": festival, "people": _people(festival), "invitations": _waiting(festival),
        "form": form or InviteStaffForm(), "now": timezone.now(),
    }, status=status)


def _link_page(request, festival, invited: invitations.Invited):
    """The invitation's link (and QR), shown once to the organiser: the token is stored only as a hash. The
    page reads the same whether or not the person already has an account."""
    url = request.build_absolute_uri(reverse("staff-invitation", kwargs={"token": invited.token}))
    invitation = invited.invitation
    return render(request, "tournament/manage/staff_link.html", {
        "festival": festival, "invitation": invitation, "url": url,
        "qr": qr_svg(url, title=invitation.identifier),
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
    form = InviteStaffForm(request.POST)
    if not form.is_valid():
        return _render(request, festival, form, status=400)
    try:
        invited = invitations.invite(festival=festival, identifier=form.cleaned_data["identifier"],
                                     role=form.cleaned_data["role"], actor=Actor.of(request))
    except ServiceError as refusal:
        form.add_error("identifier", refusal.message)
        return _render(request, festival, form, status=400)
    return _link_page(request, festival, invited)


def _invitation_action(request, festival, action):
    form = InvitationForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("This invitation is no longer waiting for an answer."))
        return redirect(_page_url(festival))
    try:
        return action(form.cleaned_data["invitation"])
    except ServiceError as refusal:
        messages.error(request, refusal.message)
        return redirect(_page_url(festival))


@never_cache
@require_POST
@organiser_view
def staff_renew(request, festival):
    return _invitation_action(request, festival, lambda pk: _link_page(
        request, festival, invitations.renew(festival=festival, invitation_id=pk, actor=Actor.of(request))))


@never_cache
@require_POST
@organiser_view
def staff_withdraw(request, festival):
    def withdraw(pk):
        invitation = invitations.withdraw(festival=festival, invitation_id=pk, actor=Actor.of(request))
        messages.success(request, _("The invitation for %(user)s is withdrawn; its link no longer works.") % {
            "user": invitation.identifier})
        return redirect(_page_url(festival))

    return _invitation_action(request, festival, withdraw)


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
    """For an account this festival made before invitations existed, whose password was never set."""
    form = StaffPersonForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("This person does not work at this festival."))
        return redirect(_page_url(festival))
    try:
        invited = invitations.invite_to_set_password(festival=festival, user_id=form.cleaned_data["user"],
                                                     actor=Actor.of(request))
    except ServiceError as refusal:
        messages.error(request, refusal.message)
        return redirect(_page_url(festival))
    return _link_page(request, festival, invited)


urlpatterns = [
    path("<slug:festival>/staff/", staff_page, name="manage-staff"),
    path("<slug:festival>/staff/add/", staff_add, name="manage-staff-add"),
    path("<slug:festival>/staff/renew/", staff_renew, name="manage-staff-renew"),
    path("<slug:festival>/staff/withdraw/", staff_withdraw, name="manage-staff-withdraw"),
    path("<slug:festival>/staff/remove/", staff_remove, name="manage-staff-remove"),
    path("<slug:festival>/staff/password-link/", staff_password_link, name="manage-staff-link"),
]
