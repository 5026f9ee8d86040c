
"use strict";
const game = JSON.parse(document.getElementById("game-data").textContent);
const FILL = {B: "#2f6fd6", Y: "#f2c418", R: "#d8432e", K: "#2e2e2e", W: "#cdeef4", "1": "#ffffff"};
const ORDER = game.rules.colours;  // the rules constants come with the data (engine/rules.py)
const NS = "http://www.w3.org/2000/svg";
const T = 22;  // tile size in SVG units
let current = 0;
// the game's stored review (present/review_view.py), when the run holds one: its moves by ply
const review = game.review && !game.review.error ? game.review : null;
const reviewed = new Map(review ? review.moves.map(m => [m.ply, m]) : []);

function svg(tag, attrs, parent) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function tile(parent, x, y, letter) {
  const g = svg("g", {"class": "tile", "data-color": letter}, parent);
  svg("rect", {x: x, y: y, width: T - 2, height: T - 2, rx: 3, fill: FILL[letter], stroke: "#555"}, g);
  if (letter === "1") {
    const t = svg("text", {x: x + T / 2 - 1, y: y + T / 2 + 4, "text-anchor": "middle", "font-size": 13}, g);
    t.textContent = "1";
  }
  return g;
}

function slot(parent, x, y, attrs) {
  return svg("rect", Object.assign({x: x, y: y, width: T - 2, height: T - 2, rx: 3,
    fill: "none", stroke: "#bbb"}, attrs), parent);
}

function drawSupply(pos) {
  const box = document.getElementById("factories");
  box.replaceChildren();
  const n = pos.factories.length;
  box.setAttribute("viewBox", `0 0 ${n * 70 + 10} 130`);
  box.setAttribute("width", n * 70 + 10);
  pos.factories.forEach((letters, i) => {
    const g = svg("g", {"data-factory": i + 1}, box);
    const cx = 40 + i * 70;
    svg("circle", {cx: cx, cy: 35, r: 30, fill: "#f0e6d2", stroke: "#998"}, g);
    [...letters].forEach((c, j) => tile(g, cx - T + (j % 2) * T, 35 - T + Math.floor(j / 2) * T, c));
    const label = svg("text", {x: cx, y: 78, "text-anchor": "middle", "font-size": 12}, g);
    label.textContent = i + 1;
  });
  const centre = svg("g", {id: "center"}, box);
  const label = svg("text", {x: 10, y: 110, "font-size": 12}, centre);
  label.textContent = "centre";
  let letters = [...pos.center].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));
  if (pos.marker === "center") letters = ["1"].concat(letters);
  letters.forEach((c, j) => tile(centre, 60 + j * T, 95, c));
}

function drawBoard(pos, seat) {
  const div = document.querySelector(`.board[data-seat="${seat}"]`);
  const b = pos.boards[seat];
  div.querySelector(".score").textContent = b.score;
  const held = pos.marker === seat && !b.floor.includes("1");
  let note = held ? "holds the marker" : "";
  if (pos.phase === "over") note = "rank " + pos.ranks[seat];
  div.querySelector(".note").textContent = note;
  div.classList.toggle("to-move", pos.to_move === seat && (pos.phase === "draft" || pos.phase === "tiling"));
  const box = div.querySelector("svg");
  box.replaceChildren();
  for (let k = 0; k < 5; k++) {
    const line = svg("g", {"class": "line", "data-line": k + 1}, box);
    const have = b.lines[k].length;
    for (let s = 0; s <= k; s++) {
      const x = (4 - s) * T, y = k * T;  // filled from the right, next to the wall
      if (s < have) tile(line, x, y, b.lines[k][s]); else slot(line, x, y, {});
    }
  }
  const wall = svg("g", {"class": "wall"}, box);
  for (let r = 0; r < 5; r++) {
    for (let c = 0; c < 5; c++) {
      const x = 5 * T + 12 + c * T, y = r * T, letter = b.wall[r][c];
      if (letter !== ".") {
        const g = tile(wall, x, y, letter);
        g.setAttribute("data-row", r + 1);
        g.setAttribute("data-col", c + 1);
      } else {
        const printed = pos.variant === "colored" ? game.rules.printed_wall[r][c] : null;
        slot(wall, x, y, {"data-row": r + 1, "data-col": c + 1, "class": "empty",
          fill: printed ? FILL[printed] : "#eee", "fill-opacity": 0.25});
      }
    }
  }
  const floor = svg("g", {"class": "floor"}, box);
  const costs = game.rules.floor_costs;
  for (let i = 0; i < costs.length; i++) {
    const x = i * T, y = 5 * T + 14;
    if (i < b.floor.length) tile(floor, x, y, b.floor[i]).setAttribute("data-slot", i + 1);
    else slot(floor, x, y, {"data-slot": i + 1});
    const t = svg("text", {x: x + T / 2, y: y + T + 11, "text-anchor": "middle", "font-size": 10}, floor);
    t.textContent = -costs[i];
  }
}

function describe(step) {
  if (step.move === null) return `round ${step.round}: the deal`;
  return `ply ${step.ply}: seat ${step.seat} (${game.bots[step.seat]}) played ${step.move}`;
}

function status(pos) {
  if (pos.phase === "over") return "game over";
  if (pos.phase === "refill") return `round ${pos.round} is due, seat ${pos.to_move} opens`;
  return `round ${pos.round}, ${pos.phase}, seat ${pos.to_move} to move`;
}

function show(i) {
  current = Math.max(0, Math.min(game.steps.length - 1, i));
  const step = game.steps[current], pos = step.position;
  const label = document.getElementById("step-label");
  label.textContent = `step ${current + 1} / ${game.steps.length}`;
  label.dataset.step = current + 1;
  label.dataset.ply = step.ply;
  label.dataset.round = step.round;
  document.getElementById("step-move").textContent = describe(step);
  let text = status(pos);
  if (current === game.steps.length - 1 && game.termination !== "normal") {
    text += ` (the game stopped: ${game.termination}: ${game.error})`;
  }
  document.getElementById("status").textContent = text;
  drawSupply(pos);
  for (let s = 0; s < game.players; s++) drawBoard(pos, s);
  document.querySelectorAll("#moves li").forEach(li => {
    li.classList.toggle("current", step.move !== null && Number(li.dataset.ply) === step.ply);
  });
  if (review) showReview(step);
  document.querySelectorAll("#round-scores tbody tr").forEach((tr, r) => {
    const done = r + 1 <= step.rounds_done;
    tr.classList.toggle("current-round", r + 1 === step.round);
    tr.querySelectorAll("td").forEach((td, s) => {
      td.textContent = done ? game.round_scores[r][s] : "";
      td.classList.toggle("pending", !done);
    });
  });
}

function percent(p) {
  return p === null || p === undefined ? "-" : `${(100 * p).toFixed(1)}%`;
}

function points(x) {
  return x === null || x === undefined ? "-" : x.toFixed(2);
}

function showReview(step) {
  // the review of the move that led to this step: its class, the analyser's best move and line,
  // what it gave up; the graph's cursor at the step's ply
  const c = review.chart;
  const x = c.left + step.ply / Math.max(c.plies, 1) * (c.right - c.left);
  const cursor = document.getElementById("eval-cursor");
  cursor.setAttribute("x1", x);
  cursor.setAttribute("x2", x);
  const box = document.getElementById("review-move");
  const m = step.move === null ? undefined : reviewed.get(step.ply);
  box.dataset.ply = m ? m.ply : "";
  box.dataset.class = m ? m.class : "";
  const text = (id, value) => { document.getElementById(id).textContent = value; };
  document.getElementById("rv-best-line").hidden = !m;
  document.getElementById("rv-loss-line").hidden = !m;
  if (!m) {
    text("rv-head", step.move === null ? "a deal: select a move to see its review"
      : `ply ${step.ply}: no review of this move`);
    return;
  }
  const mark = m.mark ? ` ${m.mark}` : "";
  text("rv-head", `ply ${m.ply}: seat ${m.seat} (${game.bots[m.seat]}) played ${m.move}: ${m.class}${mark}`);
  text("rv-best", m.best);
  text("rv-pv", m.pv || m.best);
  text("rv-win-loss", percent(m.win_loss));
  text("rv-win-detail", `${percent(m.win_before)} with the best move, ${percent(m.win_after)} after ${m.move}`);
  text("rv-points-loss", points(m.points_loss));
  text("rv-points-detail", `expected final score ${points(m.points_best)} with the best move, ` +
    `${points(m.points_played)} after ${m.move}`);
}

function build() {
  const boards = document.getElementById("boards");
  for (let s = 0; s < game.players; s++) {
    const div = document.createElement("div");
    div.className = "board";
    div.dataset.seat = s;
    const h = document.createElement("h3");
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = game.bots[s];
    const score = document.createElement("span");
    score.className = "score";
    const note = document.createElement("span");
    note.className = "note";
    h.append(`seat ${s} `, name, " | score ", score, " ", note);
    div.append(h);
    svg("svg", {width: 10 * T + 14, height: 7 * T + 30, viewBox: `0 0 ${10 * T + 14} ${7 * T + 30}`}, div);
    boards.append(div);
  }
  const list = document.getElementById("moves");
  let dealt = false;
  game.steps.forEach((step, i) => {
    if (step.move === null) { dealt = true; return; }
    const li = document.createElement("li");
    li.dataset.ply = step.ply;
    li.dataset.step = i + 1;
    li.textContent = step.move;
    li.title = `round ${step.round}, seat ${step.seat}`;
    const judged = reviewed.get(step.ply);
    if (judged) {
      li.dataset.class = judged.class;
      li.classList.add(`review-${judged.class}`);
      li.title += `: ${judged.class}` + (judged.move === judged.best ? "" : `, best ${judged.best}`);
      if (judged.mark) {
        const mark = document.createElement("span");
        mark.className = "mark";
        mark.textContent = judged.mark;
        li.append(mark);
      }
    }
    if (dealt) li.classList.add("round-start");  // the first move after a deal
    dealt = false;
    li.addEventListener("click", () => show(i));
    list.append(li);
  });
  const table = document.getElementById("round-scores");
  const head = table.createTHead().insertRow();
  head.append(Object.assign(document.createElement("th"), {textContent: "round"}));
  game.bots.forEach((bot, s) => head.append(
    Object.assign(document.createElement("th"), {textContent: `seat ${s} ${bot}`})));
  const body = table.createTBody();
  game.round_scores.forEach((_, r) => {
    const tr = body.insertRow();
    tr.append(Object.assign(document.createElement("th"), {textContent: r + 1}));
    for (let s = 0; s < game.players; s++) tr.insertCell();
  });
  document.querySelectorAll("#eval-graph .eval-mark").forEach(mark => mark.addEventListener("click", () => {
    const i = game.steps.findIndex(st => st.move !== null && st.ply === Number(mark.dataset.ply));
    if (i >= 0) show(i);
  }));
  document.getElementById("first").addEventListener("click", () => show(0));
  document.getElementById("prev").addEventListener("click", () => show(current - 1));
  document.getElementById("next").addEventListener("click", () => show(current + 1));
  document.getElementById("last").addEventListener("click", () => show(game.steps.length - 1));
  document.addEventListener("keydown", e => {
    const to = {ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: game.steps.length - 1}[e.key];
    if (to !== undefined) { e.preventDefault(); show(to); }
  });
}

build();
const asked = /^#step=(\d+)$/.exec(location.hash);  // a link can open a step: page.html#step=12
show(asked ? Number(asked[1]) - 1 : 0);
