"""The player's own choices from their personal page (the token link): to be shown with a masked name on public
pages, or not (tournament/public_names.py decides what the public sees); to give their results to the festival's
ranking body, or not (services.ranking_consent)."""

from django.contrib import messages
from django.shortcuts import redirect
from django.utils.translation import gettext as _

from tournament.forms.public_name import MaskedNameForm, RankingAgreementForm
from tournament.services.errors import ServiceError
from tournament.services.public_name import set_shown_masked
from tournament.services.ranking_consent import set_results_to_ranking

from .personal import _actor, _player, refused_to_staff


def public_name(request, token):
    player = _player(token)
    if request.method != "POST":
        return redirect(player.get_absolute_url())
    if refused_to_staff(request, player):
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


def results_to_ranking(request, token):
    player = _player(token)
    if request.method != "POST":
        return redirect(player.get_absolute_url())
    if refused_to_staff(request, player):
        return redirect(player.get_absolute_url())
    form = RankingAgreementForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose to agree or to withdraw. Nothing was changed."))
        return redirect(player.get_absolute_url())
    agrees = form.cleaned_data["agrees"]
    try:
        set_results_to_ranking(player=player, agrees=agrees, actor=_actor(request))
    except ServiceError as refusal:
        messages.error(request, refusal.message)
    else:
        said = _("Your results will be given to %(recipient)s.") if agrees else _(
            "Your results will not be given to %(recipient)s.")
        messages.success(request, said % {"recipient": player.festival.ranking_recipient})
    return redirect(player.get_absolute_url() + "#results-to-ranking")
