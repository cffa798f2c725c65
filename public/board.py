"""The standings as the public pages show them (R7, R8): rows with shared ranks and each game's score, the
columns, and the cut — who goes on to the next round (R8.1) or takes a prize place (R8.2) — in a constant
number of queries. `build_board` is what every standings page and the hall display read."""

from dataclasses import dataclass, field
from decimal import Decimal

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from scoring.services import progress
from scoring.services.conduct import departures
from scoring.services.progress import StageProgress, event_progress, stage_progress
from scoring.standings import Line, Standings, compute, criteria_for, event_standings
from tournament.formats import format_of
from tournament.formats.ranking import PRIZE_PLACES, SeatResult
from tournament.models import ConductRecord, Event, Registration, Stage, StageEntry
from tournament.visibility import visibility

from .snapshot import event_snapshot


def signed(value: Decimal | None) -> str:
    """+24, −5, +7.50: whole points without decimals, a true minus sign."""
    if value is None:
        return ""
    text = f"{value:+.0f}" if value == value.to_integral_value() else f"{value:+.2f}"
    return text.replace("-", "\u2212")


@dataclass
class Row:
    line: Line
    registration: Registration | None
    rank: str
    points: str
    cells: list | SafeString  # the per-game <td>s once built
    table: int | None = None
    # Where the player stands (the phone shows it on the row's second line): "advances", "advancing"
    # (provisional), "tie" (tied at the cut), "out" (a Busan round decided without them), "in" (still playing:
    # the whole Busan event), "placed" (a final or Hong Kong prize place), "prize" (in the prize places, provisional),
    # "prize-tie" (tied on a prize place); `status` says it in words.
    mark: str = ""
    status: str = ""
    leaving: ConductRecord | None = None
    reached: str = ""  # whole Busan event: the furthest stage the player entered
    cut_after: bool = False


@dataclass
class Cut:
    kind: str  # "line" (a line after `places` rows) or "table" (top `places` of each table, marked per row)
    places: int
    tie: bool
    provisional: bool
    label: str
    prizes: bool = False  # a tie on prize places goes to a playoff game; a tie at a cut to a lot (R7)


@dataclass
class Board:
    standings: Standings
    rows: list[Row]
    columns: list[tuple[int, int, str, str]] = field(default_factory=list)  # stage, game, short, long label
    cut: Cut | None = None
    play: StageProgress | None = None
    average: bool = False
    show_reached: bool = False
    scores: bool = True  # the public sees each game's score (tournament/visibility.py)
    tables: bool = True  # … and who sat at which table

    @property
    def table_column(self) -> bool:
        """A per-table round ranks each table apart: its table numbers show, where the seating is public."""
        return self.tables and self.cut is not None and self.cut.kind == "table"

    @property
    def width(self) -> int:
        """Columns in the table, for the cut line's colspan."""
        table = 1 if self.table_column else 0
        return 5 + table + (len(self.columns) if self.scores else 0) + (1 if self.show_reached else 0)


def _columns(standings: Standings, stages: dict[int, Stage], one_stage: bool) -> list[tuple[int, int, str, str]]:
    columns = []
    for stage_number, game in standings.columns:
        stage = stages.get(stage_number)
        name = stage.display_name if stage else str(stage_number)
        if one_stage:
            short = _("G%(game)s") % {"game": game}
        elif stage is not None and stage.is_final:
            short = _("F G%(game)s") % {"game": game}
        else:
            short = _("R%(stage)s G%(game)s") % {"stage": stage_number, "game": game}
        long = _("%(stage)s, game %(game)s") % {"stage": name, "game": game}
        columns.append((stage_number, game, short, long))
    return columns


def _cells_html(cells: list[SeatResult | None], win: str) -> SafeString:
    """One <td> per game, built here rather than in the template: 128 players × 10 games is 1,280 cells on
    every poll. Only numbers and the escaped word "win" go in."""
    out = []
    for cell in cells:
        if cell is None:
            out.append('<td class="stat text-end"><span class="text-body-tertiary">·</span></td>')
        elif cell.win:
            out.append(f'<td class="stat text-end text-nowrap"><strong>{signed(cell.score)}</strong>'
                       f'<span aria-hidden="true">★</span><span class="visually-hidden"> {win}</span></td>')
        else:
            out.append(f'<td class="stat text-end text-nowrap">{signed(cell.score)}</td>')
    return mark_safe("".join(out))  # numbers and escaped text only


def _played(rows: list[Row]) -> bool:
    """Before the first confirmed result everyone is level: no cut to show, no tie to flag."""
    return any(row.line.games for row in rows)


def _line_cut(rows: list[Row], places: int, provisional: bool, label: str) -> Cut | None:
    if not _played(rows) or places < 1 or places >= len(rows):
        return None
    tie = rows[places - 1].line.rank == rows[places].line.rank
    rows[places - 1].cut_after = True
    return Cut("line", places, tie, provisional, label)


def _prize_cut(rows: list[Row], play: StageProgress) -> Cut | None:
    """Hong Kong (R8.2): the prize places; a tie on them is decided by a one-game playoff (R7)."""
    cut = _line_cut(rows, PRIZE_PLACES, not play.complete,
                    _("The top %(places)s take the prize places.") % {"places": PRIZE_PLACES})
    if cut is not None:
        cut.prizes = True
    return cut


def _mark(row: Row, mark: str, status: str) -> None:
    row.mark, row.status = mark, status


def _advancement_marks(stage: Stage, rows: list[Row], *, complete: bool):
    """Busan rounds (R8.1): who goes on from `stage` among `rows` (its players), from the same code that closes
    it; once every game is confirmed, everyone else is out. Returns (the advancement, provisional) or None."""
    result = progress.advancement(stage)
    if result is None:
        return None
    provisional = not (complete or stage.closed_at)
    advancing = set(result.advancing)
    tied = {player for tie in result.ties for player in tie.players}
    out = _("Out after %(stage)s") % {"stage": stage.display_name}
    for row in rows:
        if row.line.player in tied:
            _mark(row, "tie", _("tied at the cut"))
        elif row.line.player in advancing:
            if provisional:
                _mark(row, "advancing", _("in the advancing places"))
            else:
                _mark(row, "advances", _("advances"))
        elif not provisional and row.leaving is None:  # one who left the event is marked as such
            _mark(row, "out", out)
    return result, provisional


def _place_marks(rows: list[Row], ranks: dict[int, tuple[int, bool]], *, complete: bool, provisional: bool) -> None:
    """The prize places (R7, R8.1 the final's places 1–4, R8.2 the top four): `ranks` is each player's (rank,
    tied) in what decides them. A tie on one is decided by a lot or a playoff, never guessed here. `provisional`:
    mark the prize places while games are still played too."""
    if not (complete or provisional):
        return
    for row in rows:
        rank, tied = ranks.get(row.line.player, (0, False))
        if not 1 <= rank <= PRIZE_PLACES:
            continue
        if tied:
            _mark(row, "prize-tie", _("tied on a prize place"))
        elif complete:
            _mark(row, "placed", _("place %(place)s") % {"place": rank})
        else:
            _mark(row, "prize", _("in the prize places"))


def _advancement_cut(stage: Stage, rows: list[Row], play: StageProgress) -> Cut | None:
    """Busan rounds (R8.1): per-table marks or the top N of the stage, from the same code that closes it."""
    marked = _advancement_marks(stage, rows, complete=play.complete) if _played(rows) else None
    if marked is None:
        return None
    result, provisional = marked
    tied = {player for tie in result.ties for player in tie.players}
    if stage.advance == Stage.Advance.PER_TABLE:
        table_of = {r.player_id: t for t, ranking in enumerate(result.rankings, start=1) for r in ranking}
        for row in rows:
            row.table = table_of.get(row.line.player)
        label = _("The top %(places)s of each table go on to the next round.") % {"places": stage.advance_count}
        return Cut("table", stage.advance_count, bool(tied), provisional, label)
    label = _("The top %(places)s of the round go to the final.") % {"places": stage.advance_count}
    cut = _line_cut(rows, stage.advance_count, provisional, label)
    if cut is not None:
        cut.tie = cut.tie or bool(tied)
    return cut


def _ranks(rows: list[Row]) -> dict[int, tuple[int, bool]]:
    return {row.line.player: (row.line.rank, row.line.tied) for row in rows}


def _busan_event_marks(event: Event, standings: Standings, rows: list[Row], stages: dict[int, Stage],
                       play: StageProgress) -> dict[int, int]:
    """The whole Busan event (R8.1): a player is out after the round they last played, or stands where the
    round being played (or the final's places) puts them. Returns each player's furthest stage number."""
    played = [stage for number, stage in sorted(stages.items()) if stage.advance != Stage.Advance.PLAYOFF]
    if not played:
        return {}
    latest = played[-1]
    furthest: dict[int, int] = {}
    if len(stages) > 1:
        for registration, number in StageEntry.objects.filter(stage__event=event).values_list(
                "registration_id", "stage__number"):
            furthest[registration] = max(number, furthest.get(registration, 0))
    current = []
    for row in rows:
        reached = furthest.get(row.line.player, latest.number)
        if reached >= latest.number:
            current.append(row)
        elif reached in stages and row.leaving is None:
            _mark(row, "out", _("Out after %(stage)s") % {"stage": stages[reached].display_name})
    # A playoff after the last round is only played once that round is over.
    complete = play.complete if play.stage is not None and play.stage.pk == latest.pk else True
    begun = any(number == latest.number for number, _game in standings.columns)
    if begun and latest.advance in (Stage.Advance.PER_TABLE, Stage.Advance.PER_STAGE):
        _advancement_marks(latest, current, complete=complete)
    elif begun and latest.is_final:
        # The final's own games decide its places (R8.1), not the wins of the whole event.
        results = [cell for row in current for (number, _game), cell in row.line.cells.items()
                   if number == latest.number]
        criteria, points = criteria_for(event)
        lines = compute([row.line.player for row in current], results, criteria, points, standings.tiebreak)
        _place_marks(current, {line.player: (line.rank, line.tied) for line in lines}, complete=complete,
                     provisional=False)
    if len(played) > 1:
        for row in current:
            if not row.mark:
                _mark(row, "in", latest.display_name)
    return furthest


def build_board(event: Event, stage: Stage | None = None, play: StageProgress | None = None) -> Board:
    """Everything a standings page shows, in a constant number of queries. `play`: where `stage` stands,
    if the caller already knows it. The caller checks that the standings are public; the game scores and
    the table numbers follow their own switches here."""
    public = visibility(event)
    standings = event_standings(event, stage=stage) if stage is not None else event_snapshot(event).standings
    stages = {s.number: s for s in event.stages.all()}
    leaving = departures(event)
    average = standings.points == "average"
    rows = []
    for line in standings.lines:
        registration = standings.registrations.get(line.player)
        if registration is None:  # a sheet for someone no longer entered: nothing to show
            continue
        rank = f"{line.rank}=" if line.tied else str(line.rank)
        shown = line.average if average else line.total
        rows.append(Row(line=line, registration=registration, rank=rank, points=signed(shown),
                        cells=[line.cells.get(column) for column in standings.columns],
                        leaving=leaving.get(line.player)))
    win = escape(_("win"))
    for row in rows:
        row.cells = _cells_html(row.cells, win) if public.scores else mark_safe("")
    one_stage = stage is not None or len(stages) <= 1
    board = Board(standings, rows, _columns(standings, stages, one_stage), average=average,
                  scores=public.scores, tables=public.draw)
    if stage is not None:
        board.play = play or stage_progress(stage)
        if stage.advance in (Stage.Advance.PER_TABLE, Stage.Advance.PER_STAGE):
            board.cut = _advancement_cut(stage, rows, board.play)
        elif stage.advance == Stage.Advance.NONE and not format_of(event).eliminates:
            board.cut = _prize_cut(rows, board.play)
            if _played(rows):
                _place_marks(rows, _ranks(rows), complete=board.play.complete, provisional=True)
        elif stage.is_final and _played(rows):
            _place_marks(rows, _ranks(rows), complete=board.play.complete or bool(stage.closed_at),
                         provisional=False)
    else:
        board.play = play or event_progress(event)
        if not format_of(event).eliminates:
            board.cut = _prize_cut(rows, board.play)
            if _played(rows):  # a playoff stage is only drawn once the games it follows are all confirmed
                playoff = board.play.stage is not None and board.play.stage.advance == Stage.Advance.PLAYOFF
                _place_marks(rows, _ranks(rows), complete=board.play.complete or playoff, provisional=True)
        else:
            furthest = _busan_event_marks(event, standings, rows, stages, board.play)
            if len(stages) > 1:
                for row in rows:
                    reached = stages.get(furthest.get(row.line.player))
                    row.reached = reached.display_name if reached else ""
                board.show_reached = True
    return board
