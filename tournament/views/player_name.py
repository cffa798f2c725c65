"""From their personal page (the token link) a player asks to be shown with a masked name on public pages, or
takes it back (tournament/public_names.py decides what the public sees)."""

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import path
from django.utils.translation import gettext as _

from ..forms.public_name import MaskedNameForm
from ..services.public_name import set_shown_masked
from .player import _actor, _player


def public_name(request, token):
    player = _player(token)
    if request.method != "POST":
        return redirect(player.get_absolute_url())
    form = MaskedNameForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose masked or in full. Nothing was changed."))
        return redirect(player.get_absolute_url())
    masked = form.cleaned_data["masked"]
    set_shown_masked(player=player, masked=masked, actor=_actor(request))
    messages.success(request, _("Public pages now show your name masked.") if masked else
                     _("Public pages now show your name as the event shows names."))
    return redirect(player.get_absolute_url() + "#public-name")


urlpatterns = [
    path("<str:token>/name/", public_name, name="player-public-name"),
]
