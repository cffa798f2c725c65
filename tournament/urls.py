"""Top-level routes. Each area of the app keeps its own routes next to its views."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from scoring.views import board, links, referee, sheet, stage

from .views import desk, draws, imports, manage, player, public, registration, seating

urlpatterns = [
    path("", include(public.urlpatterns)),
    path("", include(registration.urlpatterns)),
    path("", include(seating.urlpatterns)),
    path("", include("scoring.views.public")),  # live standings, player pages, hall display (issue 6)
    path("", include("scoring.views.clock")),  # f/…/clock.json: the round clock (issue 8)
    path("p/", include(player.urlpatterns)),
    path("", include(referee.urlpatterns)),
    path("desk/", include(desk.urlpatterns)),
    # Fixed words (import, export, draws) before manage's <festival>/<event> catch-all.
    path("manage/", include(imports.urlpatterns)),
    path("manage/", include(draws.urlpatterns)),
    path("manage/", include(board.urlpatterns)),
    path("manage/", include(sheet.urlpatterns)),
    path("manage/", include(stage.urlpatterns)),
    path("manage/", include(links.urlpatterns)),
    path("", include("scoring.views.results")),  # results, certificates, season; manage/…/results/ (issue 6)
    path("manage/", include("scoring.views.conduct")),  # conduct: warnings, disqualification (issue 6)
    path("", include("scoring.views.exports")),  # manage/…/export.json, CSV/XLSX; the public api/ (issue 6)
    path("manage/", include(manage.urlpatterns)),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
]

handler400 = "tournament.views.errors.bad_request"
handler403 = "tournament.views.errors.permission_denied"
handler404 = "tournament.views.errors.page_not_found"
handler500 = "tournament.views.errors.server_error"
