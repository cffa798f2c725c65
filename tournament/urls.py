"""The tournament app's routes: festivals, registration, the desk, the organiser's
pages. Each area keeps its own routes next to its views."""

from django.urls import include, path

from .views import (
    desk,
    draws,
    festivals,
    guardian,
    imports,
    invitation,
    manage,
    offline,
    registration,
    staff,
)

urlpatterns = [
    path("", include(invitation.urlpatterns)),
    path("", include(offline.urlpatterns)),
    path("", include(registration.urlpatterns)),
    path("", include(guardian.urlpatterns)),
    path("desk/", include(desk.urlpatterns)),
    # Fixed words (new-festival, edit, new-event, import, export, draws, staff) before manage's
    # <festival>/<event> catch-all.
    path("manage/", include(festivals.urlpatterns)),
    path("manage/", include(imports.urlpatterns)),
    path("manage/", include(draws.urlpatterns)),
    path("manage/", include(staff.urlpatterns)),
    path("manage/", include(manage.urlpatterns)),
]
