"""A player's "Download my data": everything the app holds about them, their results included, as a JSON file
(scoring/my_data.py). The token link is the only key."""

import json

from django.http import HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from scoring.my_data import my_data

from .personal import player_from_token


@never_cache
@require_safe
def player_data(request, token):
    player = player_from_token(token)
    data = my_data(player, page_url=request.build_absolute_uri(player.get_absolute_url()))
    response = HttpResponse(json.dumps(data, ensure_ascii=False, indent=2), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="my-data-{player.festival.slug}.json"'
    return response

