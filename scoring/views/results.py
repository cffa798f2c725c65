"""Final results, podium, certificates, ranking points, playoffs and the season (R7–R9).

Public (no login, no JavaScript): `f/<festival>/<event>/results/` and its printable certificates, `season/`
— only where the organiser publishes the results (tournament/visibility.py: they follow the standings).
Organiser (and chief referee) under `manage/<festival>/<event>/results/`: the same places with the ties
on prize places and what decides them (a recorded lot or a one-game playoff), the ranking-points table and
the certificates, published or not. Views only parse and call one service; permissions are checked here,
on the server.
"""


from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import get_language_info
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe

from tournament.formats import format_of
from tournament.models import Event
from tournament.permissions import CHIEF_REFEREE, ORGANISER
from tournament.services.audit import Actor
from tournament.views.helpers import form_errors, get_event, run_service, staff_view
from tournament.visibility import visibility

from ..forms.results import CertificateLanguageForm, PlaceForm, RankingPointsForm, SeasonForm
from ..results.actions import draw_place_lot, set_ranking_points
from ..results.event import event_results
from ..results.season import season_standings, season_years
from ..services.playoff import create_playoff


def _manage_url(event: Event) -> str:
    return reverse("manage-results", kwargs={"festival": event.festival.slug, "event": event.slug})


def _standings_url(event: Event) -> str:
    if not visibility(event).standings:
        return ""
    return reverse("public-standings", kwargs={"festival": event.festival.slug, "event": event.slug})


# --- public ------------------------------------------------------------------------------------------------

@require_safe
def results_page(request, festival, event):
    """Final places, the podium and ranking points; "not final yet" until the final stage is complete."""
    event = get_event(festival, event)
    published = visibility(event).results
    return render(request, "scoring/results/public.html", {
        "festival": event.festival, "event": event, "published": published,
        "results": event_results(event) if published else None, "standings_url": _standings_url(event),
        "show_stage": format_of(event).eliminates,  # the stage each player reached (R8.1)
    })


def _certificate_languages(request, event: Event) -> tuple[str, list[dict]]:
    """The certificates speak the festival's language, not the reader's: its first language, or another of its
    languages the page asks for; with the choice of each, for the page to offer."""
    known = {code for code, _name in settings.LANGUAGES}
    languages = [code for code in event.festival.languages if code in known] or [settings.LANGUAGE_CODE]
    form = CertificateLanguageForm(request.GET, languages=languages)
    chosen = (form.cleaned_data["lang"] if form.is_valid() else "") or languages[0]
    return chosen, [{"code": code, "name": get_language_info(code)["name_local"], "current": code == chosen,
                     "url": f"{request.path}?{urlencode({'lang': code})}"} for code in languages]


def _certificates(request, event: Event, *, published: bool, back: str, for_staff: bool = False):
    """Public certificates show public names (tournament/public_names.py); the organiser's, for the
    prize-giving, the names as registered."""
    language, languages = _certificate_languages(request, event)
    return render(request, "scoring/results/print.html", {
        "festival": event.festival, "event": event, "published": published, "for_staff": for_staff,
        "results": event_results(event) if published else None, "standings_url": _standings_url(event),
        "date": timezone.localtime(event.starts_at).date(), "back_url": back,
        "certificate_language": language, "certificate_languages": languages,
    })


@require_safe
def certificates(request, festival, event):
    """One printable certificate per podium place (A5 landscape, two to an A4 sheet when printed)."""
    event = get_event(festival, event)
    return _certificates(request, event, published=visibility(event).results,
                         back=reverse("results", kwargs={"festival": event.festival.slug, "event": event.slug}))


@require_safe
def season(request):
    """Ranking points added up per person across the events of all festivals in one year (R9)."""
    years = season_years()
    form = SeasonForm(request.GET)
    year = form.cleaned_data["year"] if form.is_valid() else None
    if year is None:
        this_year = timezone.now().year
        year = next((y for y in years if y <= this_year), years[-1] if years else this_year)
    return render(request, "scoring/results/season.html", {"season": season_standings(year, years)})


# --- organiser ---------------------------------------------------------------------------------------------

@require_safe
@never_cache
@staff_view(CHIEF_REFEREE, home="manage-results")
def manage_results(request, event):
    results = event_results(event)
    is_organiser = request.is_organiser
    pending = [{"stage": stage, "players": results.playoff_players[stage.id],
                "links": reverse("board-links", kwargs={"festival": event.festival.slug, "event": event.slug,
                                                         "stage": stage.number})} for stage in results.pending_playoffs]
    return render(request, "scoring/results/manage.html", {
        "festival": event.festival, "event": event, "results": results, "is_organiser": is_organiser,
        "show_stage": format_of(event).eliminates, "for_staff": True,
        "points_form": RankingPointsForm(initial={"ranking_points": event.ranking_points}),
        "pending": pending, "board_url": reverse("board", kwargs={"festival": event.festival.slug, "event": event.slug}),
        "public_url": reverse("results", kwargs={"festival": event.festival.slug, "event": event.slug}),
        "published": visibility(event).results,
    })


def _place_action(request, event, service, done):
    form = PlaceForm(request.POST)
    if not form.is_valid():
        messages.error(request, form_errors(form))
        return redirect(_manage_url(event))
    place = form.cleaned_data["place"]
    return run_service(request, lambda: service(event=event, place=place, actor=Actor.of(request)),
                       done=done % {"place": place}, then=_manage_url(event))


@require_safe
@never_cache
@staff_view(CHIEF_REFEREE, home="manage-results")
def manage_certificates(request, event):
    """The certificates for the prize-giving, also while the results are not public."""
    return _certificates(request, event, published=True, back=_manage_url(event), for_staff=True)


@require_POST
@staff_view(CHIEF_REFEREE, home="manage-results")
def playoff(request, event):
    return _place_action(request, event, create_playoff,
                         _("A playoff table for place %(place)s is drawn and released. Make its table link on "
                           "the referee board; its confirmed sheet decides the order."))


@require_POST
@staff_view(CHIEF_REFEREE, home="manage-results")
def lot(request, event):
    return _place_action(request, event, draw_place_lot, _("Lots were drawn for place %(place)s."))


@require_POST
@staff_view(ORGANISER, home="manage-results")
def ranking_points(request, event):
    form = RankingPointsForm(request.POST)
    if not form.is_valid():
        messages.error(request, form_errors(form))
        return redirect(_manage_url(event))
    return run_service(
        request, lambda: set_ranking_points(event=event, points=form.cleaned_data["ranking_points"],
                                            actor=Actor.of(request)),
        done=_("The ranking points are saved."), then=_manage_url(event))


PUBLIC = "f/<slug:festival>/<slug:event>/results/"
MANAGE = "manage/<slug:festival>/<slug:event>/results/"
urlpatterns = [
    path(PUBLIC, results_page, name="results"),
    path(PUBLIC + "print/", certificates, name="results-print"),
    path(MANAGE, manage_results, name="manage-results"),
    path(MANAGE + "print/", manage_certificates, name="manage-results-print"),
    path(MANAGE + "playoff/", playoff, name="results-playoff"),
    path(MANAGE + "lot/", lot, name="results-lot"),
    path(MANAGE + "points/", ranking_points, name="results-points"),
    path("season/", season, name="season"),
]
