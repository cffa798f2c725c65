"""Forms of the results pages: they only parse; `scoring.results` and the playoff service decide."""

from django import forms
from django.utils.translation import gettext_lazy as _

from tournament.models import Event

MAX_PLACE = 10_000
YEARS = (1900, 2200)


class PlaceForm(forms.Form):
    """Which shared place a lot or a playoff decides."""

    place = forms.IntegerField(
        min_value=1, max_value=MAX_PLACE, widget=forms.HiddenInput,
        error_messages={"required": _("Choose a place."), "invalid": _("There is no such place."),
                        "min_value": _("There is no such place."), "max_value": _("There is no such place.")},
    )


class RankingPointsForm(forms.Form):
    """The table typed as "100, 70, 50"; cleaned, the list [100, 70, 50] (the event field's rule and message)."""

    ranking_points = Event._meta.get_field("ranking_points").formfield(
        label=_("Ranking points per place"),
        help_text=_("Points for places 1, 2, 3 … comma-separated, e.g. 100,70,50,40. Places beyond the list get "
                    "0. Empty: no ranking points."),
    )


class SeasonForm(forms.Form):
    year = forms.IntegerField(required=False, min_value=YEARS[0], max_value=YEARS[1])


class CertificateLanguageForm(forms.Form):
    """Which of the festival's languages the certificates are printed in (`?lang=ko`); the view falls back to the
    festival's first language for anything else."""

    lang = forms.ChoiceField(required=False)

    def __init__(self, data, *, languages: list[str]):
        super().__init__(data)
        self.fields["lang"].choices = [(code, code) for code in languages]
