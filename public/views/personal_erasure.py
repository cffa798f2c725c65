"""A player erases their personal data from their personal page: a confirmation page, then a POST.

Before an event that is a withdrawal too (services.erasure.erase_player). The token link is the only key, as
on the personal page itself; no JavaScript needed.
"""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache

from tournament.forms.registration import EraseMyDataForm
from tournament.services.erasure import erase_player

from .personal import player_actor, player_from_token, refused_to_staff


@never_cache
def player_erase(request, token):
    player = player_from_token(token)
    if refused_to_staff(request, player):
        return redirect(player.get_absolute_url())
    now = timezone.now()
    registrations = list(player.registrations.select_related("event").order_by("event__starts_at", "pk"))
    withdrawing = [r for r in registrations if r.is_active and r.event.starts_at > now]
    form = EraseMyDataForm(request.POST if request.method == "POST" else None)
    if request.method == "POST":
        if form.is_valid():
            erasure = erase_player(player=player, hide_in_results=form.cleaned_data["hide_in_results"],
                                   actor=player_actor(request), now=now)
            if erasure is None:
                messages.info(request, _("Your personal data was already erased. Nothing was changed."))
            else:
                messages.success(request, _("Your contact, birth year and guardian's details are erased."))
            return redirect(player.get_absolute_url())
        messages.error(request, _("Tick “Yes, erase my data” to confirm. Nothing was changed."))
    return render(request, "tournament/player_erase.html", {
        "player": player, "festival": player.festival, "form": form, "withdrawing": withdrawing,
    }, status=400 if form.is_bound else 200)
