// All Fours play page: a thin client of the hosted-match API (docs/protocol.md, "Hosted matches").
// The server keeps the game and judges every move; this page only shows what its seat may see.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  // ?delay=0 turns the animation off (the browser test uses it); milliseconds per card otherwise.
  const DELAY = params.has("delay") ? Math.max(0, Number(params.get("delay")) || 0) : 450;
  const STORE_KEY = "allfours.match";
  const SUIT_SYMBOL = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  const SUIT_NAME = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
  const RANK_NAME = { T: "10" };
  const DECISIONS = {
    STAND: "Stand", BEG: "Beg", GIVE_ONE: "Give one", RUN_PACK: "Run the pack", THROW_IN: "Throw in",
  };
  const DECISION_PAST = {
    STAND: "stands", BEG: "begs", GIVE_ONE: "gives one", RUN_PACK: "runs the pack", THROW_IN: "throws in",
  };
  const PRESET_PLAYERS = { yorkshire: 4, seven_up: 2 };

  let bots = [];
  let game = null; // {id, token, seat, seats, n, seq, view, lastTrick, trick, settings, over}

  // ------------------------------------------------------------------ small helpers
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const wait = (factor = 1) => (DELAY ? sleep(DELAY * factor) : Promise.resolve());

  function el(tag, attrs = {}, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "class") e.className = v;
      else if (k === "data") Object.assign(e.dataset, v);
      else e.setAttribute(k, v);
    }
    for (const c of children) e.append(c);
    return e;
  }

  function cardLabel(code) {
    return (RANK_NAME[code[0]] || code[0]) + SUIT_SYMBOL[code[1]];
  }

  function cardEl(code, tag = "span") {
    const e = el(tag, { class: `card suit-${code[1]}`, data: { card: code } }, cardLabel(code));
    e.setAttribute("aria-label", `${RANK_NAME[code[0]] || code[0]} of ${SUIT_NAME[code[1]]}`);
    return e;
  }

  async function api(method, path, body) {
    const headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (game && game.token) headers.Authorization = `Bearer ${game.token}`;
    const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (r.status === 204) return null;
    const data = await r.json().catch(() => ({ error: { message: r.statusText } }));
    if (!r.ok) {
      const e = new Error((data.error && data.error.message) || r.statusText);
      e.status = r.status;
      throw e;
    }
    return data;
  }

  function setBusy(busy) {
    document.body.dataset.busy = busy ? "true" : "false";
  }

  function show(id, visible) {
    $(id).hidden = !visible;
  }

  function message(text) {
    $("message").textContent = text || "";
    show("message", Boolean(text));
  }

  // ------------------------------------------------------------------ seats and sides
  function rel(seat) {
    return (seat - game.seat + game.n) % game.n;
  }

  function position(seat) {
    const layout = { 2: ["bottom", "top"], 3: ["bottom", "left", "right"], 4: ["bottom", "left", "top", "right"] };
    return layout[game.n][rel(seat)];
  }

  function seatName(seat) {
    if (seat === game.seat) return "You";
    const names = { 2: ["You", "Opponent"], 3: ["You", "Left", "Right"], 4: ["You", "Left", "Partner", "Right"] };
    return names[game.n][rel(seat)];
  }

  function sideName(side) {
    if (game.n !== 4) return seatName(side);
    return side === game.seat % 2 ? "You and partner" : "Opponents";
  }

  function sideOf(seat) {
    return game.n === 4 ? seat % 2 : seat;
  }

  function scoresText(scores) {
    return scores.join(" \u2013 ");
  }

  // ------------------------------------------------------------------ setup
  function botChoices(preset, players) {
    return bots.filter((b) => {
      if (b.kind === "unavailable" || !b.presets.includes(preset)) return false;
      const rules = b.model_card && b.model_card.rules;
      return !(rules && rules.players && rules.players !== players);
    });
  }

  function fillSelect(select, choices, preferred) {
    const old = select.value;
    select.replaceChildren(...choices.map((b) => el("option", { value: b.name }, `${b.name} (${b.kind})`)));
    const names = choices.map((b) => b.name);
    select.value = names.includes(old) ? old : names.includes(preferred) ? preferred : names[0] || "";
  }

  function refreshSetup() {
    const preset = $("preset").value;
    const fixed = PRESET_PLAYERS[preset];
    show("players-row", !fixed);
    const players = fixed || Number($("players").value);
    show("partner-row", players === 4);
    const choices = botChoices(preset, players);
    const neural = choices.find((b) => b.kind === "neural");
    fillSelect($("opponent"), choices, neural ? neural.name : "heuristic");
    fillSelect($("partner"), choices, neural ? neural.name : "heuristic");
    $("start").disabled = choices.length === 0;
  }

  function setupSettings() {
    const preset = $("preset").value;
    const players = PRESET_PLAYERS[preset] || Number($("players").value);
    const opponent = $("opponent").value;
    const partner = $("partner").value;
    const seats = ["human"];
    for (let s = 1; s < players; s++) seats.push(players === 4 && s === 2 ? partner : opponent);
    const options = {};
    if (preset === "traditional") options.players = players;
    const target = $("target").value.trim();
    if (target) options.target = Number(target);
    return { preset, options, seats };
  }

  async function startMatch(settings) {
    show("setup-error", false);
    setBusy(true);
    try {
      const created = await api("POST", "/v1/matches", settings);
      const mine = created.tokens[0];
      game = {
        id: created.match_id, token: mine.token, seat: mine.seat, seats: created.seats, n: created.seats.length,
        seq: 0, view: null, lastTrick: null, trick: [], turnups: [], settings, over: null,
      };
      sessionStorage.setItem(STORE_KEY, JSON.stringify({ id: game.id, token: game.token, seat: game.seat, settings }));
      enterGame();
      await refresh(true);
    } catch (e) {
      game = null;
      $("setup-error").textContent = `Could not start the match: ${e.message}`;
      show("setup-error", true);
      setBusy(false);
    }
  }

  function enterGame() {
    show("setup", false);
    show("game", true);
    show("leave", true);
    show("match-result", false);
    show("hand-summary", false);
    $("game").dataset.matchId = game.id;
    $("game").dataset.seat = String(game.seat);
    $("log").replaceChildren();
    message("");
  }

  function backToSetup(note) {
    sessionStorage.removeItem(STORE_KEY);
    game = null;
    show("game", false);
    show("leave", false);
    show("match-result", false);
    show("hand-summary", false);
    show("setup", true);
    $("setup-error").textContent = note || "";
    show("setup-error", Boolean(note));
    setBusy(false);
  }

  // ------------------------------------------------------------------ talking to the server
  async function refresh(animate) {
    setBusy(true);
    try {
      const state = await api("GET", `/v1/matches/${encodeURIComponent(game.id)}?since=${game.seq}`);
      await absorb(state, animate);
    } catch (e) {
      handleError(e);
    }
  }

  async function move(action) {
    if (!game || document.body.dataset.busy === "true") return;
    message("");
    setBusy(true);
    $("decisions").replaceChildren(); // nothing more to choose until the server answers
    for (const c of $("hand").querySelectorAll(".card")) c.dataset.legal = "false";
    try {
      const state = await api("POST", `/v1/matches/${encodeURIComponent(game.id)}/moves`,
        { action, since: game.seq, expect_seq: game.seq });
      await absorb(state, true);
    } catch (e) {
      handleError(e);
    }
  }

  function handleError(e) {
    if (e.status === 404 || e.status === 403) {
      backToSetup(`The match has gone: ${e.message}`);
      return;
    }
    message(e.message);
    setBusy(false);
    if (e.status === 409 && game) refresh(false);
  }

  async function absorb(state, animate) {
    game.seats = state.seats;
    const events = state.events;
    game.seq = state.seq;
    if (animate) {
      for (const e of events) await showEvent(e);
    } else {
      for (const e of events) quietEvent(e);
    }
    game.view = state.view;
    render();
    if (state.view.done) {
      showResult(state.view);
    } else if (!state.your_turn) {
      setTimeout(() => game && refresh(true), 1500); // another person is to move: look again soon
      return;
    }
    setBusy(false);
  }

  // ------------------------------------------------------------------ events
  function logLine(text) {
    const log = $("log");
    log.append(el("li", {}, text));
    log.scrollTop = log.scrollHeight; // the list scrolls, not the page
  }

  function quietEvent(e) {
    if (e.type === "trick") game.lastTrick = e;
    if (e.type === "match_over") game.over = e;
  }

  async function showEvent(e) {
    const who = e.seat !== undefined ? seatName(e.seat) : "";
    switch (e.type) {
      case "deal":
        game.trick = [];
        game.turnups = [];
        drawTrick();
        setTrump(null);
        $("turnups").replaceChildren();
        logLine(`Hand ${e.hand_no + 1}: ${seatName(e.dealer)} ${e.dealer === game.seat ? "deal" : "deals"}.`);
        break;
      case "turnup":
        logLine(`Turned up: ${cardLabel(e.card)}${e.points ? ` (${sideName(e.side)} +${e.points})` : ""}.`);
        $("turnups").append(cardEl(e.card));
        show("turnups-box", true);
        game.turnups.push(e.card);
        if (game.turnups.length > 1 && e.card[1] !== game.turnups[0][1]) setTrump(e.card[1]); // the pack was run
        await wait();
        break;
      case "decision":
        logLine(`${who} ${e.seat === game.seat ? DECISIONS[e.action].toLowerCase() : DECISION_PAST[e.action]}`
          + `${e.points ? ` (${sideName(e.side)} +${e.points})` : ""}.`);
        $("prompt").textContent = `${who}: ${DECISIONS[e.action]}`;
        if ((e.action === "STAND" || e.action === "GIVE_ONE") && game.turnups.length) setTrump(game.turnups[0][1]);
        await wait();
        break;
      case "play":
        game.trick.push({ seat: e.seat, card: e.card });
        if (e.trump) {
          logLine(`${who} pitched ${cardLabel(e.card)}: ${SUIT_NAME[e.trump]} are trump.`);
          setTrump(e.trump);
        } else {
          logLine(`${who} played ${cardLabel(e.card)}.`);
        }
        if (e.seat === game.seat) removeFromHand(e.card);
        drawTrick();
        await wait();
        break;
      case "throw_in":
        game.trick.push({ seat: e.seat, thrown: e.cards });
        logLine(`${who} threw in ${e.cards.map(cardLabel).join(" ")}.`);
        if (e.seat === game.seat) $("hand").replaceChildren();
        drawTrick();
        await wait();
        break;
      case "trick":
        drawTrick(e.winner);
        logLine(`${seatName(e.winner)} ${e.winner === game.seat ? "win" : "wins"} the trick.`);
        await wait(1.6);
        game.lastTrick = e;
        game.trick = [];
        drawTrick();
        drawPrevious();
        break;
      case "redeal":
        logLine(`The pack ran out: ${seatName(e.dealer)} deals again.`);
        $("turnups").replaceChildren();
        game.turnups = [];
        break;
      case "hand_result":
        drawScores(e.scores);
        logLine(`Hand ${e.hand_no + 1} scored: ${sideListText(e.points)}.`);
        await summary(e);
        break;
      case "match_over":
        game.over = e;
        break;
      default:
        break;
    }
  }

  function removeFromHand(code) {
    const c = $("hand").querySelector(`[data-card="${code}"]`);
    if (c) c.remove();
  }

  function sideListText(points) {
    return points.map((p, side) => `${sideName(side)} ${p}`).join(", ");
  }

  function categoryText(side, card, extra) {
    const cell = [];
    if (side === null || side === undefined) return [extra || "nobody"];
    cell.push(sideName(side));
    if (card) cell.push(" ", cardEl(card));
    if (extra) cell.push(` ${extra}`);
    return cell;
  }

  function summary(e) {
    $("summary-title").textContent = `Hand ${e.hand_no + 1} over` + (e.trump ? ` (${SUIT_NAME[e.trump]} trump)` : "");
    $("hand-summary").dataset.handNo = String(e.hand_no);
    const played = e.high !== null;
    $("summary-high").replaceChildren(...(played ? categoryText(e.high, e.high_card) : ["not played"]));
    $("summary-low").replaceChildren(...(played ? categoryText(e.low, e.low_card) : ["not played"]));
    let jackNote = e.jack_card ? "" : "the jack of trumps was not dealt";
    if (e.jack !== null && e.jack_points > 1) jackNote = `hang jack: ${e.jack_points} points`;
    $("summary-jack").replaceChildren(...(played ? categoryText(e.jack, e.jack_card, jackNote) : ["not played"]));
    const totals = e.game_totals.map((t, side) => `${sideName(side)} ${t}`).join(", ");
    const gameCell = played ? (e.game === null ? [`a tie (${totals})`] : categoryText(e.game, null, `(${totals})`))
      : ["not played"];
    $("summary-game").replaceChildren(...gameCell);
    $("summary-points").textContent = sideListText(e.points);
    $("summary-scores").textContent = scoresText(e.scores);
    $("summary-scores").dataset.scores = JSON.stringify(e.scores);
    show("hand-summary", true);
    setBusy(false); // the Continue button is the only thing to do now
    return new Promise((resolve) => {
      $("continue").onclick = () => {
        show("hand-summary", false);
        setBusy(true);
        resolve();
      };
    });
  }

  function showResult(view) {
    const scores = view.scores;
    const winner = view.winner;
    $("result-title").textContent = winner === sideOf(game.seat)
      ? (game.n === 4 ? "You and your partner win the match" : "You win the match")
      : `${sideName(winner)} ${game.n === 4 ? "win" : "wins"} the match`;
    $("final-scores").textContent = scores.map((p, side) => `${sideName(side)} ${p}`).join(", ");
    $("match-result").dataset.scores = JSON.stringify(scores);
    $("match-result").dataset.winner = String(winner);
    show("match-result", true);
    sessionStorage.removeItem(STORE_KEY);
  }

  // ------------------------------------------------------------------ drawing the view
  function setTrump(suit) {
    $("trump").textContent = suit ? `${SUIT_SYMBOL[suit]} ${SUIT_NAME[suit]}` : "not yet";
    $("trump").dataset.suit = suit || "";
    $("trump").className = suit ? `suit-${suit}` : "";
  }

  function drawScores(scores) {
    const mine = sideOf(game.seat);
    $("scores").replaceChildren(...scores.map((p, side) => el("span",
      { class: side === mine ? "score mine" : "score", data: { side: String(side) } }, sideName(side), el("b", {}, String(p)))));
    $("scores").dataset.scores = JSON.stringify(scores);
  }

  function drawTrick(winner) {
    for (const pos of ["top", "left", "right", "bottom"]) $(`slot-${pos}`).replaceChildren();
    for (const p of game.trick) {
      const slot = $(`slot-${position(p.seat)}`);
      if (p.thrown) {
        slot.append(el("div", { class: "thrown" }, `${seatName(p.seat)} threw in`, el("br"), ...p.thrown.map((c) => cardEl(c))));
      } else {
        const c = cardEl(p.card);
        if (p.seat === winner) c.classList.add("winner");
        slot.append(c);
      }
    }
  }

  function drawPrevious() {
    const t = game.lastTrick;
    const box = $("previous-trick");
    if (!t) {
      box.replaceChildren("none yet");
      return;
    }
    const items = t.plays.map((p) => el("div", { class: p.seat === t.winner ? "play winner" : "play" },
      cardEl(p.card), seatName(p.seat)));
    for (const th of t.thrown_in) items.push(el("div", { class: "play" }, `${seatName(th.seat)} threw in `,
      th.cards.map(cardLabel).join(" ")));
    box.replaceChildren(...items);
  }

  function drawSeats(view) {
    for (const pos of ["top", "left", "right"]) $(`pos-${pos}`).replaceChildren();
    for (let s = 0; s < game.n; s++) {
      const box = s === game.seat ? $("my-seat") : $(`pos-${position(s)}`);
      const player = game.seats[s].player;
      const tags = [];
      if (s === view.dealer) tags.push("dealer");
      if (view.to_move === s) tags.push("to move");
      if (view.out.includes(s)) tags.push("thrown in");
      box.replaceChildren(el("div", { class: "name" }, seatName(s)),
        el("div", { class: "bot" }, player === "human" ? (s === game.seat ? "" : "person") : player),
        el("div", {}, `${view.hand_sizes[s]} card${view.hand_sizes[s] === 1 ? "" : "s"}`),
        el("div", { class: "tags" }, ...tags.map((t) => el("span", {}, t))));
      box.dataset.seat = String(s);
      box.classList.toggle("to-move", view.to_move === s);
    }
  }

  function drawHand(view) {
    const hand = $("hand");
    const legal = new Set(view.legal_actions);
    if (view.hand_hidden) {
      hand.replaceChildren(...Array.from({ length: view.hand_sizes[game.seat] }, () => el("span", { class: "card back" })),
        el("span", { class: "hidden-hand" }, "Your cards stay face down until the first card is led."));
      return;
    }
    hand.replaceChildren(...view.hand.map((code) => {
      const b = cardEl(code, "button");
      b.type = "button";
      b.dataset.legal = legal.has(code) ? "true" : "false";
      b.addEventListener("click", () => move(code));
      return b;
    }));
  }

  function drawDecisions(view) {
    const words = view.legal_actions.filter((a) => DECISIONS[a]);
    $("decisions").replaceChildren(...words.map((a) => {
      const b = el("button", { type: "button", id: `action-${a}`, data: { action: a } }, DECISIONS[a]);
      b.addEventListener("click", () => move(a));
      return b;
    }));
  }

  function promptText(view) {
    if (view.done) return "The match is over.";
    if (view.to_move !== game.seat) return `Waiting for ${seatName(view.to_move)}\u2026`;
    if (view.phase === "stand_or_beg") return `Your turn: stand (${cardLabel(view.turnup)} makes trump) or beg?`;
    if (view.phase === "give_or_run") return "Your turn: give one point, or run the pack?";
    const t = view.current_trick;
    if (!t.plays.length) return view.trump ? "Your lead." : "Your pitch: the suit you lead is trump.";
    const led = t.plays[0].card[1];
    if (led === view.trump) return `Trump led: follow with a trump if you can.`;
    const name = SUIT_NAME[led][0].toUpperCase() + SUIT_NAME[led].slice(1);
    return `${name} led: follow suit or trump.`;
  }

  function render() {
    const v = game.view;
    drawScores(v.scores);
    $("target-score").textContent = String(v.target);
    $("hand-no").textContent = String(v.hand_no + 1);
    setTrump(v.trump);
    $("turnups").replaceChildren(...v.turnups.map((c) => cardEl(c)));
    game.turnups = v.turnups.slice();
    show("turnups-box", v.turnups.length > 0);
    game.trick = v.current_trick.plays.map((p) => ({ seat: p.seat, card: p.card }));
    for (const th of v.current_trick.thrown_in) game.trick.push({ seat: th.seat, thrown: th.cards });
    drawTrick();
    if (v.tricks.length) game.lastTrick = v.tricks[v.tricks.length - 1];
    drawPrevious();
    drawSeats(v);
    drawHand(v);
    drawDecisions(v);
    $("prompt").textContent = promptText(v);
    $("game").dataset.toMove = v.to_move === null ? "" : String(v.to_move);
  }

  // ------------------------------------------------------------------ start up
  async function init() {
    $("preset").addEventListener("change", refreshSetup);
    $("players").addEventListener("change", refreshSetup);
    $("setup-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      startMatch(setupSettings());
    });
    $("leave").addEventListener("click", async () => {
      if (game) await api("DELETE", `/v1/matches/${encodeURIComponent(game.id)}`).catch(() => null);
      backToSetup("");
    });
    $("again").addEventListener("click", () => {
      const settings = game.settings;
      startMatch(settings);
    });
    $("new-match").addEventListener("click", () => backToSetup(""));
    try {
      bots = (await api("GET", "/v1/bots")).bots;
    } catch (e) {
      $("setup-error").textContent = `The server did not list its bots: ${e.message}`;
      show("setup-error", true);
    }
    refreshSetup();
    const saved = JSON.parse(sessionStorage.getItem(STORE_KEY) || "null");
    if (saved) {
      game = { ...saved, seats: [], n: (saved.settings.seats || []).length, seq: 0, view: null, lastTrick: null,
        trick: [], turnups: [], over: null };
      enterGame();
      await refresh(false);
    }
    document.body.dataset.ready = "true";
  }

  init();
})();
