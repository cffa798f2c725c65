"""What several forms read the same way: a time of a festival's day typed in a form (`FestivalMomentField`).

The rules under the forms' fields live outside tournament/forms, where services and models use them too: a list
typed as comma text (tournament.list_text), a time of a festival's day (tournament.festival_time), a name
someone can see (tournament.visible_names).
"""

import datetime as dt

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from ..festival_time import festival_moment


class FestivalMomentField(forms.DateTimeField):
    """A date and time typed in the festival's zone (`zone`, set by the form; else the active zone), read
    through `festival_moment`. A value with its own offset is an instant already and is taken as it is."""

    zone = None

    def to_python(self, value):
        # Django's DateTimeField.to_python, with festival_moment where it calls from_current_timezone.
        if value in self.empty_values:
            return None
        if isinstance(value, dt.datetime):
            moment = value
        elif isinstance(value, dt.date):
            moment = dt.datetime(value.year, value.month, value.day)
        else:
            try:
                moment = parse_datetime(value.strip())
            except ValueError:
                raise ValidationError(self.error_messages["invalid"], code="invalid") from None
            if not moment:  # the other input formats
                moment = super(forms.DateTimeField, self).to_python(value)
        if timezone.is_aware(moment):
            return moment
        return festival_moment(moment.date(), moment.time(), self.zone or timezone.get_current_timezone())
