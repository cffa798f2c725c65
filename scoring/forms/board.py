"""Small forms for the chief referee's and organiser's pages: they only parse; the services decide."""

from django import forms
from django.utils.translation import gettext_lazy as _

MAX_NUMBER = 999

class BoardFilterForm(forms.Form):
    """Which stage and game the board shows; nonsense is ignored (the current ones are shown instead)."""

    stage = forms.IntegerField(required=False, min_value=1, max_value=MAX_NUMBER)
    game = forms.IntegerField(required=False, min_value=1, max_value=MAX_NUMBER)
    warnings = forms.BooleanField(required=False, label=_("Only sheets with warnings"))


class ReturnForm(forms.Form):
    reason = forms.CharField(
        label=_("Why does the sheet go back to the referee?"), max_length=1000,
        widget=forms.Textarea(attrs={"rows": 2, "class": "form-control"}),
    )


class TableForm(forms.Form):
    table = forms.IntegerField(min_value=1, max_value=MAX_NUMBER)


TABLE_ERRORS = {"required": _("Write the table number."), "min_value": _("Table numbers start at 1."),
                "max_value": _("There is no table with so high a number.")}
USER_ID = 2**31 - 1


class TablesForm(forms.Form):
    """A range of tables, "1–8"; with the second number left empty, one table. `stage` says which stage's links
    page the form was sent from (the answer goes back there)."""

    first = forms.IntegerField(label=_("From table"), min_value=1, max_value=MAX_NUMBER, error_messages=TABLE_ERRORS)
    last = forms.IntegerField(label=_("to table"), required=False, min_value=1, max_value=MAX_NUMBER,
                              error_messages=TABLE_ERRORS)
    stage = forms.IntegerField(required=False, min_value=1, max_value=MAX_NUMBER)

    def clean(self):
        data = super().clean()
        first, last = data.get("first"), data.get("last")
        if first is not None and last is None and "last" not in self.errors:
            data["last"] = first
        elif first is not None and last is not None and last < first:
            raise forms.ValidationError(
                _("Table %(last)s comes before table %(first)s: write the smaller number first (%(last)s–%(first)s)."),
                params={"first": first, "last": last}, code="range")
        return data


class AssignTablesForm(TablesForm):
    referee = forms.IntegerField(label=_("Referee"), min_value=1, max_value=USER_ID,
                                 error_messages={"required": _("Choose a referee.")})


class UnassignTablesForm(TablesForm):
    # From a table's own button: only this referee's hold ends (someone given the table since keeps it).
    referee = forms.IntegerField(required=False, min_value=1, max_value=USER_ID)


class LinkForm(forms.Form):
    link = forms.IntegerField(min_value=1, max_value=2**63 - 1)
