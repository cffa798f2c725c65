"""Forms of the results pages: they only parse; `scoring.results` and the playoff service decide."""

from django import forms
from django.utils.translation import gettext_lazy as _

from ..results import parse_points_table

MAX_PLACE = 10_000
YEARS = (1900, 2200)
BAD_POINTS = _("Write whole numbers from 0 to 100000, comma-separated, e.g. 100,70,50.")


class PlaceForm(forms.Form):
    """Which shared place a lot or a playoff decides."""

    place = forms.IntegerField(
        min_value=1, max_value=MAX_PLACE, widget=forms.HiddenInput,
        error_messages={"required": _("Choose a place."), "invalid": _("There is no such place."),
                        "min_value": _("There is no such place."), "max_value": _("There is no such place.")},
    )


class RankingPointsForm(forms.Form):
    ranking_points = forms.CharField(
        label=_("Ranking points per place"), required=False, max_length=400, strip=True,
        help_text=_("Points for places 1, 2, 3 … comma-separated, e.g. 100,70,50,40. Places beyond the list get "
                    "0. Empty: no ranking points."),
        error_messages={"max_length": BAD_POINTS},
    )

    def clean_ranking_points(self) -> str:
        value = self.cleaned_data["ranking_points"]
        if "\x00" in value:
            raise forms.ValidationError(BAD_POINTS)
        try:
            parse_points_table(value)
        except ValueError:
            raise forms.ValidationError(BAD_POINTS) from None
        return value


class SeasonForm(forms.Form):
    year = forms.IntegerField(required=False, min_value=YEARS[0], max_value=YEARS[1])
