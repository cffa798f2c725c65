"""Forms of the organiser's import page: the upload, and the confirmation after the preview."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.utils.translation import gettext_lazy as _

from ..services.imports.limits import MAX_FILE_BYTES


class ImportUploadForm(forms.Form):
    file = forms.FileField(
        label=_("CSV or Excel (.xlsx) file"),
        help_text=_("At most 2 MB and 2,000 rows."),
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,.xlsx,text/csv"}),
    )
    default_event = forms.ModelChoiceField(
        queryset=None,
        required=False,
        to_field_name="slug",
        label=_("Event for rows without one"),
        empty_label=_("(none: every row names its event)"),
    )

    def __init__(self, *args, festival, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["default_event"].queryset = festival.events.all()
        self.helper = FormHelper()
        self.helper.form_method = "post"
        self.helper.add_input(Submit("upload", _("Check the file"), css_class="btn-tap"))

    def clean_file(self):
        upload = self.cleaned_data["file"]
        # Checked before reading: a huge upload is refused without being loaded into memory.
        if upload.size > MAX_FILE_BYTES:
            raise forms.ValidationError(_("The file is larger than 2 MB. Split it into smaller files."),
                                        code="too_large")
        return upload


class ImportConfirmForm(forms.Form):
    """The organiser's choice on the preview page; `seen` fingerprints the valid rows they were shown."""

    action = forms.ChoiceField(choices=[("all", "all"), ("valid", "valid"), ("cancel", "cancel")])
    seen = forms.CharField(max_length=64, required=False)
    # The organiser's declaration, checked by services.imports.importing (nothing is imported without it).
    consent_held = forms.BooleanField(required=False)
