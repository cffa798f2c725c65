"""The referee's clocks in a real browser at phone size, on a FAKE clock (Playwright's, via the `clock` fixture):
nothing here waits in real time. The turn timer (R9: a minute a turn, 3 penalty tiles for a time-out) counts
from a stored deadline, so a reload mid-turn resumes it; "next player" follows the seat order. The round clock
counts down in the browser from the server's deadline and calls "Time!" on the referee page — on its own when
the network is gone, and from the server when it is back (the server's clock wins over the phone's)."""

import datetime as dt
import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from scoring.services.links import ensure_links
from tests.factories import released_stage
from tournament.models import Draw
from tournament.services import seating
from tournament.services.audit import Actor

ROUND_MINUTES = 70  # a Busan preliminary round of 3 games (R9)


@pytest.fixture
def table():
    """A Busan round 1 (two tables of four; table 1's private link) whose event began two hours ago and whose
    seating went up a minute ago: the round clock runs, ~69 minutes left. (Four players would be a final.)"""
    stage = released_stage(8, start=timezone.now() - dt.timedelta(hours=2))
    Draw.objects.filter(stage=stage).update(released_at=timezone.now() - dt.timedelta(minutes=1))
    link = ensure_links(event=stage.event, actor=Actor(label="organiser"))[0]
    seats = seating.seats(seating.game_draw(stage, 1), table=link.table_number)
    return stage, link, seats


def css_class(name: str) -> re.Pattern:
    return re.compile(rf"(^|\s){re.escape(name)}(\s|$)")


def poll_clock(page, seconds: float = 30) -> int:
    """Move the fake clock to the round clock's next poll and wait for the answer; its status.
    (conftest's `clock.poll` waits for a 2xx answer; an unchanged clock answers 304, which counts here.)"""
    with page.expect_response(lambda response: "clock.json" in response.url and response.status < 400) as answer:
        page.clock.run_for(int(seconds * 1000))
    page.clock.run_for(1000)  # the next render
    return answer.value.status


def timer_state(page) -> dict:
    return page.evaluate("window.TurnTimer.state()")


def seat_label(seat) -> str:
    return f"{seat.position} · {seat.registration.player.name}"


def test_turn_timer_runs_out_counts_a_time_out_survives_a_reload_and_follows_the_seat_order(
        table, phone, server, shot, clock):
    stage, link, seats = table
    referee = phone("referee")
    clock.freeze(referee)
    referee.goto(server.url("referee-link-table", token=link.token))
    timer = referee.locator("[data-turn-timer]")
    expect(timer).to_be_visible()
    display = timer.locator("[data-tt-display]")
    expect(display).to_have_text("1:00")  # R9: the official minute (the ruleset's turn_seconds)

    timer.locator('[data-tt-action="next"]').click()  # "Start the first turn": seat 1 plays first
    expect(timer.locator("[data-tt-who]")).to_contain_text(seat_label(seats[0]))
    shot(referee, "turn-started")

    referee.clock.run_for(61_000)  # past the minute
    expect(timer).to_have_class(css_class("is-expired"))
    expect(display).to_have_text("\u22120:01")
    expect(timer.locator("[data-tt-alert]")).to_be_visible()
    expect(timer.locator("[data-tt-alert]")).to_contain_text("3 penalty tiles")
    counts = timer.locator("[data-tt-count]")
    expect(counts).to_have_text(["1", "0", "0", "0"])  # one time-out for seat 1, counted once
    shot(referee, "time-over")

    timer.locator('[data-tt-action="next"]').click()  # seat 2's turn, mid-turn reload
    referee.clock.run_for(20_000)
    expect(display).to_have_text("0:40")
    before = timer_state(referee)
    assert before["seat"] == 1 and before["turns"] == 2 and not before["expired"]

    referee.reload()
    timer = referee.locator("[data-turn-timer]")
    display = timer.locator("[data-tt-display]")
    expect(display).to_have_text("0:40")  # from the stored deadline, not restarted
    after = timer_state(referee)
    assert after["seat"] == 1 and after["turns"] == 2 and after["timeouts"] == [1, 0, 0, 0]
    assert abs(after["remainingMs"] - before["remainingMs"]) < 1000
    expect(timer.locator("[data-tt-who]")).to_contain_text(seat_label(seats[1]))
    shot(referee, "after-reload")

    referee.clock.run_for(10_000)
    expect(display).to_have_text("0:30")  # it keeps counting down after the reload
    for expected in (2, 3, 0):  # "next player" in seat order, seat 4 → seat 1
        referee.clock.run_for(1_000)  # taps closer together than 0.7 s are a bounce, not the next player
        timer.locator('[data-tt-action="next"]').click()
        assert timer_state(referee)["seat"] == expected
        expect(timer.locator("[data-tt-who]")).to_contain_text(seat_label(seats[expected]))
        expect(display).to_have_text("1:00")
    expect(counts).to_have_text(["1", "0", "0", "0"])


def test_round_clock_calls_time_on_the_referee_page_offline_and_from_the_server(table, phone, server, shot, clock):
    stage, link, _ = table
    referee = phone("referee")
    clock.freeze(referee)
    with referee.expect_response(lambda response: "clock.json" in response.url and response.ok):
        referee.goto(server.url("referee-link-table", token=link.token))
    area = referee.locator("[data-round-clock]")
    banner = area.locator("[data-rc-banner]")
    referee.clock.run_for(1_000)  # the clock renders once a second
    expect(area.locator("[data-rc-what]")).to_have_text("Time left")
    expect(area.locator("[data-rc-time]")).to_have_text(re.compile(r"^1:0[89]:\d\d$"))  # ~69 min left
    expect(banner).to_be_hidden()
    shot(referee, "round-running")

    # The network goes; the phone keeps counting from the deadline it has and calls time by itself.
    referee.context.set_offline(True)
    referee.clock.fast_forward(ROUND_MINUTES * 60 * 1000)
    referee.clock.run_for(2_000)
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Time!")
    expect(area.locator("[data-rc-time]")).to_have_text("0:00")
    expect(area.locator("[data-rc-offline]")).to_be_visible()
    shot(referee, "time-called-offline")

    # Back online: the server's clock corrects the phone's (70 fake minutes ahead) — the round still runs.
    referee.context.set_offline(False)
    assert poll_clock(referee) == 304  # nothing changed on the server; its time came in the header
    expect(banner).to_be_hidden()
    expect(area.locator("[data-rc-offline]")).to_be_hidden()

    # The round's 70 minutes have passed for the server too: the next poll calls time.
    Draw.objects.filter(stage=stage).update(released_at=timezone.now() - dt.timedelta(minutes=ROUND_MINUTES + 1))
    assert poll_clock(referee) == 200
    expect(banner).to_be_visible()
    expect(area.locator("[data-rc-what]")).to_have_text("Time!")
    shot(referee, "time-called-by-the-server")
