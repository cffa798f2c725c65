"""Final places and ranking points (R7, R8.1, R8.2, R9): placing.py (pure), event.py (an event's results
from the database), actions.py (lots for a place, the ranking-points table), season.py (points across events).

Decisions (the sources only settle part of this; each choice is written here once):

- **Busan (R8.1)**: places 1–4 come from the final's game(s): wins, then points (as
  `tournament.formats.busan.final_places` ranks them). Everyone eliminated earlier is placed below by the
  stage they reached (a later stage is better) and, within one stage, by wins then points over *that*
  stage's games. The sources only decide places 1–4, so players still level below them simply share a place.
- **Hong Kong (R8.2)**: total wins, then average points per game, over the event's (non-playoff) stage.
- Points are total or average as the event's ruleset says (as the standings do, R7).
- **Ties** share a place ("1, 2, 2, 4"). A tie on a prize place (1–4) is not guessed (R7): the organiser
  resolves it by a recorded lot (`Lot.Purpose.PLACE`) or a one-game playoff (`scoring.services.playoff`).
  A lot or a playoff applies to a tie only if it covers every tied player; its order separates those
  players and nobody else. A playoff game that is itself level (a blocked game with equal winners) leaves
  those players tied — a second playoff or a lot then decides. Playoff games never count in anyone's
  wins or points.
- **Ranking points (R9)**: `event.ranking_points` lists the points of places 1, 2, 3 …; places beyond the
  list get 0. Players sharing a place each get the **average** of the points of the places they span
  (tied for 2nd by two players: (points of 2nd + points of 3rd) / 2), rounded to 0.01.
- **Under 15 (R9)**: only the birth year is known, so the age is the one the player reaches during the
  event's year: under 15 if event year − birth year < 15. A player who turns 15 later in that year counts
  as 15 (the rule errs by at most a year, in the player's favour). Under-15 players keep their place but get
  no ranking points, and those points are **not passed down**: the place's points stay unassigned, so the
  next player gets exactly what their own place is worth.

The functions at the top are pure (plain data in and out); `event_results` / `results_for_events` read the
database in a constant number of queries whatever the number of players or events.
"""
