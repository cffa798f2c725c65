"""A player's separate agreement to give their results to the festival's ranking body (Festival.ranking_recipient;
PIPA art. 17 제3자 제공, PDPO 資料轉移). Given on the registration form, the guardian's page or the desk's paper
form (services.consent.stamp_ranking); changed here from the personal page. Only players who agreed are in the
ranking file (scoring/ranking_file.py)."""

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..models import Festival, Player
from .audit import Actor, record
from .consent import needs_guardian, stamp_ranking
from .errors import ServiceError
from .locking import lock_player


def set_results_to_ranking(*, player: Player, agrees: bool, actor: Actor, now=None) -> Player:
    """The player agrees, or withdraws the agreement. A child's agreement is the guardian's (on the form or the
    guardian's page), so a child may only withdraw it here."""
    now = now or timezone.now()
    with transaction.atomic():
        player = lock_player(player)
        festival = Festival.objects.get(pk=player.festival_id)
        if not festival.ranking_recipient:
            raise ServiceError(_("This festival gives results to no ranking body."), code="no_recipient")
        if agrees and needs_guardian(festival, player.birth_year):
            raise ServiceError(_("For a player younger than %(age)s, a parent or guardian agrees to this, on the "
                                 "registration form or the guardian's page.") % {"age": festival.guardian_age},
                               code="guardian")
        before = {"results_to_ranking": player.results_to_ranking}
        answered = stamp_ranking(player, agrees=agrees, festival=festival, now=now)
        if not answered:
            return player
        player.save(update_fields=answered)
        record(actor=actor, action="player.ranking_agreed" if agrees else "player.ranking_withdrawn",
               target=player, festival=festival, before=before, after={"results_to_ranking": agrees})
        return player
