"""The root URLconf: each app's routes (the public side's last), then language switching, sign-in and the admin.

The tournament app's routes come first: its import pages (manage/<festival>/import/<key>/) win over
scoring's manage/<festival>/<event>/… pages, as they always have."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from public import urls as public_urls
from scoring import urls as scoring_urls
from tournament import urls as tournament_urls
from tournament.views.sign_out import SignOutView

urlpatterns = [
    path("", include(tournament_urls)),
    path("", include(scoring_urls)),
    path("", include(public_urls)),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", SignOutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
]

handler400 = "tournament.views.errors.bad_request"
handler403 = "tournament.views.errors.permission_denied"
handler404 = "tournament.views.errors.page_not_found"
handler500 = "tournament.views.errors.server_error"
