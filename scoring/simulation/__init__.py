"""`simulate(...)`: an event of N checked-in players played to the end through the services.

The demo (`load_demo` can show finished rounds with it), the load generator and an end-to-end test of
the formats. `python manage.py simulate_event --format busan|hk [--game classic|word] --players N --seed S`.
"""

from .play import FORMATS, GAMES, SimulationError, play, prepare_event, simulate, simulate_word, staff_of
from .racks import plausible_entry
from .report import confirmed_results, final_order, summary_lines

__all__ = ["FORMATS", "GAMES", "simulate_word", "SimulationError", "confirmed_results", "final_order", "play", "plausible_entry", "prepare_event",
           "simulate", "staff_of", "summary_lines"]
