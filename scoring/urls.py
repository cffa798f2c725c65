"""The scoring app's routes: the round clock, referees, the board, results,
conduct, the organiser's downloads. Each view module keeps its own routes."""

from django.urls import include, path

from .views import (
    board,
    clock,
    conduct,
    exports,
    links,
    my_work,
    offline,
    referee,
    referees,
    results,
    sheet,
    stage,
    table_players,
)

urlpatterns = [
    path("", include(clock.urlpatterns)),
    path("", include(referee.urlpatterns)),
    path("", include(offline.urlpatterns)),
    path("", include(table_players.urlpatterns)),
    path("manage/", include(my_work.urlpatterns)),
    path("manage/", include(board.urlpatterns)),
    path("manage/", include(sheet.urlpatterns)),
    path("manage/", include(stage.urlpatterns)),
    path("manage/", include(links.urlpatterns)),
    path("manage/", include(referees.urlpatterns)),
    path("", include(results.urlpatterns)),
    path("manage/", include(conduct.urlpatterns)),
    path("", include(exports.urlpatterns)),
]
