"""The play page (GET /play) in a real browser: headless Chromium plays a whole Yorkshire match by clicking,
a reload picks a match up again, the hand summaries add up, leaving asks first, a bot seat takes a level and a
hint names the shipped bot's move with the rule behind it.

What the tests look at is what the browser displays (``is_displayed``, ``checkVisibility``), not attributes.

Chromium and its driver come from Debian's packages (``.ci/browser_deps.sh``); Selenium is pointed at
/usr/bin/chromedriver, and Selenium Manager (which would download a browser) is made to fail if called.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import socket
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import uvicorn
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.selenium_manager import SeleniumManager
from selenium.webdriver.support.ui import Select, WebDriverWait

from allfours.agents.registry import make_agent
from allfours.cli.play_hint import rule_key, rule_words
from allfours.serve import hosted
from allfours.serve.app import create_app
from allfours.serve.store import MatchDB
from allfours_env import GameState, make_rules, parse_action, seat_view

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium "
                                 "(apt-get install -y chromium chromium-driver; see .ci/browser_deps.sh)")]

# What the page offers now: the end of the match, a hand summary to dismiss, a decision, a legal card.
PAGE_STATE = """
const shown = (id) => document.getElementById(id).checkVisibility();
if (shown('match-result')) return 'over';
if (shown('hand-summary')) return 'summary';
if (document.body.dataset.busy === 'true') return 'wait';
if (document.querySelector('#decisions button[data-action]:not([data-action="THROW_IN"])')) return 'decision';
if (document.querySelector('#hand .card[data-legal="true"]')) return 'card';
return 'wait';
"""
# The summary's rows as displayed: each adds its data-points (per side) to the hand.
SUMMARY_ROWS = """
return [...document.querySelectorAll('#hand-summary td[data-points]')]
  .filter((td) => td.checkVisibility() && td.id !== 'summary-points')
  .map((td) => [td.id, td.textContent, JSON.parse(td.dataset.points)]);
"""
CARD_ID = re.compile(r"\b[2-9TJQKA][CDHS]\b")
MINUS = "\u2212"  # the page's one minus sign
SETBACK_SEED = 1  # a Setback match in which the clicks below make some hands and are set back in others
SUIT_WORDS = {"C": "\u2663 clubs", "D": "\u2666 diamonds", "H": "\u2665 hearts", "S": "\u2660 spades"}


def named(names: list[str], scores: list[int]) -> str:
    """A score row as the page writes it: each side's name and score, a negative one with the minus sign U+2212."""
    return ", ".join(f"{name} {MINUS if p < 0 else ''}{abs(p)}" for name, p in zip(names, scores))


@contextlib.contextmanager
def _serving(app):
    """``app`` served by uvicorn on a free loopback port, in a thread; its base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        srv.should_exit = True
        thread.join(10)
        sock.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    app = create_app(["heuristic", "random"], db=MatchDB(tmp_path_factory.mktemp("db") / "matches.db"))
    with _serving(app) as base:
        yield app, base


def _no_download(*args, **kwargs):
    raise AssertionError("Selenium Manager ran: the test must use /usr/bin/chromedriver and /usr/bin/chromium")


def _chrome():
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))


@contextlib.contextmanager
def _session():
    """A browser session from Debian's chromium, with Selenium kept from downloading one."""
    original, SeleniumManager.binary_paths = SeleniumManager.binary_paths, _no_download
    driver = _chrome()
    try:
        yield driver
    finally:
        driver.quit()
        SeleniumManager.binary_paths = original


@pytest.fixture(scope="module")
def browser():
    with _session() as driver:
        yield driver


@pytest.fixture()
def friend(browser):
    """A second browser session (its own profile: its own storage), for a friend at the same table."""
    with _session() as driver:
        yield driver


def test_play_a_whole_yorkshire_match_by_clicking(server, browser):
    app, base = server
    browser.get(f"{base}/play?delay=0")
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    shown = lambda id: browser.find_element(By.ID, id).is_displayed()  # noqa: E731
    assert shown("setup") and not shown("game") and not shown("leave")  # no empty board under the form
    seat_rows = lambda: [e.text.split("\n")[0] for e in browser.find_elements(  # noqa: E731
        By.CSS_SELECTOR, "#seat-choices label") if e.is_displayed()]
    Select(browser.find_element(By.ID, "preset")).select_by_value("seven_up")
    assert not shown("players-row") and seat_rows() == ["Opponent"]  # two players, no partner
    Select(browser.find_element(By.ID, "preset")).select_by_value("traditional")
    assert shown("players-row") and seat_rows() == ["Left (opponent)", "Partner", "Right (opponent)"]
    Select(browser.find_element(By.ID, "players")).select_by_value("2")
    assert seat_rows() == ["Opponent"]
    Select(browser.find_element(By.ID, "preset")).select_by_value("yorkshire")
    assert not shown("players-row") and len(seat_rows()) == 3  # four players: a partner, a bot or a friend
    Select(browser.find_element(By.ID, "seat-1")).select_by_value("heuristic")
    Select(browser.find_element(By.ID, "seat-2")).select_by_value("random")
    Select(browser.find_element(By.ID, "seat-3")).select_by_value("heuristic")
    browser.find_element(By.ID, "start").click()
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.ID, "game").get_attribute("data-match-id"))
    match_id = browser.find_element(By.ID, "game").get_attribute("data-match-id")
    assert shown("game") and not shown("setup")

    refused = 0

    def card():  # once, a card the rules refuse; else a legal one
        nonlocal refused
        wrong = browser.find_elements(By.CSS_SELECTOR, '#hand .card[data-legal="false"]')
        if not refused and wrong:
            refused += 1
            check_a_refused_card(browser, app, match_id, wrong[0])
        else:
            browser.find_element(By.CSS_SELECTOR, '#hand .card[data-legal="true"]').click()

    summaries = play_to_the_end(browser, card=card)

    final = json.loads(browser.find_element(By.ID, "match-result").get_attribute("data-scores"))
    record = app.state.matches.record(match_id)
    assert record["done"] and max(record["scores"]) >= 11
    assert final == record["scores"] and refused == 1
    assert browser.find_element(By.ID, "final-scores").text == named(["You and partner", "Opponents"], final)
    assert browser.find_element(By.ID, "hand-no").text == str(record["results"][-1]["hand_no"] + 1)
    shown = final
    # The server's record replays on the engine to the same score.
    replay = GameState.new(record["preset"], seed=record["seed"])
    for seat, action in record["actions"]:
        assert replay.current == seat
        replay.apply(parse_action(action))
    assert replay.done and replay.scores == shown
    # Every hand was summed up on the page, High and Low with their cards, and the running score.
    assert len(summaries) == len(record["results"])
    for text, result in zip(summaries, record["results"]):
        if result["high_card"]:
            rank = "10" if result["high_card"][0] == "T" else result["high_card"][0]
            assert rank in text["high"] and ("You and partner" in text["high"] or "Opponents" in text["high"])
        assert text["scores"] == named(["You and partner", "Opponents"], result["scores"])
        assert text["sum"] == text["points"] == result["points"], text  # the rows add up to the hand's points
        assert text["board"] == ("", [])  # behind the summary nobody is to move, no "Clubs led" prompt
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


def test_play_a_whole_setback_match_by_clicking(server, browser, monkeypatch):
    """Setback (docs/rules.md section 8): the auction with the bids in words, the pitcher's first card naming
    trump, the contract and any set-back in each hand's summary, to the end of the match."""
    app, base = server
    # the match's secret seed, fixed: the deals (and so whether some hand is made and some set back) are the same
    # in every run
    monkeypatch.setattr(hosted, "secrets", SimpleNamespace(randbits=lambda bits: SETBACK_SEED,
                                                           token_urlsafe=secrets.token_urlsafe))
    browser.get(f"{base}/play?delay=0")
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    browser.execute_script("sessionStorage.clear(); localStorage.clear();")
    browser.get(f"{base}/play?delay=0")
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    shown = lambda id: browser.find_element(By.ID, id).is_displayed()  # noqa: E731
    seat_rows = lambda: [e.text.split("\n")[0] for e in browser.find_elements(  # noqa: E731
        By.CSS_SELECTOR, "#seat-choices label") if e.is_displayed()]
    Select(browser.find_element(By.ID, "preset")).select_by_value("pitch")  # four players each for themselves
    Select(browser.find_element(By.ID, "players")).select_by_value("4")
    assert shown("players-row") and seat_rows() == ["Left", "Across", "Right"]
    Select(browser.find_element(By.ID, "preset")).select_by_value("setback")
    assert not shown("players-row") and seat_rows() == ["Left (opponent)", "Partner", "Right (opponent)"]
    for seat in (1, 2, 3):
        Select(browser.find_element(By.ID, f"seat-{seat}")).select_by_value("heuristic")
    browser.find_element(By.ID, "start").click()
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.ID, "game").get_attribute("data-match-id"))
    match_id = browser.find_element(By.ID, "game").get_attribute("data-match-id")

    calls, prompts = [], set()

    def decide():  # the auction: alternately the highest bid offered and the first call
        buttons = browser.find_elements(By.CSS_SELECTOR, "#decisions button[data-action]")
        words = [b.text for b in buttons]
        assert all(re.fullmatch(r"Pass|Bid [1-4]|Smudge", w) for w in words), words
        prompts.add(browser.find_element(By.ID, "prompt").text.split(":")[0])
        button = buttons[-1] if len(calls) % 2 == 0 else buttons[0]
        action = button.get_attribute("data-action")
        button.click()
        calls.append(action)

    summaries = play_to_the_end(browser, decide=decide)

    record = app.state.matches.record(match_id)
    final = json.loads(browser.find_element(By.ID, "match-result").get_attribute("data-scores"))
    assert record["done"] and max(record["scores"]) >= 11 and final == record["scores"]
    assert record["seed"] == SETBACK_SEED
    assert browser.find_element(By.ID, "final-scores").text == named(["You and partner", "Opponents"], final)
    replay = GameState.new("setback", seed=record["seed"])  # the server's record replays to the same score
    privileges = 0  # "match": "the dealer may take the high bid at its value" (docs/rules.md section 8)
    for seat, action in record["actions"]:
        assert replay.current == seat
        privileges += action.startswith("BID_") and seat == replay.dealer and int(action[4:]) == replay.bid
        replay.apply(parse_action(action))
    assert replay.done and replay.scores == final
    taken = [x for x in log_lines(browser) if re.fullmatch(r"\w+ takes? the bid at [1-4]: the dealer's privilege\.", x)]
    assert len(taken) == privileges, (taken, privileges)
    assert {"PASS", "BID_4"} <= set(calls) and prompts <= {"Your call", "Everybody else passed"}, (calls, prompts)
    lines = log_lines(browser)
    assert any(" bid 4" in x or "bids " in x for x in lines) and any(" passes." in x for x in lines), lines
    assert any(re.search(r"pitch(es)? for [1-4]\.$", x) for x in lines), lines
    # Every hand summed up: the contract row, a set-back as a loss, and the rows adding up to the hand's points.
    results = record["results"]
    assert len(summaries) == len(results)
    for text, result in zip(summaries, results):
        assert text["sum"] == text["points"] == result["points"], text
        bid = f"bid {result['bid']}: "
        assert bid in text["contract"], text
        if result["made"]:
            assert text["contract"].endswith("made"), text
        else:
            assert "set back" in text["contract"] and f"\u2212{result['bid']}" in text["contract"], text
    assert any(not r["made"] for r in results) and any(r["made"] for r in results), results
    browser.find_element(By.ID, "rules-open").click()
    assert browser.find_element(By.ID, "rules-title").text == "Rules: Setback"
    assert any("passes (PASS)" in li.text for li in browser.find_elements(By.CSS_SELECTOR, "#rules-body li"))
    browser.find_element(By.ID, "rules-close").click()
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


PHONE = (390, 844)  # a phone's window, in CSS pixels
# Where an element lies in the window once the page is scrolled to the top: [top, bottom, right, height, width].
PLACE = """window.scrollTo(0, 0); const r = document.getElementById(arguments[0]).getBoundingClientRect();
return [r.top, r.bottom, r.right, window.innerHeight, window.innerWidth];"""


def test_a_pitch_match_on_a_phone_shows_the_contract_and_names_the_scores(server, browser):
    """Auction Pitch on a phone-sized window (docs/rules.md section 8: "The highest bidder, the pitcher, leads to
    the first trick, and the suit of that card is trump"). During play the table shows the contract, the pitcher
    by name and its bid, and trump once the pitch names it, on the first screen; the explanation of the bidding
    is in words, not the engine's names; after each hand no seat still shows a card; the score row names each
    player with its score, a negative one (a set-back) with the minus sign."""
    app, base = server
    store = app.state.matches
    names = ["You", "Left", "Across", "Right"]  # seat 0's view of four players each for themselves
    browser.set_window_size(*PHONE)
    try:
        made = store.create("pitch", ["human", "heuristic", "heuristic", "heuristic"], {"players": 4, "target": 5}, 5)
        mid = made["match_id"]
        resume(browser, base, made)
        contracts, summaries, explained = set(), 0, 0
        for _ in range(1000):
            state = WebDriverWait(browser, 30).until(lambda d: (s := d.execute_script(PAGE_STATE)) != "wait" and s)
            if state == "over":
                break
            game = store._matches[mid].state  # the server's engine: it waits for this seat now
            if state == "card":
                box = browser.find_element(By.ID, "contract")
                trump = f" \u00b7 {SUIT_WORDS['CDHS'[game.trump]]} trump" if game.trump >= 0 else ""
                assert box.text == f"Contract: {names[game.bidder]} bid {game.bid}{trump}", box.text
                top, bottom, right, height, width = browser.execute_script(PLACE, "contract")
                assert box.is_displayed() and 0 <= top and bottom <= height and right <= width
                contracts.add((game.hand_no, bool(trump)))
            elif state == "decision":
                explain = browser.find_element(By.ID, "explain").text
                assert explain and not re.search(r"\b(PASS|BID_\d|SMUDGE|min_bid)\b", explain), explain
                explained += 1
                # the highest bid offered: this seat's side is set back now and then
                browser.find_elements(By.CSS_SELECTOR, "#decisions button[data-action]")[-1].click()
                continue
            elif state == "summary":
                summaries += 1
                cards = [e.get_attribute("textContent") for e in browser.find_elements(By.CSS_SELECTOR, ".seat .cards")]
                assert cards == ["0 cards"] * 4, cards  # every card was played: none left in any hand
                scores = json.loads(browser.find_element(By.ID, "summary-scores").get_attribute("data-scores"))
                assert browser.find_element(By.ID, "summary-scores").text == named(names, scores)
                board = [(e.find_element(By.TAG_NAME, "b").text, e.get_attribute("textContent"))
                         for e in browser.find_elements(By.CSS_SELECTOR, "#scores .score")]
                assert [f"{n} {b}" for (b, _), n in zip(board, names)] == named(names, scores).split(", "), board
            click_once(browser, state)
        else:
            raise AssertionError("the match did not end")
        record = store.record(mid)
        assert record["done"] and summaries == len(record["results"]) and explained
        assert any(min(r["scores"]) < 0 for r in record["results"]), record["results"]  # a minus sign was shown
        assert {(h, True) for h in range(len(record["results"]))} <= contracts, contracts
        final = json.loads(browser.find_element(By.ID, "match-result").get_attribute("data-scores"))
        assert browser.find_element(By.ID, "final-scores").text == named(names, final)
        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors
    finally:
        browser.set_window_size(1280, 900)


def test_the_dealer_taking_the_bid_under_the_privilege_is_said(server, browser):
    """Setback's dealer_privilege "match" (docs/rules.md section 8: "the dealer may take the high bid at its
    value"): this seat deals, the eldest bids 2 and the others pass; the prompt offers the privilege in words, the
    button bids 2, and the log and the table's contract say who took the bid."""
    app, base = server
    store = app.state.matches
    seed = first_seed("setback", {}, lambda s: s.dealer == 0)
    made = store.create("setback", ["human"] * 4, {}, seed)
    mid, tokens = made["match_id"], {t["seat"]: t["token"] for t in made["tokens"]}
    for seat, call in ((1, "BID_2"), (2, "PASS"), (3, "PASS")):
        store.move(mid, tokens[seat], call)
    resume(browser, base, made)
    WebDriverWait(browser, 30).until(lambda d: d.execute_script(PAGE_STATE) == "decision")
    assert browser.find_element(By.ID, "prompt").text == ("Your call: Left bid 2; as dealer you may take it at 2 "
                                                          "(the dealer's privilege), bid more (3 or 4), or pass.")
    assert browser.find_element(By.ID, "contract").text == "High bid: Left 2"
    assert [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#decisions button")] == [
        "Pass", "Bid 2", "Bid 3", "Bid 4"]
    browser.find_element(By.ID, "action-BID_2").click()
    WebDriverWait(browser, 30).until(lambda d: d.execute_script(PAGE_STATE) == "card")
    assert "You take the bid at 2: the dealer's privilege." in log_lines(browser), log_lines(browser)
    assert browser.find_element(By.ID, "contract").text == "Contract: You bid 2"
    state = store._matches[mid].state
    assert state.bidder == 0 and state.bid == 2
    browser.find_element(By.ID, "leave").click()
    browser.find_element(By.ID, "leave-yes").click()
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "setup").is_displayed())


def play_to_the_end(browser, decide=None, card=None) -> list[dict]:
    """Click through the match to its result: each hand's summary read (``read_summary``) and dismissed,
    ``decide()`` at a decision (default: its first button), ``card()`` at a card (default: the first legal one).
    The summaries, in order."""
    decide = decide or (lambda: browser.find_element(By.CSS_SELECTOR, "#decisions button[data-action]").click())
    card = card or (lambda: browser.find_element(By.CSS_SELECTOR, '#hand .card[data-legal="true"]').click())
    summaries = []
    for _ in range(2000):
        state = WebDriverWait(browser, 30).until(lambda d: (s := d.execute_script(PAGE_STATE)) != "wait" and s)
        if state == "over":
            return summaries
        try:
            if state == "summary":
                summaries.append(read_summary(browser))
                browser.find_element(By.ID, "continue").click()
            elif state == "decision":
                decide()
            else:
                card()
        except StaleElementReferenceException:  # the page redrew between looking and clicking
            continue
    raise AssertionError("the match did not end")


def read_summary(browser) -> dict:
    """The hand summary as displayed: each row's text, the rows' points summed per side, the hand's points,
    and what the board behind it shows (who is marked to move, and the prompt unless it says the hand is over)."""
    rows = browser.execute_script(SUMMARY_ROWS)
    points = json.loads(browser.find_element(By.ID, "summary-points").get_attribute("data-points"))
    total = [sum(p[side] for _, _, p in rows) for side in range(len(points))]
    prompt = browser.find_element(By.ID, "prompt").text
    to_move = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".seat.to-move, .seat .tags span")
               if e.is_displayed() and (e.tag_name != "span" or e.text == "to move")]
    out = {row_id.removeprefix("summary-"): text for row_id, text, _ in rows}
    out.update(scores=browser.find_element(By.ID, "summary-scores").text, sum=total, points=points,
               board=("" if prompt.endswith("is over.") else prompt, to_move))
    return out


def check_a_refused_card(browser, app, match_id: str, card) -> None:
    """A card the rules refuse: the hand, its raised cards and the buttons stay; the page says why in words."""
    def hand():
        return [(c.get_attribute("data-card"), c.get_attribute("data-legal"), c.is_displayed())
                for c in browser.find_elements(By.CSS_SELECTOR, "#hand .card")]

    before, buttons = hand(), browser.find_element(By.ID, "decisions").text
    moves = len(app.state.matches.record(match_id)["actions"])
    card.click()
    message = browser.find_element(By.ID, "message")
    WebDriverWait(browser, 10).until(lambda d: message.is_displayed())
    text = message.text
    assert "were led: you must follow" in text and not CARD_ID.search(text) and "legal" not in text, text
    assert hand() == before and browser.find_element(By.ID, "decisions").text == buttons
    assert any(legal == "true" for _, legal, _ in before)  # the legal cards are still raised
    assert len(app.state.matches.record(match_id)["actions"]) == moves  # nothing was played


def resume(browser, base: str, made: dict, seat: int = 0, creator: bool = True) -> None:
    """Open the page on a match made through the API, as the page keeps one in this tab (a reload finds it)."""
    token = next(t["token"] for t in made["tokens"] if t["seat"] == seat)
    saved = {"id": made["match_id"], "token": token, "seat": seat, "creator": creator,
             "settings": {"preset": made["rules"]["preset"], "options": {},
                          "seats": [s["player"] for s in made["seats"]]}}
    browser.get(f"{base}/play?delay=0")
    browser.execute_script("sessionStorage.clear(); localStorage.setItem('allfours.match', arguments[0]);",
                           json.dumps(saved))
    browser.get(f"{base}/play?delay=0")
    wait_for_the_board(browser)


def wait_for_the_board(browser) -> None:
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
                                     and d.find_element(By.ID, "hand-no").text)
    assert browser.find_element(By.ID, "game").is_displayed()


def play_until(browser, done) -> None:
    """Click a decision or a legal card until ``done(page state)``."""
    for _ in range(500):
        state = WebDriverWait(browser, 30).until(lambda d: (s := d.execute_script(PAGE_STATE)) != "wait" and s)
        if done(state):
            return
        try:
            if state == "decision":
                browser.find_element(By.CSS_SELECTOR, "#decisions button[data-action]").click()
            elif state == "card":
                browser.find_element(By.CSS_SELECTOR, '#hand .card[data-legal="true"]').click()
            else:
                raise AssertionError(f"unexpected page state {state}")
        except StaleElementReferenceException:
            continue
    raise AssertionError("the page never got there")


def log_lines(browser) -> list[str]:
    return [li.get_attribute("textContent") for li in browser.find_elements(By.CSS_SELECTOR, "#log li")]


def first_seed(preset: str, options: dict, ok) -> int:
    return next(seed for seed in range(10_000) if ok(GameState.new(preset, seed=seed, **options)))


def test_a_reload_keeps_the_match_and_the_summary_counts_the_turn_up(server, browser):
    """Traditional, two players, a first turn-up that kicks: the summary has a row for it, and the rows add up."""
    app, base = server
    options = {"players": 2}
    kicks = make_rules("traditional", **options).kicks
    seed = first_seed("traditional", options, lambda s: kicks.get(s.turnups[0] % 13) and not s.done)
    made = app.state.matches.create("traditional", ["human", "heuristic"], options, seed)
    mid, turnup = made["match_id"], made["events"][1]
    assert turnup["type"] == "turnup" and turnup["points"] == kicks[parse_action(turnup["card"]) % 13]
    resume(browser, base, made)
    lines = log_lines(browser)
    assert lines[0] == "Hand 1: Opponent deals." or lines[0] == "Hand 1: You deal."
    assert any(line.startswith("Turned up:") and f"+{turnup['points']}" in line for line in lines), lines
    play_until(browser, lambda state: len(log_lines(browser)) > len(lines) + 4)
    lines = log_lines(browser)
    browser.refresh()  # the same match, and the same story so far
    wait_for_the_board(browser)
    assert log_lines(browser) == lines and len(lines) > 5
    play_until(browser, lambda state: state == "summary")
    text, result = read_summary(browser), app.state.matches.record(mid)["results"][0]
    assert text["sum"] == text["points"] == result["points"] and text["board"] == ("", [])
    rank = {"T": "10"}.get(turnup["card"][0], turnup["card"][0])
    assert rank in text["kicks"] and f"+{turnup['points']}" in text["kicks"], text

    # Leaving asks first; staying changes nothing; leaving a match nobody else is in ends it on the server.
    browser.find_element(By.ID, "continue").click()
    browser.find_element(By.ID, "leave").click()
    dialog = browser.find_element(By.ID, "leave-confirm")
    assert dialog.is_displayed() and "cannot be taken up again" in dialog.text
    browser.find_element(By.ID, "leave-no").click()
    assert not dialog.is_displayed() and browser.find_element(By.ID, "game").is_displayed()
    assert mid in app.state.matches._matches
    browser.find_element(By.ID, "leave").click()
    browser.find_element(By.ID, "leave-yes").click()
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "setup").is_displayed())
    assert not browser.find_element(By.ID, "game").is_displayed()  # the old table is gone
    assert mid not in app.state.matches._matches


def test_give_one_ending_the_match_and_leaving_a_match_with_other_people(server, browser):
    """Traditional, two people, to 1: the other begs and this seat, the dealer, gives one: the match is over."""
    app, base = server
    store = app.state.matches
    options = {"players": 2, "target": 1}
    seed = first_seed("traditional", options, lambda s: s.dealer == 0 and not s.done)
    made = store.create("traditional", ["human", "human"], options, seed)
    mid, tokens = made["match_id"], {t["seat"]: t["token"] for t in made["tokens"]}
    store.move(mid, tokens[1], "BEG")

    # Somebody else started it (creator=False): leaving only forgets it here; it goes on for the other person.
    resume(browser, base, made, creator=False)
    browser.find_element(By.ID, "leave").click()
    dialog = browser.find_element(By.ID, "leave-confirm")
    assert dialog.is_displayed() and "1 other person is playing" in dialog.text and "goes on for them" in dialog.text
    browser.find_element(By.ID, "leave-yes").click()
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "setup").is_displayed())
    assert store.view(mid, tokens[1])["view"]["to_move"] == 0  # still there, waiting for seat 0

    resume(browser, base, made)
    browser.find_element(By.ID, "action-GIVE_ONE").click()
    WebDriverWait(browser, 30).until(lambda d: d.execute_script(PAGE_STATE) == "summary")
    text, result = read_summary(browser), store.record(mid)["results"][0]
    assert text["sum"] == text["points"] == result["points"] == [0, 1]
    assert "+1" in text["gift"] and "Opponent" in text["gift"] and "before the first card" in text["unplayed"]
    assert not {"high", "low", "jack", "game"} & set(text), text  # no "not played" four times
    browser.find_element(By.ID, "continue").click()
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "match-result").is_displayed())
    assert browser.find_element(By.ID, "hand-no").text == "1"
    browser.find_element(By.ID, "new-match").click()

    # A match this page started, with another person in it: leaving ends it for everyone, after asking so.
    made = store.create("traditional", ["human", "human"], {"players": 2}, seed)
    resume(browser, base, made)
    browser.find_element(By.ID, "leave").click()
    assert "ends it for everyone" in browser.find_element(By.ID, "leave-confirm").text
    assert browser.find_element(By.ID, "leave-yes").text == "End the match for everyone"
    browser.find_element(By.ID, "leave-yes").click()
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "setup").is_displayed())
    assert made["match_id"] not in store._matches
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


def click_once(driver, state: str) -> bool:
    """One click of what the page offers in ``state`` (a summary's Continue, a decision, a legal card)."""
    try:
        if state == "summary":
            driver.find_element(By.ID, "continue").click()
        elif state == "decision":
            driver.find_element(By.CSS_SELECTOR, "#decisions button[data-action]").click()
        elif state == "card":
            driver.find_element(By.CSS_SELECTOR, '#hand .card[data-legal="true"]').click()
        else:
            return False
    except StaleElementReferenceException:
        return False
    return True


RULES_WORDS = " ".join((Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text().replace("`", "").split())


def test_two_friends_play_a_whole_match_by_link_and_a_reload_carries_on(server, browser, friend):
    """Two browser sessions at one table: the creator makes seat 1 a friend's and sends its join link; the
    friend opens it and takes the seat. Both play by clicking to the end; a reload mid-hand (and the tab opened
    again, its session storage gone) carries on where the match stands, with the same story so far."""
    app, base = server
    store = app.state.matches
    browser.get(f"{base}/play?delay=0&poll=200")
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    browser.execute_script("sessionStorage.clear(); localStorage.clear();")
    browser.get(f"{base}/play?delay=0&poll=200")
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    Select(browser.find_element(By.ID, "preset")).select_by_value("traditional")
    Select(browser.find_element(By.ID, "players")).select_by_value("2")
    Select(browser.find_element(By.ID, "seat-1")).select_by_value("human")
    browser.find_element(By.ID, "target").send_keys("4")
    browser.find_element(By.ID, "start").click()
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.ID, "game").get_attribute("data-match-id"))
    mid = browser.find_element(By.ID, "game").get_attribute("data-match-id")
    # the invites are drawn with the first view of the match, just after its id is set
    link_box = WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#invite-list input"))[0]
    assert browser.find_element(By.ID, "invites").is_displayed()
    link = link_box.get_attribute("value")
    assert link.startswith(f"{base}/play#join={mid}.") and link_box.get_attribute("data-seat") == "1"
    assert "not joined yet" in browser.find_element(By.ID, "pos-top").text

    friend.get(link.replace("/play#", "/play?delay=0&poll=200#"))
    wait_for_the_board(friend)
    assert friend.find_element(By.ID, "game").get_attribute("data-seat") == "1"
    assert "#join" not in friend.current_url  # the spent code is off the address bar
    assert "person" in friend.find_element(By.ID, "pos-top").text  # the other seat is a person, not a bot
    assert store._matches[mid].taken == {0, 1}

    pages, clicks, explained, reloaded, reopened = {"creator": browser, "friend": friend}, 0, set(), False, False
    deadline = time.monotonic() + 400
    while True:
        states = {name: d.execute_script(PAGE_STATE) for name, d in pages.items()}
        if all(s == "over" for s in states.values()):
            break
        assert time.monotonic() < deadline, states
        acted = False
        for name, d in pages.items():
            state = states[name]
            if state in ("decision", "card"):  # whose turn it is: the page marks the seat and says so
                me = d.find_element(By.ID, "game").get_attribute("data-seat")
                assert d.find_element(By.ID, "game").get_attribute("data-to-move") == me
                explain = d.find_element(By.ID, "explain")
                if explain.is_displayed():  # rules at hand, in docs/rules.md's words
                    for p in explain.find_elements(By.TAG_NAME, "p"):
                        assert " ".join(p.text.split()).rstrip(". ") in RULES_WORDS, p.text
                    explained.add(state)
            if click_once(d, state):
                acted, clicks = True, clicks + 1
        if not acted:
            time.sleep(0.1)
        hand = store._matches[mid].state
        if not reloaded and clicks >= 6 and hand.tricks and not hand.done:  # mid-hand: a reload carries on
            lines, cards = log_lines(friend), friend.find_element(By.ID, "hand").text
            friend.refresh()
            wait_for_the_board(friend)
            WebDriverWait(friend, 30).until(lambda d, before=lines: log_lines(d)[:len(before)] == before)
            assert friend.find_element(By.ID, "game").get_attribute("data-match-id") == mid
            if len(log_lines(friend)) == len(lines):
                assert friend.find_element(By.ID, "hand").text == cards
            reloaded = True
        if reloaded and not reopened and clicks >= 9 and not store._matches[mid].state.done:
            # The tab closed and opened again: no session storage, the browser's local storage has the seat.
            browser.execute_script("sessionStorage.clear();")
            browser.get(f"{base}/play?delay=0&poll=200")
            wait_for_the_board(browser)
            assert browser.find_element(By.ID, "game").get_attribute("data-seat") == "0"
            reopened = True
        assert clicks < 1000, "the match did not end"

    assert reloaded and reopened and {"decision", "card"} <= explained, explained
    record = store.record(mid)
    assert record["done"] and record["seats"] == ["human", "human"] and max(record["scores"]) >= 4
    for d in pages.values():
        assert json.loads(d.find_element(By.ID, "match-result").get_attribute("data-scores")) == record["scores"]
    won = record["winner"]
    assert pages["creator" if won == 0 else "friend"].find_element(By.ID, "result-title").text == "You win the match"
    # Replayed on the engine, the server's record gives the same score: nothing lost or doubled on the way.
    replay = GameState.new("traditional", seed=record["seed"], players=2, target=4)
    for seat, action in record["actions"]:
        assert replay.current == seat
        replay.apply(parse_action(action))
    assert replay.done and replay.scores == record["scores"]

    # The Rules panel: the preset's rules, in docs/rules.md's words.
    browser.find_element(By.ID, "rules-open").click()
    panel = browser.find_element(By.ID, "rules-panel")
    assert panel.is_displayed() and browser.find_element(By.ID, "rules-title").text == "Rules: Traditional"
    items = [li.text for li in panel.find_elements(By.CSS_SELECTOR, "#rules-body li")]
    assert len(items) >= 8 and any("BEG" in t for t in items)
    browser.find_element(By.ID, "rules-close").click()
    assert not panel.is_displayed()

    # The link again, now that the match is over: one clear error, and the setup form.
    friend.get(link.replace("/play#", "/play?delay=0#"))
    WebDriverWait(friend, 30).until(lambda d: d.find_element(By.ID, "setup-error").is_displayed())
    text = friend.find_element(By.ID, "setup-error").text
    assert text.startswith("Could not join the match:") and "over" in text, text
    for d in pages.values():
        errors = [e for e in d.get_log("browser") if e["level"] == "SEVERE" and "/join" not in e["message"]]
        assert not errors, errors


# ---------------------------------------------------------------------- /docs under the server's CSP
def _docs_operations(browser, base: str) -> int:
    browser.get_log("browser")  # drop what earlier tests left
    browser.get(f"{base}/docs")
    WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".opblock, .errors-wrapper"))
    return len(browser.find_elements(By.CSS_SELECTOR, ".opblock"))


def test_the_docs_page_renders_the_servers_description_under_its_content_security_policy(browser):
    """Swagger UI (5: it reads OpenAPI 3.1, as FastAPI describes the server) starts from its installed files,
    draws every operation and runs one ("Try it out"), and the browser reports nothing the page's policy
    blocked. (The Swagger UI 4 of swagger-ui-bundle 1.x showed "Unable to render this definition".)"""
    with _serving(create_app(["random"])) as base:  # /docs over the server's own 3.1 description
        assert _docs_operations(browser, base) >= 8
        assert not browser.find_elements(By.CSS_SELECTOR, ".errors-wrapper")
        browser.find_element(By.CSS_SELECTOR, ".opblock-summary-path[data-path='/v1/health']").click()
        WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".try-out__btn"))[0].click()
        WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".execute"))[0].click()
        status = WebDriverWait(browser, 10).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, ".live-responses-table tr.response .response-col_status"))
        assert status[0].text.strip().startswith("200")  # the answer of the server itself
        blocked = [e["message"] for e in browser.get_log("browser") if "Content Security Policy" in e["message"]]
        assert not blocked, blocked


def the_state(app, match_id: str) -> GameState:
    """The match as the server holds it, rebuilt from its seed and actions (the server's own record)."""
    record = app.state.matches.record(match_id)
    state = GameState.new(record["preset"], seed=record["seed"])
    for seat, action in record["actions"]:
        assert state.current == seat
        state.apply(parse_action(action))
    return state


def test_a_bot_seat_at_a_level_and_a_hint_with_the_rule_behind_it(browser):
    """Levels and hints for frontends (docs/protocol.md, "Levels", "Hints"): the setup offers a level beside a
    network bot only, in the server's words, the top level by default; the seat names the level's spec. "Hint"
    names the shipped bot's move in the position, legal, with the rule sentence the page shows for it (the
    twin of play_hint.rule_words, the terminal's)."""
    app = create_app(["bot:seven_up", "heuristic"])
    shipped = make_agent("bot:seven_up", preset="seven_up", players=2)
    with _serving(app) as base:
        browser.get(f"{base}/play?delay=0")
        WebDriverWait(browser, 30).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
        Select(browser.find_element(By.ID, "preset")).select_by_value("seven_up")
        bot, level_row = Select(browser.find_element(By.ID, "seat-1")), browser.find_element(By.ID, "level-row-1")
        level = Select(browser.find_element(By.ID, "level-1"))
        assert not level_row.is_displayed()  # the heuristic, kept from Yorkshire's choices: no levels
        bot.select_by_value("bot:seven_up")
        assert level_row.is_displayed()
        assert [o.text for o in level.options] == ["1: Beginner", "2: Casual", "3: Club", "4: Strong", "5: Expert"]
        assert level.first_selected_option.get_attribute("value") == "bot:seven_up:level=5"  # the full bot
        bot.select_by_value("heuristic")
        assert not level_row.is_displayed()  # no levels for a bot that is no network
        bot.select_by_value("bot:seven_up")
        level.select_by_visible_text("2: Casual")
        browser.find_element(By.ID, "start").click()
        wait_for_the_board(browser)
        match_id = browser.find_element(By.ID, "game").get_attribute("data-match-id")
        assert app.state.matches.record(match_id)["seats"] == ["human", "bot:seven_up:level=2"]
        assert "bot:seven_up (Casual)" in browser.find_element(By.ID, "pos-top").text
        hinted, kinds = 0, set()
        decisions = {"stand_or_beg", "give_or_run"}  # the eldest's, or the dealer's: the deal decides which
        for _ in range(200):  # the dealer's seat comes from the deal: hint until a decision and a card were asked
            state = WebDriverWait(browser, 30).until(lambda d: (s := d.execute_script(PAGE_STATE)) != "wait" and s)
            if state == "over" or (hinted >= 4 and kinds & decisions and kinds - decisions):
                break
            if state == "summary":
                browser.find_element(By.ID, "continue").click()
                continue
            box = browser.find_element(By.ID, "hint-box")
            assert not box.is_displayed()  # a new position: no hint until asked
            browser.find_element(By.ID, "hint").click()
            WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "hint-box").is_displayed())
            position = the_state(app, match_id)
            view = seat_view(position, 0)
            action = box.get_attribute("data-action")
            assert action in view["legal_actions"] and parse_action(action) == shipped(position, 0)
            assert 0 < float(box.get_attribute("data-probability")) <= 1
            move = box.find_element(By.CSS_SELECTOR, ".hint-move")
            assert move.text.startswith("Hint: bot:seven_up would play ") and re.search(r"\(probability \d+%\)\.$",
                                                                                         move.text), move.text
            rule = [p.text for p in box.find_elements(By.CSS_SELECTOR, ".hint-rule")]
            assert rule and rule == rule_words(view, action), (view["phase"], rule)
            kinds.add(rule_key(view, action))
            hinted += 1
            if state == "decision":
                browser.find_element(By.ID, f"action-{action}").click()
            else:
                browser.find_element(By.CSS_SELECTOR, f'#hand .card[data-card="{action}"]').click()
        assert hinted >= 4 and kinds & decisions and kinds - decisions, kinds
