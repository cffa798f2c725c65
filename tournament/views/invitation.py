"""The invited person's side: the invitation link (accept, decline, or make an account) and the answers given
from My work. What the link allows is decided by services.invitations.link_allows, never by the page."""

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from ..forms.staff import FirstPasswordForm, InvitationForm, NewAccountForm
from ..models import StaffRole
from ..services import ServiceError, invitations
from ..services.invitations import LinkAllows

BACKEND = "django.contrib.auth.backends.ModelBackend"
ANSWERS = {"accept", "decline"}


def _accepted(request, invitation):
    messages.success(request, _("You now work at %(name)s as %(role)s.") % {
        "name": invitation.festival.name, "role": StaffRole.Role(invitation.role).label})
    return redirect("manage-home")


def _answer(request, invitation_id: int, answer: str, token: str | None = None):
    if answer == "accept":
        invitation = invitations.accept(invitation_id=invitation_id, user=request.user, token=token)
        return _accepted(request, invitation)
    invitation = invitations.decline(invitation_id=invitation_id, user=request.user, token=token)
    messages.info(request, _("You declined the invitation of %(name)s.") % {"name": invitation.festival.name})
    return redirect("manage-home")


@never_cache
@require_http_methods(["GET", "POST"])
def invitation_page(request, token):
    invitation = invitations.by_token(token)
    allows = invitations.link_allows(invitation, request.user)
    form, data = None, request.POST if request.method == "POST" else None
    if allows is LinkAllows.NEW_ACCOUNT:
        suggested = invitation.identifier.split("@")[0] if invitation else ""
        form = NewAccountForm(data, initial={"username": suggested})
    elif allows is LinkAllows.SET_PASSWORD:
        form = FirstPasswordForm(invitation.account, data)
    if allows is LinkAllows.SIGN_IN and request.method == "GET":
        return redirect_to_login(request.get_full_path())
    if request.method == "POST" and allows is not LinkAllows.NOTHING:
        try:
            if allows is LinkAllows.ANSWER and request.POST.get("answer") in ANSWERS:
                return _answer(request, invitation.pk, request.POST["answer"], token)
            if form is not None and form.is_valid():
                if allows is LinkAllows.NEW_ACCOUNT:
                    user = invitations.accept_as_new_account(
                        invitation_id=invitation.pk, username=form.cleaned_data["username"],
                        password=form.cleaned_data["password1"])
                else:
                    user = invitations.set_password_and_accept(invitation_id=invitation.pk,
                                                               password=form.cleaned_data["password1"])
                login(request, user, backend=BACKEND)
                return _accepted(request, invitation)
        except ServiceError as refusal:
            if form is None:
                messages.error(request, refusal.message)
                return redirect("manage-home")
            form.add_error(None, refusal.message)
    status = 200 if allows is not LinkAllows.NOTHING else 404
    if request.method == "POST" and allows is not LinkAllows.NOTHING:
        status = 400
    return render(request, "tournament/staff_invitation.html", {
        "invitation": invitation if allows is not LinkAllows.NOTHING else None, "allows": allows.value,
        "form": form, "login_url": f"{reverse('login')}?next={request.path}",
    }, status=status)


@never_cache
@require_POST
def answer_from_my_work(request):
    """Accept or decline an invitation addressed to the signed-in account (listed on My work)."""
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("manage-home"))
    form = InvitationForm(request.POST)
    answer = request.POST.get("answer")
    if not form.is_valid() or answer not in ANSWERS:
        messages.error(request, _("This invitation is no longer waiting for an answer."))
        return redirect("manage-home")
    try:
        return _answer(request, form.cleaned_data["invitation"], answer)
    except ServiceError as refusal:
        messages.error(request, refusal.message)
        return redirect("manage-home")


urlpatterns = [
    path("accounts/invitation/<str:token>/", invitation_page, name="staff-invitation"),
    path("accounts/invitations/answer/", answer_from_my_work, name="staff-invitation-answer"),
]
