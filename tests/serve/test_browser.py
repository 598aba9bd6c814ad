"""The play page (GET /play) in a real browser: headless Chromium plays a whole Yorkshire match by clicking.

Chromium and its driver come from Debian's packages (``.ci/browser_deps.sh``); Selenium is pointed at
/usr/bin/chromedriver, and Selenium Manager (which would download a browser) is made to fail if called.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import pytest
import uvicorn
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.selenium_manager import SeleniumManager
from selenium.webdriver.support.ui import Select, WebDriverWait

from allfours.agents.serve.app import create_app
from allfours_env import GameState, parse_action

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium "
                                "(apt-get install -y chromium chromium-driver; see .ci/browser_deps.sh)")

# What the page offers now: the end of the match, a hand summary to dismiss, a decision, a legal card.
PAGE_STATE = """
const shown = (id) => !document.getElementById(id).hidden;
if (shown('match-result')) return 'over';
if (shown('hand-summary')) return 'summary';
if (document.body.dataset.busy === 'true') return 'wait';
if (document.querySelector('#decisions button[data-action]:not([data-action="THROW_IN"])')) return 'decision';
if (document.querySelector('#hand .card[data-legal="true"]')) return 'card';
return 'wait';
"""


@pytest.fixture(scope="module")
def server():
    app = create_app(["heuristic", "random"])
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.started, "uvicorn did not start"
    yield app, f"http://127.0.0.1:{sock.getsockname()[1]}"
    srv.should_exit = True
    thread.join(10)
    sock.close()


@pytest.fixture(scope="module")
def browser():
    def no_download(*args, **kwargs):
        raise AssertionError("Selenium Manager ran: the test must use /usr/bin/chromedriver and /usr/bin/chromium")

    original, SeleniumManager.binary_paths = SeleniumManager.binary_paths, no_download
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))
    try:
        yield driver
    finally:
        driver.quit()
        SeleniumManager.binary_paths = original


def test_play_a_whole_yorkshire_match_by_clicking(server, browser):
    app, base = server
    browser.get(f"{base}/play?delay=0")
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    Select(browser.find_element(By.ID, "preset")).select_by_value("yorkshire")
    assert not browser.find_element(By.ID, "partner-row").get_attribute("hidden")  # four players: a bot partner
    Select(browser.find_element(By.ID, "opponent")).select_by_value("heuristic")
    Select(browser.find_element(By.ID, "partner")).select_by_value("random")
    browser.find_element(By.ID, "start").click()

    summaries, clicks = [], 0
    while True:
        state = WebDriverWait(browser, 30).until(lambda d: (s := d.execute_script(PAGE_STATE)) != "wait" and s)
        if state == "over":
            break
        try:
            if state == "summary":
                summaries.append({k: browser.find_element(By.ID, f"summary-{k}").text
                                  for k in ("high", "low", "jack", "game", "scores")})
                browser.find_element(By.ID, "continue").click()
            elif state == "decision":
                browser.find_element(By.CSS_SELECTOR, "#decisions button[data-action]").click()
            else:
                browser.find_element(By.CSS_SELECTOR, '#hand .card[data-legal="true"]').click()
        except StaleElementReferenceException:  # the page redrew between looking and clicking
            continue
        clicks += 1
        assert clicks < 2000, "the match did not end"

    match_id = browser.find_element(By.ID, "game").get_attribute("data-match-id")
    shown = json.loads(browser.find_element(By.ID, "match-result").get_attribute("data-scores"))
    record = app.state.matches.record(match_id)
    assert record["done"] and max(record["scores"]) >= 11
    assert shown == record["scores"]
    assert browser.find_element(By.ID, "final-scores").text == (
        f"You and partner {shown[0]}, Opponents {shown[1]}")
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
        assert text["scores"] == " \u2013 ".join(str(p) for p in result["scores"])
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
