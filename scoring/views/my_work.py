"""My work: where every signed-in person starts (scoring/my_work.py says what is on it)."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.urls import path
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from tournament.permissions import may_organise_festivals
from tournament.services.invitations import waiting_for

from ..my_work import my_work


@never_cache
@require_GET
@login_required
def my_work_page(request):
    festivals, tables = my_work(request.user)
    return render(request, "scoring/my_work.html", {
        "festivals": festivals, "tables": tables, "invitations": waiting_for(request.user),
        "may_create_festival": may_organise_festivals(request.user),
    })


urlpatterns = [path("", my_work_page, name="manage-home")]
