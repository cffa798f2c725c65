"""What rules/ finds wrong with a sheet, in the user's language (rules/ speaks English and stable codes, plus the
numbers and tiles a message names as parameters: the English text never reaches a page)."""

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

MESSAGES = {
    "bad_end": _("Choose how the game ended."),
    "too_few_players": _("A game needs at least 2 players."),
    "too_many_players": _("A game has at most 4 players."),
    "duplicate_seat": _("This seat appears twice."),
    "duplicate_player": _("A player appears twice."),
    "bad_seat_number": _("Seat numbers are 1 to 4."),
    "no_one_went_out": _("The game ended with a player going out, but no one is marked as out."),
    "several_went_out": _("Only one player can go out; more than one is marked."),
    "went_out_in_blocked_game": _("Marked as out, but the game did not end that way."),
    "too_many_copies": _("A tile appears more than twice across the racks; a set has only two of each."),
    "too_many_jokers": _("More than two jokers across the racks; a set has only two."),
    "time_game_void": _("These rules do not score a game stopped by time: it counts as void (no points, no win)."),
    "rack_value_negative": _("A rack value cannot be negative."),
    "rack_value_too_high": _("No rack can hold that many points."),
    "jokers_out_of_range": _("A rack holds 0 to 2 jokers."),
    "rack_value_mismatch": _("The rack value does not match the tiles."),
    "jokers_mismatch": _("The joker count does not match the tiles."),
    "winner_holds_tiles": _("A player who went out holds no tiles."),
    "winner_not_opened": _("A player who went out must have made the initial meld."),
    "conduct_penalty_on_winner": _("A conduct penalty on the player who went out is ignored."),
    "no_knocked_rack_rule": _("These rules have no knocked-over-rack penalty."),
    "marked_could_not_open_but_can": _("Marked as unable to open, but these tiles can make the initial meld (200, not 100)."),
    "marked_could_open_but_cannot": _("Marked as able to open, but this rack cannot make the initial meld (100, not 200)."),
    "never_opened_small_rack": _("A player who never opened still holds all 14 dealt tiles; fewer were entered."),
    "could_open_missing": _("Say whether this player, who never opened, could have opened."),
    "rack_missing": _("Enter this player's tiles or rack value."),
    "high_rack_value": _("A rack value over 100 is unusual; please check it."),
    "loser_empty_rack": _("This player has an empty rack but did not go out."),
    "empty_rack_in_blocked_game": _("An empty rack in a blocked game: did this player go out?"),
    "bad_tiles": _("These tiles cannot be read; use colour and number, e.g. R5 B13 J."),
    "bad_entry": _("This entry is incomplete or not a number."),
    # Rummikub Word (R10); the service adds the word concerned in brackets.
    "unknown_seat": _("This turn names a seat that is not at the table."),
    "drew_used_all_tiles": _("A player who drew cannot have used all their tiles."),
    "first_placement_too_short": _("A first placement needs at least 6 letters in total."),
    "used_all_tiles_too_few_letters": _("A first placement that used all tiles needs at least 14 letters."),
    "word_too_short": _("After the first placement, words have at least 3 letters."),
    "impossible_letters": _("The tile set does not have enough of these letters, even with both jokers."),
    "impossible_letters_in_turn": _("Together, this turn's words need more letters than the tile set has."),
    "duplicate_word_in_turn": _("The same word is written twice in this turn."),
    "short_word_in_first_placement": _("A word of 1 or 2 letters in the first placement: please check."),
    "needs_jokers": _("This word needs jokers for some letters: please check."),
    "word_already_on_table": _("This word was already formed in an earlier turn: please check."),
    "not_in_dictionary": _("Not in the dictionary. If your house dictionary accepts it, tick the box below."),
    "dictionary_unavailable": _("The dictionary is not available; words could not be checked."),
    "no_turns": _("No turns are entered."),
    "bad_word": _("A word may contain only the letters A to Z and ? for a joker."),
    "drew_with_words": _("A turn either forms words or draws, not both."),
}


# The same problems when rules/ gives the parameters (R1): named tiles and counts read better at the seat.
WITH_PARAMS = {
    "too_many_copies": _("%(tile)s appears %(count)s times across the racks; a set has only two of each."),
    "too_many_jokers": _("%(count)s jokers across the racks; a set has only two. Check the seats holding them."),
    "rack_value_mismatch": _("The rack value %(entered)s does not match the tiles (%(counted)s)."),
    "jokers_mismatch": _("The joker count %(entered)s does not match the tiles (%(counted)s)."),
    "never_opened_small_rack": _("A player who never opened still holds all 14 dealt tiles; only %(count)s entered."),
    "bad_tiles": _("These tiles cannot be read: %(tokens)s. Use colour and number, e.g. R5 B13 J."),
}

COLOUR_NAMES = {"R": _("red"), "B": _("blue"), "Y": _("yellow"), "K": _("black")}


def tile_name(token: str) -> str:
    """A tile in words of the page's language (R5 → "red 5"), as the tile pad names its keys."""
    if token.upper() == "J":
        return gettext("joker")
    colour, number = token[:1].upper(), token[1:]
    if colour not in COLOUR_NAMES or not number.isdigit():
        return token
    return gettext("%(colour)s %(number)s") % {"colour": COLOUR_NAMES[colour], "number": number}


def message(code: str, fallback: str = "", params: dict | None = None) -> str:
    """The problem `code` in the user's language; `params` (from rules/) fill in its numbers and tiles. A code
    this app does not know shows a generic sentence rather than rules/' English `fallback`."""
    if params and code in WITH_PARAMS:
        values = dict(params)
        if "tile" in values:
            values["tile"] = tile_name(str(values["tile"]))
        try:
            return str(WITH_PARAMS[code]) % values
        except (KeyError, TypeError, ValueError):
            pass  # parameters this text does not take: the plain sentence below says the same
    if code in MESSAGES:
        return str(MESSAGES[code])
    return fallback or gettext("Something on this sheet is not right; please check it.")
