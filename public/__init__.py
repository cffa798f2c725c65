"""The public side: what players, parents and the hall see — the event and festival pages, the live standings,
player and hall pages, player and seat search, the personal page and the JSON API — and how an anonymous
phone's poll of them stays cheap. It reads `tournament` and `scoring`; nothing below reads it.

The way of one poll (`GET /f/<festival>/<event>/standings/live/`, anonymous, `If-None-Match`):

1. nginx (deploy/nginx.conf) may answer a live fragment from its one-second micro-cache.
2. `lane.NotModifiedMiddleware`: the address is in `urls.LIVE` (resolved once per process, `lane.py`) and
   carries no session cookie, so the request is in the public lane. The fragment's ETag is computed: the
   event row and its version come from the shared cache in one round trip (`cache.public_event`,
   `version.event_version`), so an unchanged fragment answers 304 with no SQL and no rendering.
3. Otherwise the rest of the stack runs, but for the lane the session, sign-in and messages middleware are
   skipped (`lane.SessionMiddleware` …) and `lane.PublicViewMiddleware` calls the view directly.
4. `live.live` (the decorator of every live view) answers 304 for a matching ETag; else it serves the copy
   rendered for this ETag (`rendered.py`: this process, then the shared cache) or renders it once.
5. The view reads the read model: `snapshot.event_snapshot` (standings, every result, built once per version
   per process), `board.build_board` (the standings as pages show them), `card.player_book` (every
   player's card); the API (`views/api.py`) reads the same, so pages and API give the same ranks.

The version (`version.py`) changes with every audit or conduct record the public may see (`cache.py` drops the
cached copy when one is written) and the ETag with the event's public settings, the language and the page.
The time zone of the festival is switched on where the event is fetched for a request (`live.event_of`,
`tournament.views.helpers.get_event`), and switched off after every request (tournament/middleware.py).
"""
