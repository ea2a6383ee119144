"use strict";
// The judging page's script: keys and buttons post each action to the server, which saves it before
// answering; the page then shows the state the server returned. It writes numbers and fixed words only
// (textContent), never user text, which the server rendered escaped.
(function () {
  const data = JSON.parse(document.getElementById("judge-data").textContent);
  const cards = Array.from(document.querySelectorAll("#candidates > li.cand"));
  const LABELS = {0: "0 · not relevant", 1: "1 · relevant", 2: "2 · highly relevant"};
  // cur is a position in cards; a card's data-index is its candidate index in the pool (the server's "c")
  function at(index) { return cards.findIndex(function (el) { return Number(el.dataset.index) === index; }); }
  function index(pos) { return Number(cards[pos].dataset.index); }
  let cur = Math.max(0, at(data.focus));
  let busy = false;
  let settled = 0;
  // each finished request, saved or not, counts here: what a test (or a person's tool) can wait for
  function done() { settled += 1; document.body.dataset.settled = String(settled); }

  function url(q, c) {
    return "/q/" + q + "?token=" + encodeURIComponent(data.token) + (c === undefined ? "" : "&c=" + c);
  }
  function go(q, c) { window.location.assign(url(q, c)); }
  function set(id, value) { const el = document.getElementById(id); if (el) el.textContent = String(value); }
  function say(text) { set("status", text); }
  function fail(text) {
    const el = document.getElementById("error");
    el.textContent = text;
    el.hidden = !text;
  }
  function duration(s) {
    if (s < 60) return Math.round(s) + " s";
    if (s < 3600) return Math.round(s / 60) + " min";
    return (s / 3600).toFixed(1) + " h";
  }

  function focus(i, scroll) {
    if (!cards.length) return;
    cur = Math.max(0, Math.min(i, cards.length - 1));
    cards.forEach(function (el, j) { el.classList.toggle("current", j === cur); });
    if (scroll !== false) cards[cur].scrollIntoView({block: "nearest"});
  }

  function show(card, saved) {
    card.classList.remove("graded", "skipped", "g0", "g1", "g2", "gx");
    const state = card.querySelector(".state");
    if (saved.grade !== null) {
      card.classList.add("graded", saved.grade in LABELS ? "g" + saved.grade : "gx");
      state.textContent = LABELS[saved.grade] || "grade " + saved.grade;
    } else if (saved.skipped) {
      card.classList.add("skipped");
      state.textContent = "skipped";
    } else {
      state.textContent = "";
    }
  }

  function progress(p) {
    set("p-graded", p.graded);
    set("p-skipped", p.skipped);
    set("p-left", p.left);
    set("p-qdone", p.questions_done);
    set("p-eta", p.eta === null ? "—" : duration(p.eta));
    document.getElementById("bar").value = p.graded + p.skipped;
    if (p.verdict) verdict(p.verdict);
  }

  // a pool made for a verdict: where the comparison stands (fixed words and numbers only)
  function verdict(v) {
    const box = document.getElementById("verdict");
    if (!box) return;
    set("v-now", v.words[String(v.now)]);
    set("v-low", v.words[String(v.low)]);
    set("v-high", v.words[String(v.high)]);
    set("v-final", v.words[String(v.low)]);
    set("v-unjudged", v.unjudged);
    box.classList.toggle("certain", v.certain);
    document.getElementById("v-open-state").hidden = v.certain;
    document.getElementById("v-certain-state").hidden = !v.certain;
  }

  async function post(path, body) {
    const response = await fetch(path, {
      method: "POST", cache: "no-store", credentials: "omit",
      headers: {"Content-Type": "application/json", "X-Ragauge-Token": data.token},
      body: JSON.stringify(body || {}),
    });
    const out = await response.json().catch(function () { return {error: "HTTP " + response.status}; });
    if (!response.ok) throw new Error(out.error || "HTTP " + response.status);
    return out;
  }

  function advance(next) {
    if (next === null) {
      document.getElementById("done").hidden = false;
      say("every candidate is judged or skipped");
      return;
    }
    if (next.q === data.q && at(next.c) >= 0) focus(at(next.c)); else go(next.q, next.c);
  }

  async function act(body) {
    if (busy || !cards.length) return;
    busy = true;
    try {
      const out = await post("/api/judge", Object.assign({q: data.q, c: index(cur)}, body));
      fail("");
      show(cards[cur], out.saved);
      progress(out.progress);
      say("saved");
      advance(out.next);
    } catch (e) {
      fail("NOT SAVED: " + e.message);
    } finally {
      busy = false;
      done();
    }
  }

  async function undo() {
    if (busy) return;
    busy = true;
    try {
      const out = await post("/api/undo");
      fail("");
      progress(out.progress);
      if (out.nothing) {
        say("nothing to undo");
      } else if (out.undone === null) {
        say("undid a judgement of a document this pool does not hold");
      } else if (out.undone.q === data.q && at(out.undone.c) >= 0) {
        show(cards[at(out.undone.c)], out.undone);
        focus(at(out.undone.c));
        say("undone");
      } else {
        go(out.undone.q, out.undone.c);
      }
    } catch (e) {
      fail("NOT UNDONE: " + e.message);
    } finally {
      busy = false;
      done();
    }
  }

  function question(step) {
    let q = data.q + step;
    while (q >= 0 && q < data.questions && data.sizes[q] === 0) q += step;
    if (q < 0 || q >= data.questions) { say(step > 0 ? "this is the last question" : "this is the first question"); return; }
    go(q, step > 0 ? undefined : "last");
  }

  function move(step) {
    const i = cur + step;
    if (i >= 0 && i < cards.length) focus(i); else question(step);
  }

  function toggle(card) {
    if (card && card.classList.contains("long")) {
      card.classList.toggle("folded");
      const button = card.querySelector(".fold");
      if (button) button.textContent = card.classList.contains("folded") ? "show all (o)" : "fold (o)";
    }
  }

  async function finish() {
    const button = document.getElementById("finish");
    button.disabled = true;
    try {
      const out = await post("/api/finish");
      const pre = document.getElementById("finish-out");
      pre.textContent = out.lines.join("\n");
      pre.hidden = false;
      fail("");
      say("merged into the golden set");
      pre.scrollIntoView({block: "nearest"});
    } catch (e) {
      fail("NOT MERGED: " + e.message);
    } finally {
      button.disabled = false;
      done();
    }
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key;
    if (key === "0" || key === "1" || key === "2") act({action: "grade", grade: Number(key)});
    else if (key === "s") act({action: "skip"});
    else if (key === "j" || key === "ArrowDown") move(1);
    else if (key === "k" || key === "ArrowUp") move(-1);
    else if (key === "u") undo();
    else if (key === "o") toggle(cards[cur]);
    else if (key === "n") question(1);
    else if (key === "p") question(-1);
    else return;
    event.preventDefault();
  });

  cards.forEach(function (card, i) {
    card.addEventListener("click", function (event) {
      const target = event.target;
      focus(i, false);
      if (target.matches("button.grade")) act({action: "grade", grade: Number(target.dataset.grade)});
      else if (target.matches("button.skip")) act({action: "skip"});
      else if (target.matches("button.fold")) toggle(card);
    });
  });
  const finishButton = document.getElementById("finish");
  if (finishButton) finishButton.addEventListener("click", finish);
  focus(cur);
  // a reload starts at the question's first open candidate again, not where a link pointed
  if (window.location.search.indexOf("&c=") >= 0) window.history.replaceState(null, "", url(data.q));
  if (data.next === null) advance(null);
})();
