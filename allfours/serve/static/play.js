// All Fours play page: a thin client of the hosted-match API (docs/protocol.md, "Hosted matches").
// The server keeps the game and judges every move; this page only shows what its seat may see.
// Friends: the creator chooses which seats are people and gets a join link for each (/play#join=ID.CODE: the
// code travels in the fragment, which no server log sees). The seat's token is kept in this browser's storage,
// so a reload, or the tab opened again, reads the match from the start and carries on.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  // ?delay=0 turns the animation off (the browser test uses it); milliseconds per card otherwise.
  const DELAY = params.has("delay") ? Math.max(0, Number(params.get("delay")) || 0) : 450;
  // ?poll=MS: how often a seat waiting for another person looks again (default 1500).
  const POLL = params.has("poll") ? Math.max(100, Number(params.get("poll")) || 1500) : 1500;
  const STORE_KEY = "allfours.match";
  // The tab's own match first (two tabs may hold two seats), else the last one this browser played.
  const stores = [window.sessionStorage, window.localStorage];
  const saveSeat = (saved) => stores.forEach((st) => st.setItem(STORE_KEY, JSON.stringify(saved)));
  const forgetSeat = () => stores.forEach((st) => st.removeItem(STORE_KEY));
  function loadSeat() {
    for (const st of stores) {
      try {
        const saved = JSON.parse(st.getItem(STORE_KEY) || "null");
        if (saved && saved.id && saved.token) return saved;
      } catch (e) {
        // unreadable: try the next
      }
    }
    return null;
  }
  const SUIT_SYMBOL = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  const SUIT_NAME = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
  const RANK_NAME = { T: "10" };
  const DECISIONS = {
    STAND: "Stand", BEG: "Beg", GIVE_ONE: "Give one", RUN_PACK: "Run the pack", THROW_IN: "Throw in",
    PASS: "Pass", BID_1: "Bid 1", BID_2: "Bid 2", BID_3: "Bid 3", BID_4: "Bid 4", SMUDGE: "Smudge",
  };
  const DECISION_PAST = {
    STAND: "stands", BEG: "begs", GIVE_ONE: "gives one", RUN_PACK: "runs the pack", THROW_IN: "throws in",
    PASS: "passes", BID_1: "bids 1", BID_2: "bids 2", BID_3: "bids 3", BID_4: "bids 4", SMUDGE: "smudges",
  };
  const bidWords = (bid) => (bid === 5 ? "the smudge" : String(bid));

  let bots = [];
  // GET /v1/presets: each preset's family, player counts, defaults and options, by name (the page knows none).
  const presets = {};
  let rules = null; // static/rules.json: the words of docs/rules.md
  // {id, token, seat, seats, n, seq, view, results, target, lastTrick, trick, turnups, hand, settings, over, creator}
  // hand: what the current hand's events said so far (its kicks, a point given, whether a card was played).
  let game = null;

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
      e.type = data.error && data.error.type;
      e.reason = data.error && data.error.reason; // an illegal move: the rules engine's words
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

  const SEAT_NAMES = { 2: ["You", "Opponent"], 3: ["You", "Left", "Right"], 4: ["You", "Left", "Partner", "Right"] };

  // Four players in two partnerships (every four-player game but Auction Pitch, which plays each for themselves
  // unless its options say partnerships).
  function partners() {
    return game.n === 4 && game.partnerships;
  }

  function seatName(seat) {
    if (seat === game.seat) return "You";
    if (game.n === 4 && !partners() && rel(seat) === 2) return "Across";
    return SEAT_NAMES[game.n][rel(seat)];
  }

  function isPerson(seat) {
    return Boolean(game.seats[seat]) && game.seats[seat].player === "human";
  }

  function sideName(side) {
    if (!partners()) return seatName(side);
    return side === game.seat % 2 ? "You and partner" : "Opponents";
  }

  function sideOf(seat) {
    return partners() ? seat % 2 : seat;
  }

  // A score or points as the page writes every number: a negative one with the minus sign (U+2212).
  function num(p) {
    return p < 0 ? `\u2212${-p}` : String(p);
  }

  // Each side (or player) by name with its score: "You and partner 3, Opponents \u22122".
  function scoresText(scores) {
    return scores.map((p, side) => `${sideName(side)} ${num(p)}`).join(", ");
  }

  // ------------------------------------------------------------------ setup
  // A preset as the server lists it; one it did not list (the list failed) offers the page's player counts.
  function presetInfo(preset) {
    const counts = [...$("players").options].map((o) => Number(o.value));
    return presets[preset] || { name: preset, family: "", players: counts, default_players: Math.max(...counts),
      partnerships: true, throw_in: false };
  }

  // The seats of the table being set up: the one count a preset allows, else the one chosen.
  function setupPlayers(info) {
    return info.players.length > 1 ? Number($("players").value) : info.default_players;
  }

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

  const FRIEND = { name: "human", label: "A friend (gets a join link)" };

  // One choice per seat besides yours (seat 0): a bot, or a friend who joins by link.
  function refreshSetup() {
    const preset = $("preset").value;
    const info = presetInfo(preset);
    show("players-row", info.players.length > 1);
    for (const o of $("players").options) o.disabled = !info.players.includes(Number(o.value));
    const players = setupPlayers(info);
    const alone = !info.partnerships; // four players each for themselves (Auction Pitch)
    $("players").querySelector('option[value="4"]').textContent = alone ? "4 (everyone alone)" : "4 (two partnerships)";
    const choices = botChoices(preset, players);
    const neural = choices.find((b) => b.kind === "neural");
    const old = {};
    for (const sel of $("seat-choices").querySelectorAll("select")) old[sel.id] = sel.value;
    const levels = {}; // a network bot's levels (GET /v1/bots), weakest first
    for (const b of choices) levels[b.name] = b.levels || [];
    const labels = { 2: ["Opponent"], 3: ["Left", "Right"],
      4: alone ? ["Left", "Across", "Right"] : ["Left (opponent)", "Partner", "Right (opponent)"] };
    const rows = [];
    for (let s = 1; s < players; s++) {
      const select = el("select", { id: `seat-${s}`, data: { seat: String(s) } },
        el("option", { value: FRIEND.name }, FRIEND.label),
        ...choices.map((b) => el("option", { value: b.name }, `${b.name} (${b.kind})`)));
      const names = [FRIEND.name, ...choices.map((b) => b.name)];
      const wanted = old[select.id];
      select.value = names.includes(wanted) ? wanted : (neural ? neural.name : choices.some((b) => b.name === "heuristic")
        ? "heuristic" : (choices[0] || FRIEND).name);
      // The level of a network bot: its words from the server, the top level (the full bot) unless chosen.
      const level = el("select", { id: `level-${s}`, data: { seat: String(s) } });
      const levelRow = el("label", { id: `level-row-${s}`, class: "level" }, "Level", level);
      const showLevels = () => {
        const offered = levels[select.value] || [];
        const kept = level.dataset.bot === select.value ? level.value : old[level.id];
        level.replaceChildren(...offered.map((l) => el("option", { value: l.spec }, `${l.level}: ${l.word}`)));
        if (offered.length) {
          level.value = offered.some((l) => l.spec === kept) ? kept : offered[offered.length - 1].spec;
        }
        level.dataset.bot = select.value;
        levelRow.hidden = offered.length === 0;
      };
      select.addEventListener("change", showLevels);
      showLevels();
      rows.push(el("div", { class: "seat-row" }, el("label", { id: `seat-row-${s}` }, labels[players][s - 1], select),
        levelRow));
    }
    $("seat-choices").replaceChildren(...rows);
    show("rules-preset", Boolean(rules));
  }

  function setupSettings() {
    const preset = $("preset").value;
    const info = presetInfo(preset);
    const players = setupPlayers(info);
    const seats = ["human"];
    for (let s = 1; s < players; s++) { // a network bot's level names the seat (its spec: bot:<name>:level=N)
      seats.push($(`level-row-${s}`).hidden ? $(`seat-${s}`).value : $(`level-${s}`).value);
    }
    const options = {};
    if (info.players.length > 1) options.players = players;
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
      const base = `${location.origin}${location.pathname}`;
      const invites = created.joins.filter((j) => j.seat !== mine.seat).map((j) => ({ seat: j.seat, link: `${base}#join=${created.match_id}.${j.code}` }));
      const saved = { id: created.match_id, token: mine.token, seat: mine.seat, settings, creator: true, invites };
      game = newGame(saved, created.seats);
      saveSeat(saved);
      enterGame();
      await refresh(true);
    } catch (e) {
      game = null;
      $("setup-error").textContent = `Could not start the match: ${e.message}`;
      show("setup-error", true);
      setBusy(false);
    }
  }

  function newGame(saved, seats) {
    const settings = saved.settings || { preset: "", options: {}, seats: [] };
    const n = seats.length || (settings.seats || []).length;
    return { invites: [], ...saved, settings, seats, n, seq: 0, view: null, results: [], target: null, lastTrick: null,
      trick: [], turnups: [], hand: freshHand(), over: null, sizes: new Array(n).fill(0), dealer: null, out: [],
      contract: null, trump: null };
  }

  // high: the highest bid of the deal so far (a bid equal to it is the dealer's privilege, docs/rules.md section 8).
  function freshHand() {
    return { kicks: [], gift: null, played: false, high: 0, bidder: null };
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
    forgetSeat();
    game = null;
    show("game", false);
    show("leave", false);
    show("match-result", false);
    show("hand-summary", false);
    show("leave-confirm", false);
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

  // The server judges every move. A card the view does not list as legal gets the server's words for it
  // (the answer's refusals), the hand and the buttons staying as they are; anything else goes to the server,
  // whose refusal says why in the rules engine's words.
  async function move(action) {
    if (!game || !game.view || document.body.dataset.busy === "true") return;
    const offered = game.view.legal_actions.includes(action);
    if (!offered && game.refusals && game.refusals[action]) {
      message(sentence(game.refusals[action]));
      return;
    }
    message("");
    setBusy(true);
    if (offered) {
      $("decisions").replaceChildren(); // nothing more to choose until the server answers
      for (const c of $("hand").querySelectorAll(".card")) c.dataset.legal = "false";
      drawTurn(null, "");
    }
    try {
      const state = await api("POST", `/v1/matches/${encodeURIComponent(game.id)}/moves`,
        { action, since: game.seq, expect_seq: game.seq });
      await absorb(state, true);
    } catch (e) {
      if (e.status === 422 && game && game.view) { // refused: the hand and buttons as they were
        render();
        message(e.type === "illegal_move" && e.reason ? sentence(e.reason)
          : `The server refused that move: ${e.message}`);
        setBusy(false);
        return;
      }
      handleError(e);
    }
  }

  // The server's words as a sentence: a capital first letter and a full stop.
  function sentence(text) {
    return text ? `${text[0].toUpperCase()}${text.slice(1)}.` : "";
  }

  function handleError(e) {
    if (e.status === 404 || e.status === 403) {
      backToSetup(`The match has gone: ${e.message}`);
      return;
    }
    if (game && game.view) render();
    message(e.message);
    setBusy(false);
    if (e.status === 409 && game) refresh(false);
  }

  async function absorb(state, animate) {
    game.seats = state.seats;
    game.n = state.seats.length;
    if (game.sizes.length !== game.n) game.sizes = new Array(game.n).fill(0);
    game.target = state.view.target;
    const info = presetInfo(state.view.preset);
    game.auction = info.family === "auction"; // docs/rules.md section 8: trump is won in an auction
    // Only the auction presets' options say; the others play as the preset does (four in partnerships).
    game.partnerships = state.view.options.partnerships ?? info.partnerships;
    if (!game.settings.preset) { // a seat joined by link: "Play again" starts the same table
      const options = { target: state.view.target };
      if (info.players.length > 1) options.players = state.view.players;
      const together = state.view.options.partnerships;
      if (together !== undefined && together !== info.partnerships) options.partnerships = together;
      game.settings = { preset: state.view.preset, options, seats: state.seats.map((x) => x.player) };
    }
    drawInvites();
    const events = state.events;
    game.seq = state.seq;
    if (animate) {
      for (const e of events) await showEvent(e);
    } else {
      for (const e of events) quietEvent(e);
    }
    game.view = state.view;
    game.refusals = state.refusals || {}; // the server's words for each card of the hand it may not play now
    game.results = state.results;
    game.hintBot = state.hint_bot || null; // the bot GET .../hint asks (null: this table has no hints)
    render();
    if (state.view.done) {
      showResult(state.view);
    } else if (!state.your_turn) {
      setTimeout(() => game && refresh(true), POLL); // another person is to move: look again soon
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

  // What an event says in the log, and what the page keeps of it (the hand's points so far): for every event,
  // shown one by one or (after a reload) all at once.
  function record(e) {
    const who = e.seat !== undefined ? seatName(e.seat) : "";
    const plus = e.points ? ` (${sideName(e.side)} +${e.points})` : "";
    switch (e.type) {
      case "deal":
        game.hand = freshHand();
        game.contract = null;
        game.dealer = e.dealer;
        return `Hand ${e.hand_no + 1}: ${seatName(e.dealer)} ${e.dealer === game.seat ? "deal" : "deals"}.`;
      case "turnup":
        game.hand.kicks.push({ card: e.card, side: e.side, points: e.points });
        return `Turned up: ${cardLabel(e.card)}${plus}.`;
      case "decision":
        if (e.action === "GIVE_ONE") game.hand.gift = { side: e.side, points: e.points };
        return `${who} ${e.seat === game.seat ? DECISIONS[e.action].toLowerCase() : DECISION_PAST[e.action]}${plus}.`;
      case "bid": {
        const privilege = e.bid > 0 && e.bid === game.hand.high; // only the dealer's privilege bids the high bid
        if (e.bid && e.bid >= game.hand.high) Object.assign(game.hand, { high: e.bid, bidder: e.seat });
        if (privilege) {
          return `${who} ${e.seat === game.seat ? "take" : "takes"} the bid at ${e.bid}: the dealer's privilege.`;
        }
        return `${who} ${e.seat === game.seat ? DECISIONS[e.action].toLowerCase() : DECISION_PAST[e.action]}.`;
      }
      case "contract":
        game.contract = { seat: e.seat, bid: e.bid };
        if (!e.bid) return `Everybody passed: ${who} ${e.seat === game.seat ? "pitch" : "pitches"} with no contract.`;
        return `${who} ${e.seat === game.seat ? "pitch" : "pitches"} for ${bidWords(e.bid)}.`;
      case "play":
        game.hand.played = true;
        return e.trump ? `${who} pitched ${cardLabel(e.card)}: ${SUIT_NAME[e.trump]} are trump.`
          : `${who} played ${cardLabel(e.card)}.`;
      case "throw_in":
        game.hand.played = true;
        return `${who} threw in ${e.cards.map(cardLabel).join(" ")}.`;
      case "trick":
        return `${seatName(e.winner)} ${e.winner === game.seat ? "win" : "wins"} the trick.`;
      case "redeal":
        Object.assign(game.hand, { high: 0, bidder: null });
        return game.auction ? `Everybody passed: ${seatName(e.dealer)} ${e.dealer === game.seat ? "deal" : "deals"} again.`
          : `The pack ran out: ${seatName(e.dealer)} deals again.`;
      case "hand_result":
        return `Hand ${e.hand_no + 1} scored: ${sideListText(e.points)}.`;
      case "match_over":
        game.over = e;
        return `${sideName(e.winner)} ${e.winner === sideOf(game.seat) || partners() ? "win" : "wins"} the match, `
          + `${scoresText(e.scores)}.`;
      default:
        return "";
    }
  }

  function quietEvent(e) {
    const line = record(e);
    if (line) logLine(line);
    if (e.type === "trick") game.lastTrick = e;
  }

  async function showEvent(e) {
    const hand = game.hand; // the hand a hand_result scores (record starts a new one only at the next deal)
    const line = record(e);
    if (line) {
      logLine(line);
      if (e.type !== "hand_result" && e.type !== "match_over") $("prompt").textContent = line;
    }
    switch (e.type) {
      case "deal":
        game.trick = [];
        game.turnups = [];
        game.sizes = game.sizes.map(() => dealt());
        game.out = [];
        game.trump = null;
        drawTrick();
        setTrump(null);
        drawTurn(null, $("prompt").textContent);
        $("turnups").replaceChildren();
        break;
      case "turnup":
        $("turnups").append(cardEl(e.card));
        show("turnups-box", true);
        if (game.turnups.length) game.sizes = game.sizes.map((k) => k + runSize()); // the pack was run
        game.turnups.push(e.card);
        if (game.turnups.length > 1 && e.card[1] !== game.turnups[0][1]) setTrump(e.card[1]); // the pack was run
        await wait();
        break;
      case "decision":
        if ((e.action === "STAND" || e.action === "GIVE_ONE") && game.turnups.length) setTrump(game.turnups[0][1]);
        await wait();
        break;
      case "bid":
        drawContract();
        await wait();
        break;
      case "contract":
        drawContract();
        break;
      case "play":
        game.trick.push({ seat: e.seat, card: e.card });
        if (e.trump) setTrump(e.trump);
        if (e.seat === game.seat) removeFromHand(e.card);
        game.sizes[e.seat] = Math.max(0, game.sizes[e.seat] - 1);
        drawTurn(null, $("prompt").textContent);
        drawTrick();
        await wait();
        break;
      case "throw_in":
        game.trick.push({ seat: e.seat, thrown: e.cards });
        if (e.seat === game.seat) $("hand").replaceChildren();
        game.sizes[e.seat] = 0;
        game.out.push(e.seat);
        drawTurn(null, $("prompt").textContent);
        drawTrick();
        await wait();
        break;
      case "trick":
        drawTrick(e.winner);
        await wait(1.6);
        game.lastTrick = e;
        game.trick = [];
        drawTrick();
        drawPrevious();
        break;
      case "redeal":
        $("turnups").replaceChildren();
        game.turnups = [];
        game.sizes = game.sizes.map(() => dealt());
        drawContract();
        break;
      case "hand_result":
        drawScores(e.scores);
        game.trick = [];
        drawTrick();
        $("decisions").replaceChildren();
        drawTurn(null, e.scores.some((p) => p >= game.target) ? "The match is over." : `Hand ${e.hand_no + 1} is over.`);
        await summary(e, hand);
        break;
      default:
        break;
    }
  }

  function removeFromHand(code) {
    const c = $("hand").querySelector(`[data-card="${code}"]`);
    if (c) c.remove();
  }

  const sideListText = scoresText;

  // One row of the summary: who scored it, the cards behind it and "+N" for each side it counted for.
  // ``awards`` is [[side, points]]; ``data-points`` holds the points per side the row adds to the hand.
  function summaryRow(id, parts, awards, sides) {
    const points = new Array(sides).fill(0);
    for (const [side, p] of awards) points[side] += p;
    const cell = $(id);
    cell.replaceChildren(...parts);
    cell.dataset.points = JSON.stringify(points);
    show(cell.parentElement.id, true);
  }

  // The points of a hand, row by row, as the engine counts them: the kicks of the turn-ups and a point given
  // as they came, then High, Low, Jack and Game in that order, none once a side has reached the target.
  function summary(e, hand) {
    const sides = e.points.length;
    const row = (id, parts, awards) => summaryRow(id, parts, awards, sides);
    const before = e.scores.map((s, side) => s - e.points[side]);
    const got = new Array(sides).fill(0);
    const won = () => before.some((b, side) => b + got[side] >= game.target);  // before the first card only
    $("summary-title").textContent = `Hand ${e.hand_no + 1} over` + (e.trump ? ` (${SUIT_NAME[e.trump]} trump)` : "");
    $("hand-summary").dataset.handNo = String(e.hand_no);
    for (const row of $("hand-summary").querySelectorAll("tr.award, #row-unplayed")) row.hidden = true;

    const counted = (side, p) => {
      got[side] += p;
      return el("span", { class: "counted" }, p < 0 ? ` ${num(p)}` : ` +${p}`);
    };
    const kicks = hand.kicks.filter((k) => k.points);
    if (kicks.length) {
      const parts = [];
      for (const k of kicks) {
        if (parts.length) parts.push(", ");
        parts.push(sideName(k.side), " ", cardEl(k.card), counted(k.side, k.points));
      }
      row("summary-kicks", parts, kicks.map((k) => [k.side, k.points]));
    }
    if (hand.gift) {
      row("summary-gift", [sideName(hand.gift.side), " (begged, and the dealer gave one)",
        counted(hand.gift.side, hand.gift.points)], [[hand.gift.side, hand.gift.points]]);
    }
    const auction = e.bidder !== undefined && e.bidder !== null; // docs/rules.md section 8: the contract
    const bidSide = auction ? sideOf(e.bidder) : null;
    if (auction) {
      const said = `${seatName(e.bidder)} bid ${bidWords(e.bid)}: `;
      if (e.made) {
        row("summary-contract", [said, e.bid === 5 ? "made, and the smudge wins the match" : "made"], []);
      } else {
        row("summary-contract", [said, `short, so ${sideName(bidSide).replace(/^You\b/, "you")} ${
          partners() || e.bidder === game.seat ? "are" : "is"} set back`, counted(bidSide, -e.bid)], [[bidSide, -e.bid]]);
      }
    }
    if (e.bidder === null && game.auction) { // every player passed (docs/rules.md section 8, all_pass)
      row("summary-contract", [hand.played ? "nobody bid: the eldest pitched, with no contract" : "nobody bid"], []);
    }
    if (!hand.played) {
      row("summary-unplayed", [won() ? "not played: the match was won before the first card"
        : "not played"], []);
    } else {
      const totals = e.game_totals.map((t, side) => `${sideName(side)} ${t}`).join(", ");
      let jackNote = e.jack_card ? "" : "the jack of trumps was not dealt";
      if (e.jack !== null && e.jack_points > 1) jackNote = `hang jack`;
      const categories = [
        ["high", e.high, 1, e.high_card, e.high === null ? "no trump was dealt" : ""],
        ["low", e.low, 1, e.low_card, ""],
        ["jack", e.jack, e.jack_points, e.jack_card, jackNote],
        ["game", e.game, 1, null, `(${totals})`],
      ];
      for (const [award, side, p, card, note] of categories) {
        const id = `summary-${award}`;
        const parts = [];
        if (side === null || side === undefined) {
          parts.push(id === "summary-game" ? `a tie, nobody ${note}` : note || "nobody");
          row(id, parts, []);
          continue;
        }
        parts.push(sideName(side));
        if (card) parts.push(" ", cardEl(card));
        if (note) parts.push(` ${note}`);
        if (!e.counted.includes(award)) {  // the server's word: why is the engine's rule, said here
          const why = auction && !e.made && side === bidSide ? "set back"
            : auction && e.made && e.bid === 5 ? "the smudge won the match" : "the match was already won";
          parts.push(el("span", { class: "uncounted" }, ` (not counted: ${why})`));
          row(id, parts, []);
        } else {
          parts.push(counted(side, p));
          row(id, parts, [[side, p]]);
        }
      }
    }
    $("summary-points").textContent = sideListText(e.points);
    $("summary-points").dataset.points = JSON.stringify(e.points);
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
      ? (partners() ? "You and your partner win the match" : "You win the match")
      : `${sideName(winner)} ${partners() ? "win" : "wins"} the match`;
    $("final-scores").textContent = scoresText(scores);
    $("match-result").dataset.scores = JSON.stringify(scores);
    $("match-result").dataset.winner = String(winner);
    show("match-result", true);
    forgetSeat();
  }

  // ------------------------------------------------------------------ drawing the view
  function setTrump(suit) {
    game.trump = suit || null;
    $("trump").textContent = suit ? `${SUIT_SYMBOL[suit]} ${SUIT_NAME[suit]}` : "not yet";
    $("trump").dataset.suit = suit || "";
    $("trump").className = suit ? `suit-${suit}` : "";
    drawContract();
  }

  // Cards each seat is dealt (docs/rules.md section 2), and three more each time the pack is run (section 3).
  const dealt = () => (game.view && game.view.options.hand_cards) || 6;
  const runSize = () => Math.max(1, Math.floor(dealt() / 2));

  // The auction presets (docs/rules.md section 8), on the table: the high bid while bidding, then the contract
  // (who bid what) and, once the pitch names it, trump.
  function drawContract() {
    const box = $("contract");
    if (!game.auction) {
      show("contract", false);
      return;
    }
    const c = game.contract;
    const high = game.hand.high;
    const parts = [];
    if (c && c.bid) {
      parts.push(el("span", { class: "label" }, "Contract: "), el("b", {}, `${seatName(c.seat)} bid ${bidWords(c.bid)}`));
    } else if (c) {
      parts.push(el("span", { class: "label" }, "No contract: "), el("b", {}, `${seatName(c.seat)} ${
        c.seat === game.seat ? "pitch" : "pitches"}`));
    } else {
      const bidder = high ? game.hand.bidder : null;
      parts.push(el("span", { class: "label" }, high ? "High bid: " : "Bidding: "), high
        ? el("b", {}, `${seatName(bidder)} ${bidWords(high)}`) : "no bid yet");
    }
    if (c && game.trump) {
      parts.push(el("span", { class: `trump suit-${game.trump}` }, ` \u00b7 ${SUIT_SYMBOL[game.trump]} ${SUIT_NAME[game.trump]} trump`));
    }
    box.replaceChildren(...parts);
    box.dataset.phase = c ? "contract" : "bid";
    box.dataset.bidder = c ? String(c.seat) : high ? String(game.hand.bidder) : "";
    box.dataset.bid = c ? String(c.bid) : String(high);
    box.dataset.trump = c && game.trump ? game.trump : "";
    show("contract", true);
  }

  function drawScores(scores) {
    const mine = sideOf(game.seat);
    $("scores").replaceChildren(...scores.map((p, side) => el("span",
      { class: side === mine ? "score mine" : "score", data: { side: String(side) } }, sideName(side), el("b", {}, num(p)))));
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

  // The seats; ``toMove`` (default: the view's) is marked "to move", none while a move is on its way. The cards
  // each holds and the dealer are the last view's, kept up to date by the events shown since (``showEvent``).
  function drawSeats(view, toMove = view.to_move) {
    for (const pos of ["top", "left", "right"]) $(`pos-${pos}`).replaceChildren();
    for (let s = 0; s < game.n; s++) {
      const box = s === game.seat ? $("my-seat") : $(`pos-${position(s)}`);
      const player = game.seats[s].player;
      const tags = [];
      if (s === game.dealer) tags.push("dealer");
      if (toMove === s) tags.push("to move");
      if (game.out.includes(s)) tags.push("thrown in");
      const who = player !== "human" ? botLabel(player) : s === game.seat ? "person (you)"
        : game.seats[s].taken === false ? "person (not joined yet)" : "person";
      box.replaceChildren(el("div", { class: "name" }, seatName(s)),
        el("div", { class: "bot", data: { player: player === "human" ? "person" : "bot" } }, who),
        el("div", { class: "cards" }, `${game.sizes[s]} card${game.sizes[s] === 1 ? "" : "s"}`),
        el("div", { class: "tags" }, ...tags.map((t) => el("span", {}, t))));
      box.dataset.seat = String(s);
      box.classList.toggle("to-move", toMove === s);
    }
  }

  // Nobody marked to move (a move is on its way, or the hand is over) and ``text`` as the prompt.
  function drawTurn(toMove, text) {
    if (game.view && game.seats.length) drawSeats(game.view, toMove);
    $("prompt").textContent = text;
    $("game").dataset.toMove = toMove === null ? "" : String(toMove);
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
    const why = explanations(view);
    $("decisions").replaceChildren(...words.map((a) => {
      const b = el("button", { type: "button", id: `action-${a}`, data: { action: a } }, DECISIONS[a]);
      const text = a === "THROW_IN" ? ruleWords("throw_in") : why;
      if (text.length) b.title = text.join(" ");
      b.addEventListener("click", () => move(a));
      return b;
    }));
    const box = $("explain");
    box.replaceChildren(...why.map((t) => el("p", {}, t)));
    if (words.includes("THROW_IN") && view.phase === "play") {
      box.append(el("p", { class: "throw-in" }, ...ruleWords("throw_in").map((t) => `${t} `)));
    }
    show("explain", box.childElementCount > 0);
  }

  // ------------------------------------------------------------------ the rules, in docs/rules.md's words
  function ruleWords(key) {
    return (rules && rules.decisions[key]) || [];
  }

  // The rule behind the decision this seat faces now: stand or beg, give one or run the pack, the pitch or a
  // lead, following a trump lead or another suit (throwing in has its own words, on its button).
  function explanations(view) {
    if (view.done || view.to_move !== game.seat) return [];
    if (view.phase === "stand_or_beg") return ruleWords("stand_or_beg");
    if (view.phase === "give_or_run") return ruleWords("give_or_run");
    if (view.phase === "bid") return ruleWords("bid");
    const plays = view.current_trick.plays;
    if (!plays.length) return view.trump ? ruleWords("lead") : ruleWords("pitch");
    if (plays[0].card[1] === view.trump) return ruleWords("trump_led");
    return ruleWords(view.options && view.options.must_follow_suit ? "suit_led_must_follow" : "suit_led");
  }

  function showRules() {
    const preset = (game && game.view && game.view.preset) || $("preset").value;
    const r = rules && rules.presets[preset];
    if (!r) return;
    const throwIn = presetInfo(preset).throw_in ? rules.decisions.throw_in : [];
    const list = (items) => el("ul", {}, ...items.map((t) => el("li", {}, t)));
    $("rules-title").textContent = `Rules: ${r.title}`;
    $("rules-body").replaceChildren(
      el("p", {}, ...r.about),
      el("h3", {}, "Trump"), list(r.trump),
      el("h3", {}, "Play"), list(rules.play.concat(throwIn)),
      el("h3", {}, "Scoring"), list((r.scoring || rules.scoring).concat([`Jack: ${r.jack}.`])));
    $("rules-panel").dataset.preset = preset;
    show("rules-panel", true);
    $("rules-close").focus();
  }

  // ------------------------------------------------------------------ friends at the table
  // The creator's join links, one per seat a friend has not taken yet.
  function drawInvites() {
    const open = (game.invites || []).filter((inv) => game.seats[inv.seat] && !game.seats[inv.seat].taken);
    $("invite-list").replaceChildren(...open.map((inv) => {
      const input = el("input", { type: "text", readonly: "readonly", value: inv.link, "aria-label":
        `join link for ${seatName(inv.seat)}`, data: { seat: String(inv.seat) } });
      const copy = el("button", { type: "button", class: "secondary" }, "Copy");
      copy.addEventListener("click", async () => {
        input.select();
        try {
          await navigator.clipboard.writeText(inv.link);
          copy.textContent = "Copied";
        } catch (e) {
          copy.textContent = "Select and copy";
        }
      });
      return el("li", { data: { seat: String(inv.seat) } }, el("span", {}, `${seatName(inv.seat)}: `), input, copy);
    }));
    show("invites", open.length > 0);
  }

  async function joinByLink(fragment) {
    const [id, code] = fragment.split(".");
    history.replaceState(null, "", location.pathname + location.search); // the code is spent: off the address bar
    try {
      const joined = await api("POST", `/v1/matches/${encodeURIComponent(id)}/join`, { code: code || "" });
      const saved = { id: joined.match_id, token: joined.token, seat: joined.seat, settings: null, creator: false };
      game = newGame(saved, joined.seats);
      saveSeat({ ...saved, settings: game.settings });
      enterGame();
      await refresh(false);
      return true;
    } catch (e) {
      game = null;
      $("setup-error").textContent = `Could not join the match: ${e.message}`;
      show("setup-error", true);
      return false;
    }
  }

  function promptText(view) {
    if (view.done) return "The match is over.";
    if (view.to_move !== game.seat) {
      return `Waiting for ${seatName(view.to_move)}${isPerson(view.to_move) ? " (a person)" : ""}\u2026`;
    }
    if (view.phase === "stand_or_beg") return `Your turn: stand (${cardLabel(view.turnup)} makes trump) or beg?`;
    if (view.phase === "give_or_run") return "Your turn: give one point, or run the pack?";
    if (view.phase === "bid") { // the calls open, by their values (the server's legal_actions)
      const a = view.auction;
      const bids = view.legal_actions.filter((x) => x.startsWith("BID_")).map((x) => Number(x.slice(4)));
      const smudge = view.legal_actions.includes("SMUDGE") ? ", smudge" : "";
      const range = bids.length > 1 ? `${bids[0]} to ${bids[bids.length - 1]}` : String(bids[0] || "");
      if (!view.legal_actions.includes("PASS")) return `Everybody else passed: you must bid (${range}${smudge}).`;
      if (a.bidder === null) return `Your call: bid ${range}${smudge} for the pitch, or pass.`;
      const high = `${seatName(a.bidder)} bid ${bidWords(a.bid)}`;
      if (bids[0] === a.bid) { // equal to the high bid: the dealer's privilege
        const more = bids.length > 1 ? `, bid more (${bids.slice(1).join(" or ")})` : "";
        return `Your call: ${high}; as dealer you may take it at ${a.bid} (the dealer's privilege)${more}, or pass.`;
      }
      return bids.length || smudge ? `Your call: ${high}; bid ${range || "the smudge"}${bids.length ? smudge : ""}, or pass.`
        : `Your call: ${high}; nothing is higher: pass.`;
    }
    const t = view.current_trick;
    if (!t.plays.length) return view.trump ? "Your lead." : "Your pitch: the suit you lead is trump.";
    const led = t.plays[0].card[1];
    const name = SUIT_NAME[led][0].toUpperCase() + SUIT_NAME[led].slice(1);
    // which cards may follow is the server's to say: it raises them (the view's legal_actions)
    return `${led === view.trump ? "Trumps" : name} led: play one of your raised cards.`;
  }

  function render() {
    const v = game.view;
    game.sizes = v.hand_sizes.slice();
    game.dealer = v.dealer;
    game.out = v.out.slice();
    if (v.auction && !v.done) { // the auction so far, or the contract (no bidder: the eldest pitches, no contract)
      const a = v.auction;
      if (v.phase === "bid") {
        Object.assign(game.hand, { high: a.bid, bidder: a.bidder });
        game.contract = null;
      } else {
        game.contract = { seat: a.bidder === null ? v.eldest : a.bidder, bid: a.bid };
      }
    }
    drawScores(v.scores);
    $("target-score").textContent = String(v.target);
    // After the last hand the engine counts one hand more than were played: show the last one's number.
    const last = game.results.length ? game.results[game.results.length - 1].hand_no : -1;
    $("hand-no").textContent = String(v.done ? Math.max(last, 0) + 1 : v.hand_no + 1);
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
    drawInvites();
    drawHint(null);
  }

  // ------------------------------------------------------------------ hints
  // A bot's spec as a person reads it: a level of a network bot by its word ("bot:seven_up (Casual)").
  function botLabel(spec) {
    for (const b of bots) {
      const level = (b.levels || []).find((l) => l.spec === spec);
      if (level) return `${b.name} (${level.word})`;
    }
    return spec;
  }

  function moveName(action) {
    return DECISIONS[action] || cardLabel(action);
  }

  // The Hint button while this seat is to move at a table with a hint bot; ``hint`` (GET .../hint's answer, or
  // null) shown under it: the bot's move, its probability and the rule behind the decision (``explanations``).
  function drawHint(hint) {
    const v = game.view;
    const open = Boolean(game.hintBot && v && !v.done && v.to_move === game.seat);
    show("hint", open);
    const box = $("hint-box");
    for (const c of $("hand").querySelectorAll(".card[data-hint]")) delete c.dataset.hint;
    if (!open || !hint) {
      box.replaceChildren();
      delete box.dataset.action;
      show("hint-box", false);
      return;
    }
    const pct = Math.round(hint.probability * 100);
    const why = hint.action === "THROW_IN" ? ruleWords("throw_in") : explanations(v);
    box.replaceChildren(el("p", { class: "hint-move" }, `Hint: ${botLabel(hint.bot.name)} would play `,
      el("b", {}, moveName(hint.action)), ` (probability ${pct < 1 ? "under 1" : pct}%).`),
    ...why.map((t) => el("p", { class: "hint-rule" }, t)));
    box.dataset.action = hint.action;
    box.dataset.probability = String(hint.probability);
    const card = $("hand").querySelector(`.card[data-card="${hint.action}"]`);
    if (card) card.dataset.hint = "true";
    show("hint-box", true);
  }

  async function askHint() {
    if (!game || !game.view || document.body.dataset.busy === "true") return;
    const seq = game.seq;
    try {
      const hint = await api("GET", `/v1/matches/${encodeURIComponent(game.id)}/hint`);
      if (game && game.seq === seq && hint.seq === seq) drawHint(hint); // else the match moved on meanwhile
    } catch (e) {
      if (e.status === 409) message(e.message);
      else handleError(e);
    }
  }

  // ------------------------------------------------------------------ leaving
  // A match in play is left only after asking. Leaving ends it on the server (DELETE) when nobody else is
  // seated, or when this page started it (it ends for everyone, and their pages say it has gone); a match
  // somebody else started is only forgotten here, and goes on for the others. A finished match is left at once.
  function askLeave() {
    if (!game) return;
    const others = game.seats.filter((s) => s.player === "human" && s.seat !== game.seat).length;
    const people = others === 1 ? "1 other person is" : `${others} other people are`;
    const end = others === 0 || game.creator;
    if (game.view && game.view.done) {
      leave(others === 0);
      return;
    }
    $("leave-text").textContent = others === 0
      ? "The match ends: the server forgets it, and it cannot be taken up again."
      : game.creator
        ? `${people} playing in this match, which you started. Leaving ends it for everyone: their pages will `
          + "say the match has gone."
        : `${people} playing in this match. It goes on for them: this page forgets your seat, which waits for `
          + "you until the match ends or is left idle.";
    $("leave-yes").textContent = end && others ? "End the match for everyone" : "Leave";
    $("leave-yes").dataset.end = String(end);
    show("leave-confirm", true);
    $("leave-no").focus();
  }

  async function leave(end) {
    show("leave-confirm", false);
    if (game && end) await api("DELETE", `/v1/matches/${encodeURIComponent(game.id)}`).catch(() => null);
    backToSetup("");
  }

  // ------------------------------------------------------------------ start up
  async function init() {
    $("preset").addEventListener("change", refreshSetup);
    $("players").addEventListener("change", refreshSetup);
    $("setup-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      startMatch(setupSettings());
    });
    $("leave").addEventListener("click", askLeave);
    $("leave-no").addEventListener("click", () => show("leave-confirm", false));
    $("leave-yes").addEventListener("click", () => leave($("leave-yes").dataset.end === "true"));
    $("again").addEventListener("click", () => {
      const settings = game.settings;
      startMatch(settings);
    });
    $("new-match").addEventListener("click", () => backToSetup(""));
    $("rules-open").addEventListener("click", showRules);
    $("rules-preset").addEventListener("click", showRules);
    $("rules-close").addEventListener("click", () => show("rules-panel", false));
    $("hint").addEventListener("click", askHint);
    try {
      bots = (await api("GET", "/v1/bots")).bots;
    } catch (e) {
      $("setup-error").textContent = `The server did not list its bots: ${e.message}`;
      show("setup-error", true);
    }
    try {
      for (const p of (await api("GET", "/v1/presets")).presets) presets[p.name] = p;
    } catch (e) {
      $("setup-error").textContent = `The server did not list its games: ${e.message}`;
      show("setup-error", true);
    }
    try {
      rules = await api("GET", "/static/rules.json");
    } catch (e) {
      rules = null; // the page plays on without the explanations
    }
    show("rules-open", Boolean(rules));
    refreshSetup();
    // A join link (#join=ID.CODE) takes its seat; else a reload, or the tab opened again, picks the match up
    // where it stands: its events since the start rebuild "What happened".
    const join = location.hash.startsWith("#join=") ? location.hash.slice(6) : "";
    const saved = loadSeat();
    if (join) {
      await joinByLink(join);
    } else if (saved) {
      game = newGame({ ...saved, creator: saved.creator !== false }, []);
      enterGame();
      await refresh(false);
    }
    document.body.dataset.ready = "true";
  }

  init();
})();
