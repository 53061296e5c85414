// The floor page of scripts/bench-ui.sh: the ad-order table's markup and CSS (the app's
// built CSS, copied beside this file as app.css), over rows held in a plain array, with no
// React and no IPC. A keystroke in the filter filters the array, a click on a header sorts
// it, and the first 50 rows are repainted; the root then carries the same timing
// attributes as DataTable (data-total, data-filter-applied, data-sort-applied and
// data-painted-at, set an animation frame and a task after the commit, as DataTable's
// afterNextPaint does), so the bench times it the same way; "fd:table-committed" is marked
// once the DOM holds the new rows, where React's commit is in the app, and
// "fd:floor-sorted" once a sort of the whole array is done (the repaint alone follows it).
// The rows: #rows=N in the URL (default 100,000), shaped like the bench's ad orders.
"use strict";

(() => {
  const ROW_HEIGHT = 26;
  const SHOWN = 50;
  const DAY = 86400000;
  const hash = new URLSearchParams(location.hash.slice(1));
  const count = Number(hash.get("rows") || "100000");
  const now = Date.now();

  // The ad-order table's visible columns (ui/src/screens/entities.tsx, AD_ORDERS).
  const COLUMNS = [
    { id: "name", header: "Name", width: 220 },
    { id: "id", header: "Id", width: 64, num: true },
    { id: "campaign", header: "Campaign", width: 170 },
    { id: "status", header: "Status", width: 90 },
    { id: "goal", header: "Goal", width: 90 },
    { id: "start", header: "Start", width: 150 },
    { id: "end", header: "End", width: 150 },
    { id: "budget", header: "Lifetime budget", width: 120, num: true },
    { id: "maxbid", header: "Max bid", width: 90, num: true },
    { id: "pacing", header: "Hourly pacing", width: 120 },
    { id: "audiences", header: "Audiences", width: 80, num: true },
  ];
  const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const date = new Intl.DateTimeFormat(undefined, { timeZone: "UTC", year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
  const money = (v) => (v === null ? "" : usd.format(v));
  const CELL = {
    name: (r) => r.name,
    id: (r) => String(r.id),
    campaign: (r) => r.campaign,
    status: null,
    goal: (r) => r.goal,
    start: (r) => date.format(new Date(r.start)),
    end: (r) => date.format(new Date(r.end)),
    budget: (r) => money(r.budget),
    maxbid: (r) => money(r.maxBid),
    pacing: (r) => r.pacing,
    audiences: (r) => String(r.audiences),
  };

  // As testing::ad_order_body makes them: "Order i" under one campaign.
  const all = new Array(count);
  for (let i = 0; i < count; i++) {
    const name = `Order ${i}`;
    all[i] = {
      id: 1000 + i, name, key: name.toLowerCase(), campaign: "Demo campaign", status: "Scheduled",
      goal: "CPM", start: now + DAY, end: now + 30 * DAY, budget: 500, maxBid: null, pacing: "", audiences: 1,
    };
  }
  const SORT_KEY = {
    name: (r) => r.key, id: (r) => r.id, campaign: (r) => r.campaign, status: (r) => r.status, goal: (r) => r.goal,
    start: (r) => r.start, end: (r) => r.end, budget: (r) => r.budget, maxbid: (r) => r.maxBid ?? -Infinity,
    pacing: (r) => r.pacing, audiences: (r) => r.audiences,
  };

  let filter = "";
  let sort = null; // {column, descending}, cycled as useSort does: asc, desc, none
  let ordered = all;

  const el = (tag, attrs, children) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null) continue;
      if (k === "className") e.className = v;
      else if (k === "text") e.textContent = v;
      else e.setAttribute(k, v);
    }
    for (const c of children || []) e.append(c);
    return e;
  };

  // The markup of DataTable for the ad-order table (selectable, with the State column).
  const root = document.getElementById("root");
  root.style.display = "flex";
  root.style.flexDirection = "column";
  const box = el("input", { type: "search", className: "dt-filter", "data-filter": "", placeholder: "Filter…", "aria-label": "Filter Ad orders" });
  const countEl = el("span", { className: "dt-count", "aria-live": "polite" });
  const columnsMenu = el("details", { className: "dt-columns" }, [el("summary", { "aria-label": "Choose columns", text: "Columns" })]);
  const toolbar = el("div", { className: "dt-toolbar", role: "toolbar", "aria-label": "Ad orders tools" }, [el("span", { className: "spacer" }), countEl, box, columnsMenu]);
  const table = el("table", { className: "dt", "data-table": "ad_order", "aria-label": "Ad orders" });
  const colgroup = el("colgroup");
  for (const w of [30, 92, ...COLUMNS.map((c) => c.width)]) {
    const col = el("col");
    col.style.width = `${w}px`;
    colgroup.append(col);
  }
  const headRow = el("tr", {}, [
    el("th", { className: "dt-check" }, [el("input", { type: "checkbox", "aria-label": "Select all rows" })]),
    el("th", { className: "dt-marker", text: "State" }),
  ]);
  const headers = {};
  for (const c of COLUMNS) {
    const indicator = el("span", { className: "sort-indicator", "aria-hidden": "true" });
    const button = el("button", { type: "button", className: "dt-sort", "data-sort": c.id }, [c.header, indicator]);
    const th = el("th", { "data-col": c.id, "aria-sort": "none", className: c.num ? "num" : undefined }, [button]);
    headers[c.id] = { th, indicator };
    button.addEventListener("click", () => toggleSort(c.id));
    headRow.append(th);
  }
  const tbody = el("tbody");
  const padCell = el("td", { colSpan: String(COLUMNS.length + 2) });
  const pad = el("tbody", { "aria-hidden": "true" }, [el("tr", { className: "dt-pad" }, [padCell])]);
  table.append(colgroup, el("thead", {}, [headRow]), tbody, pad);
  const scroll = el("div", { className: "dt-scroll", tabindex: "0", role: "region", "aria-label": "Ad orders rows" }, [table]);
  const datatable = el("div", { className: "datatable", "data-table-root": "ad_order" }, [toolbar, scroll]);
  root.append(el("div", { className: "screen" }, [datatable]));

  const row = (r, index) => {
    const tr = el("tr", { "data-index": String(index), "data-row": "", "data-label": r.name, "aria-rowindex": String(index + 2), "aria-selected": "false" });
    tr.style.height = `${ROW_HEIGHT}px`;
    tr.append(
      el("td", { className: "dt-check" }, [el("input", { type: "checkbox", "aria-label": `Select ${r.name}` })]),
      el("td", { className: "dt-marker" }),
    );
    for (const c of COLUMNS) {
      const td = el("td", { "data-col": c.id, className: c.num ? "num" : undefined });
      if (c.id === "status") td.append(el("span", { className: "ad-status", "data-status": r.status, text: r.status }));
      else td.textContent = CELL[c.id](r);
      tr.append(td);
    }
    return tr;
  };

  let pending = 0;
  // Filters, takes the first rows, repaints; then marks the paint as DataTable does.
  const show = () => {
    const f = filter.trim().toLowerCase();
    const matches = f === "" ? ordered : ordered.filter((r) => r.key.includes(f));
    const rows = matches.slice(0, SHOWN).map(row);
    tbody.replaceChildren(...rows);
    padCell.style.height = `${Math.max(0, matches.length - rows.length) * ROW_HEIGHT}px`;
    table.setAttribute("aria-rowcount", String(matches.length + 1));
    countEl.textContent = matches.length === all.length ? `${matches.length.toLocaleString()} rows` : `${matches.length.toLocaleString()} of ${all.length.toLocaleString()}`;
    for (const c of COLUMNS) {
      const dir = sort && sort.column === c.id ? (sort.descending ? "desc" : "asc") : null;
      headers[c.id].th.setAttribute("aria-sort", dir === "asc" ? "ascending" : dir === "desc" ? "descending" : "none");
      headers[c.id].indicator.textContent = dir === "asc" ? "▲" : dir === "desc" ? "▼" : "";
    }
    performance.mark("fd:table-committed");
    const shown = { filter, sort: sort ? `${sort.column}:${sort.descending ? "desc" : "asc"}` : "", total: matches.length };
    const ticket = ++pending;
    requestAnimationFrame(() =>
      setTimeout(() => {
        if (ticket !== pending) return; // a later input repaints and marks
        datatable.dataset.total = String(shown.total);
        datatable.dataset.filterApplied = shown.filter;
        datatable.dataset.sortApplied = shown.sort;
        datatable.dataset.paintedAt = String(performance.now());
        performance.mark("fd:table-painted");
      }, 0),
    );
  };

  const toggleSort = (column) => {
    if (!sort || sort.column !== column) sort = { column, descending: false };
    else if (!sort.descending) sort = { column, descending: true };
    else sort = null;
    if (sort === null) ordered = all;
    else {
      const key = SORT_KEY[column];
      const sign = sort.descending ? -1 : 1;
      ordered = all.slice().sort((a, b) => {
        const x = key(a);
        const y = key(b);
        return x < y ? -sign : x > y ? sign : a.id - b.id;
      });
    }
    performance.mark("fd:floor-sorted");
    show();
  };

  box.addEventListener("input", () => {
    filter = box.value;
    show();
  });
  document.querySelector('link[rel="stylesheet"]').addEventListener("error", () => {
    document.documentElement.dataset.css = "missing";
  });
  show();
})();
