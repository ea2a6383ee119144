(function () {
  "use strict";
  // User text is only ever written with textContent / text nodes, never parsed as HTML.
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const metrics = data.metrics;
  const k = data.k;
  const tbody = document.querySelector("#qtable tbody");
  const open = new Set();
  const sort = { key: null, dir: 1 };
  const filter = { text: "", tag: "", pattern: "", misses: false };
  const shownMetrics = new Set(data.shown);  // the metric columns shown (the others: "metric columns")

  const rows = data.queries.map(function (q, i) {
    q.order = i;
    q.miss = q.status === "error" || q.rank === null || (k !== null && q.rank > k);
    q.hay = [q.id, q.q, q.tags.join(" "), q.rel.map((r) => r[0]).join(" "), q.top.map((t) => t[0]).join(" ")]
      .join(" ").toLowerCase();
    return q;
  });

  function el(tag, cls, ...children) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    for (const c of children) e.append(c === null || c === undefined ? "" : c);
    return e;
  }

  function whyTitle(q) {  // the primary failure pattern's title ("" for a question that did not miss)
    if (!q.fail.length) return "";
    return Object.prototype.hasOwnProperty.call(data.titles, q.fail[0]) ? data.titles[q.fail[0]] : q.fail[0];
  }

  function num(v, digits) {
    return v === null || v === undefined ? "—" : Number(v).toFixed(digits);
  }

  function rankText(q) {
    if (q.status === "missing") return "missing";
    if (q.status === "error") return "error";
    return q.rank === null ? "not found" : String(q.rank);
  }

  function row(q) {
    const tr = el("tr", "q" + (q.miss ? " miss" : "") + (open.has(q.id) ? " open" : ""));
    tr.dataset.id = q.id;
    const btn = el("button", "exp", "▸");
    btn.type = "button";
    btn.setAttribute("aria-expanded", open.has(q.id) ? "true" : "false");
    btn.setAttribute("aria-label", "show documents");
    tr.append(el("td", "exp-col", btn));
    tr.append(el("td", "id", el("code", null, q.id)));
    const query = el("td", "query", q.q);
    if (q.status !== "ok") query.append(el("span", "badge", q.status));
    tr.append(query);
    if (data.has_tags) tr.append(el("td", "tags", ...q.tags.map((t) => el("span", "tag", t))));
    tr.append(el("td", "num rank", rankText(q)));
    if (data.has_why) tr.append(el("td", "why", whyTitle(q)));
    q.v.forEach(function (v, i) {
      const td = el("td", "num" + (v === 0 ? " zero" : v === 1 ? " one" : ""), num(v, 3));
      td.hidden = !shownMetrics.has(i);
      tr.append(td);
    });
    return tr;
  }

  function detail(q) {
    const found = new Map(q.top.map((t, i) => [t[0], i + 1]));
    const expected = el("table", null, el("thead", null, el("tr", null, el("th", null, "document"),
      el("th", "num", "grade"), el("th", null, "returned at"))));
    const eb = el("tbody");
    q.rel.slice().sort((a, b) => b[1] - a[1]).forEach(function (r) {
      const rank = found.get(r[0]);
      const where = rank ? el("span", "found", "rank " + rank)
        : el("span", "lost", r[1] < 1 ? "(judged not relevant)"
          : q.unique > q.top.length ? "not in the top " + q.top.length : "not returned");
      eb.append(el("tr", r[1] >= 1 ? "rel" : "", el("td", null, el("code", null, r[0])), el("td", "num", String(r[1])),
        el("td", null, where)));
    });
    expected.append(eb);

    const returned = el("table", null, el("thead", null, el("tr", null, el("th", "num", "rank"),
      el("th", null, "document"), el("th", "num", "score"), el("th", null, "relevant"))));
    const rb = el("tbody");
    q.top.forEach(function (t, i) {
      const rel = t[1] !== null && t[1] >= 1;
      rb.append(el("tr", rel ? "rel" : "", el("td", "num", String(i + 1)), el("td", null, el("code", null, t[0])),
        el("td", "num", t[2] === null ? "" : num(t[2], 4)),
        el("td", null, rel ? "✓ grade " + t[1] : t[1] !== null ? "judged 0" : "")));
    });
    if (!q.top.length) rb.append(el("tr", null, el("td", null, ""), el("td", null, "(nothing returned)")));
    returned.append(rb);

    const facts = q.why ? ["why it failed: " + q.why] : [];
    facts.push("raw hits: " + q.hits, "unique documents: " + q.unique, "duplicates folded: " + q.folded);
    if (q.lat !== null) facts.push("latency: " + num(q.lat, 1) + " ms");
    if (q.error) facts.push("error: " + q.error);
    for (const [key, value] of Object.entries(q.extra || {})) facts.push(key + ": " + JSON.stringify(value));
    const shown = q.unique > q.top.length ? " (of " + q.unique + ")" : "";
    const box = el("div", null,
      el("div", "docs",
        el("div", null, el("h3", null, "Expected"), expected),
        el("div", null, el("h3", null, "Returned, top " + q.top.length + shown), returned)),
      el("p", "facts", facts.join(" · ")));
    const td = el("td", null, box);
    td.colSpan = (data.has_tags ? 5 : 4) + (data.has_why ? 1 : 0) + shownMetrics.size;
    const tr = el("tr", "detail", td);
    tr.dataset.for = q.id;
    return tr;
  }

  function visible(q) {
    if (filter.tag && !q.tags.includes(filter.tag)) return false;
    if (filter.misses && !q.miss) return false;
    if (filter.pattern && q.fail[0] !== filter.pattern) return false;
    return !filter.text || q.hay.includes(filter.text);
  }

  function value(q, key) {
    if (key === "rank") return q.rank === null ? Infinity : q.rank;
    if (key === "tags") return q.tags.join(", ");
    if (key === "why") return whyTitle(q);
    if (key.charAt(0) === "v" && key !== "v") return q.v[Number(key.slice(1))];
    return q[key];
  }

  function compare(a, b) {
    if (!sort.key) return a.order - b.order;
    const x = value(a, sort.key), y = value(b, sort.key);
    let c;
    if (typeof x === "number" || typeof y === "number") {
      c = (x === null ? -Infinity : x) - (y === null ? -Infinity : y);
      if (Number.isNaN(c)) c = 0;
    } else {
      c = String(x).localeCompare(String(y), undefined, { numeric: true });
    }
    return c * sort.dir || a.order - b.order;
  }

  function render() {
    const shown = rows.filter(visible).sort(compare);
    const frag = document.createDocumentFragment();
    for (const q of shown) {
      frag.append(row(q));
      if (open.has(q.id)) frag.append(detail(q));
    }
    tbody.replaceChildren(frag);
    document.getElementById("shown").textContent = "showing " + shown.length + " of " + rows.length;
  }

  tbody.addEventListener("click", function (event) {
    const tr = event.target.closest("tr.q");
    if (!tr) return;
    const q = rows.find((r) => r.id === tr.dataset.id);
    const btn = tr.querySelector("button.exp");
    if (open.has(q.id)) {
      open.delete(q.id);
      tr.classList.remove("open");
      btn.setAttribute("aria-expanded", "false");
      const next = tr.nextElementSibling;
      if (next && next.classList.contains("detail")) next.remove();
    } else {
      open.add(q.id);
      tr.classList.add("open");
      btn.setAttribute("aria-expanded", "true");
      tr.after(detail(q));
    }
  });

  document.querySelectorAll("#qtable th[data-key]").forEach(function (th) {
    th.addEventListener("click", function () {
      const key = th.dataset.key;
      sort.dir = sort.key === key ? -sort.dir : 1;
      sort.key = key;
      document.querySelectorAll("#qtable th[data-key]").forEach(function (other) {
        other.setAttribute("aria-sort", other === th ? (sort.dir > 0 ? "ascending" : "descending") : "none");
      });
      render();
    });
  });

  document.getElementById("search").addEventListener("input", function (event) {
    filter.text = event.target.value.trim().toLowerCase();
    render();
  });
  const tagFilter = document.getElementById("tag-filter");
  if (tagFilter) {
    tagFilter.addEventListener("change", function () {
      filter.tag = tagFilter.value;
      render();
    });
  }
  const patternFilter = document.getElementById("pattern-filter");
  if (patternFilter) {
    patternFilter.addEventListener("change", function () {
      filter.pattern = patternFilter.value;
      render();
    });
  }
  document.getElementById("misses").addEventListener("change", function (event) {
    filter.misses = event.target.checked;
    render();
  });

  document.querySelectorAll("details.columns input[type=checkbox]").forEach(function (box) {
    box.addEventListener("change", function () {
      const i = Number(box.value);
      if (box.checked) shownMetrics.add(i); else shownMetrics.delete(i);
      document.querySelector("#qtable th[data-key=v" + i + "]").hidden = !box.checked;
      document.getElementById("columns-shown").textContent = shownMetrics.size + " of " + metrics.length;
      render();
    });
  });

  const metricSelect = document.getElementById("tag-metric");
  if (metricSelect) {
    metricSelect.addEventListener("change", function () {
      document.querySelectorAll("svg.tagchart").forEach(function (svg) {
        svg.toggleAttribute("hidden", svg.dataset.index !== metricSelect.value);
      });
    });
  }

  render();
})();
