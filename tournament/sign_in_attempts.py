"""What the sign-in lock-out (django-axes) records of a failed attempt: the user name tried, cut to the
longest an account's can be. Nothing stops a longer one at the form (Django's sign-in form shows the limit
but does not check it), and axes stores it in a column of 255 characters: on PostgreSQL a 300-character
name made the sign-in page a server error."""

from django.conf import settings
from django.contrib.auth import get_user_model


def attempted_username(request, credentials=None) -> str | None:
    """The user name of a sign-in attempt (from the credentials, else the form), as axes reads it, cut to the
    user model's length: two names alike in their first 150 characters share one count of failures."""
    field = settings.AXES_USERNAME_FORM_FIELD
    if credentials:
        username = credentials.get(field)
    else:
        username = getattr(request, "data", request.POST).get(field)
    if username is None:
        return None
    user_model = get_user_model()
    return str(username)[:user_model._meta.get_field(user_model.USERNAME_FIELD).max_length]
