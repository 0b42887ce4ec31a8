// The Boris dashboard's script: it keeps the page live from the gateway's
// event stream (/dashboard/events). Every value is set as text
// (textContent), never parsed as HTML: task descriptions, subjects and
// tool names are other people's words.
'use strict';

(function () {
  const byId = (id) => document.getElementById(id);
  let offset = 0; // server clock minus ours, in ms

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }

  function row(cells, cls) {
    const tr = el('tr', null, cls);
    for (const c of cells) tr.appendChild(c instanceof Node ? c : el('td', c));
    return tr;
  }

  function seconds(s) {
    if (s < 1) return Math.round(s * 1000) + 'ms';
    s = Math.round(s);
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
    if (h > 0) return h + 'h' + m + 'm';
    if (m > 0) return m + 'm' + r + 's';
    return r + 's';
  }

  function since(iso) {
    return seconds(Math.max(0, (Date.now() + offset - Date.parse(iso)) / 1000));
  }

  // timed is a cell (or span) showing the time since iso, kept current by tick.
  function timed(tag, iso) {
    const e = el(tag, since(iso));
    e.dataset.since = iso;
    return e;
  }

  function bytes(b) {
    return b < 0 ? '?' : (b / 1048576).toFixed(1) + ' MiB';
  }

  function fill(tbody, rows, empty, span) {
    tbody.replaceChildren();
    if (rows.length === 0) {
      const td = el('td', empty);
      td.colSpan = span;
      tbody.appendChild(row([td], 'empty'));
      return;
    }
    for (const r of rows) tbody.appendChild(r);
  }

  function renderCores(cores) {
    byId('cores-count').textContent = String(cores.length);
    fill(byId('cores'), cores.map((c) => {
      const calls = el('td');
      for (const ic of c.calls) {
        const d = el('div', null, 'call');
        d.appendChild(el('span', ic.tool, 'tool'));
        d.appendChild(document.createTextNode(' '));
        d.appendChild(timed('span', ic.started));
        calls.appendChild(d);
      }
      if (c.calls.length === 0) calls.appendChild(el('span', '—', 'none'));
      // A core whose call is still running is busy, however old its last request.
      const idle = c.calls.length > 0 ? el('td', 'busy', 'busy') : timed('td', c.last_active);
      const tr = row([el('td', c.session, 'mono'), c.kind, c.subject,
        timed('td', c.started), idle, calls, bytes(c.rss_bytes)]);
      tr.dataset.session = c.session;
      return tr;
    }), 'no cores open', 7);
  }

  function renderCalls(calls) {
    fill(byId('calls'), calls.map((c) => {
      const outcome = el('td', c.outcome, 'outcome-' + c.outcome);
      return row([new Date(c.at).toTimeString().slice(0, 8), el('td', c.tool, 'tool'), c.subject,
        el('td', c.session, 'mono'), c.duration_ms + ' ms', outcome]);
    }), 'no tool calls yet', 6);
  }

  // cardId names a task's card: its board's place on the page and its id
  // (two principals' boards both have a W-1).
  const cardId = (board, id) => 'b' + board + '-' + id;

  function card(t, i, listed) {
    const a = el('article', null, 'card status-' + t.status + (t.blocked ? ' blocked' : ''));
    a.id = cardId(i, t.id);
    a.dataset.task = t.id;
    const head = a.appendChild(el('div', null, 'card-head'));
    head.appendChild(el('span', t.id, 'mono id'));
    head.appendChild(document.createTextNode(' '));
    head.appendChild(el('span', 'P' + t.priority, 'priority'));
    if (t.blocked) {
      head.appendChild(document.createTextNode(' '));
      head.appendChild(el('span', 'blocked', 'badge'));
    }
    a.appendChild(el('p', t.description, 'description'));
    if (t.blocked_by.length > 0) {
      const p = a.appendChild(el('p', 'waits for ', 'blockers'));
      for (const id of t.blocked_by) {
        const open = t.open_blockers.includes(id) ? ' open' : '';
        // A blocker past the tasks listed has no card to go to.
        const link = el(listed.has(id) ? 'a' : 'span', id, 'blocker mono' + open);
        if (listed.has(id)) link.href = '#' + cardId(i, id);
        link.dataset.blocker = id;
        p.appendChild(link);
        p.appendChild(document.createTextNode(' '));
      }
    }
    if (t.parent_id) {
      const p = a.appendChild(el('p', 'part of ', 'parent'));
      const link = p.appendChild(el('a', t.parent_id, 'mono'));
      link.href = '#' + cardId(i, t.parent_id);
    }
    return a;
  }

  function renderBoard(b, i, statuses) {
    const div = el('div', null, 'board');
    const h3 = el('h3', b.shared ? 'The team’s board' : (b.subject || 'anonymous') + '’s board');
    if (b.path) {
      h3.appendChild(document.createTextNode(' '));
      h3.appendChild(el('span', b.path, 'path mono'));
    }
    div.appendChild(h3);
    if (b.error) div.appendChild(el('p', b.error, 'error'));
    const cols = div.appendChild(el('div', null, 'columns'));
    const listed = new Set(b.tasks.map((t) => t.id));
    for (const st of statuses) {
      const col = cols.appendChild(el('section', null, 'column'));
      col.dataset.status = st.status;
      const h4 = col.appendChild(el('h4', st.title + ' '));
      h4.appendChild(el('span', b.counts[st.status] || 0, 'count'));
      const tasks = b.tasks.filter((t) => t.status === st.status);
      for (const t of tasks) col.appendChild(card(t, i, listed));
      if (tasks.length === 0) col.appendChild(el('p', 'none', 'none'));
    }
    if (b.more) div.appendChild(el('p', 'Only the first 200 tasks are shown.', 'note'));
    return div;
  }

  let shownBoards = '';

  // renderBoards redraws the boards only when they changed: a card a
  // person is reading (or was sent to by a link) stays put.
  function renderBoards(boards, statuses) {
    const key = JSON.stringify(boards);
    if (key === shownBoards) return;
    shownBoards = key;
    byId('boards').replaceChildren(...boards.map((b, i) => renderBoard(b, i, statuses)));
    markTarget();
  }

  // markTarget highlights the card the address names (#b0-W-3), as
  // :target does, and keeps it highlighted when the card is drawn again.
  function markTarget() {
    for (const e of document.querySelectorAll('.card.target')) e.classList.remove('target');
    const id = decodeURIComponent(window.location.hash.slice(1));
    const e = id && document.getElementById(id);
    if (e && e.classList.contains('card')) e.classList.add('target');
  }

  const SVG = 'http://www.w3.org/2000/svg';

  function svg(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = String(text);
    return e;
  }

  // niceMax is the top of a plot's scale: 1, 2 or 5 times a power of ten.
  function niceMax(v) {
    if (!(v > 0)) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(v)));
    for (const m of [1, 2, 5]) if (v <= m * p) return m * p;
    return 10 * p;
  }

  function num(v) {
    if (v >= 100) return String(Math.round(v));
    if (v >= 10) return v.toFixed(1);
    return String(Number(v.toFixed(2)));
  }

  function hhmm(iso) {
    return new Date(iso).toTimeString().slice(0, 5);
  }

  // A plot is an SVG drawn here: a line per series over the last hour (and
  // a bar per minute for a series of bars), a point per minute (its value
  // in data-value, and a tooltip).
  const W = 320, H = 110, L = 36, R = 8, T = 8, B = 18;

  function drawPlot(fig, host, now, series, unit) {
    const start = Date.parse(now) - 3600e3;
    const x = (iso) => L + (W - L - R) * Math.min(1, Math.max(0, (Date.parse(iso) - start) / 3600e3));
    let top = 0;
    for (const s of series) for (const m of host.samples) top = Math.max(top, s.value(m));
    top = niceMax(top);
    const y = (v) => H - B - (H - T - B) * (v / top);
    const g = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img', class: 'chart' });
    g.appendChild(svg('title', {}, fig.querySelector('.title').textContent + ' on ' + host.name + ', the last hour'));
    for (const v of [0, top / 2, top]) {
      g.appendChild(svg('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), class: 'grid' }));
      g.appendChild(svg('text', { x: L - 4, y: y(v) + 4, class: 'axis', 'text-anchor': 'end' }, num(v)));
    }
    for (const [label, at, anchor] of [['−60 min', L, 'start'], ['−30 min', (L + W - R) / 2, 'middle'], ['now', W - R, 'end']]) {
      g.appendChild(svg('text', { x: at, y: H - 4, class: 'axis', 'text-anchor': anchor }, label));
    }
    const bar = (W - L - R) / 60; // a minute's width
    for (const s of series) {
      if (s.bars) {
        const bars = g.appendChild(svg('g', { class: 'bars ' + s.cls }));
        for (const m of host.samples) {
          if (s.value(m) > 0) {
            bars.appendChild(svg('rect', { x: (x(m.at) - bar / 2).toFixed(1), y: y(s.value(m)).toFixed(1),
              width: Math.max(1, bar - 1).toFixed(1), height: (y(0) - y(s.value(m))).toFixed(1) }));
          }
        }
      }
      // A minute without a value (latency without calls) breaks the line.
      const shown = host.samples.filter((m) => !s.defined || s.defined(m));
      let run = [];
      for (const m of host.samples.concat([null])) {
        if (m && (!s.defined || s.defined(m))) {
          run.push(x(m.at).toFixed(1) + ',' + y(s.value(m)).toFixed(1));
          continue;
        }
        if (run.length > 0) g.appendChild(svg('polyline', { points: run.join(' '), class: 'line ' + s.cls }));
        run = [];
      }
      const dots = g.appendChild(svg('g', { class: 'points ' + s.cls, 'data-series': s.name }));
      for (const m of shown) {
        const c = dots.appendChild(svg('circle', { cx: x(m.at).toFixed(1), cy: y(s.value(m)).toFixed(1), r: 2.5,
          'data-value': s.value(m), 'data-at': m.at }));
        c.appendChild(svg('title', {}, hhmm(m.at) + ' ' + s.name + ': ' + num(s.value(m)) + unit));
      }
    }
    const old = fig.querySelector('svg');
    if (old) old.replaceWith(g); else fig.appendChild(g);
    if (series.length > 1 && !fig.querySelector('.legend')) {
      fig.appendChild(el('div', null, 'legend')).append(...series.map((s) => el('span', s.name, 'key ' + s.cls)));
    }
  }

  // plots are the host's three plots: their series, and the words beside
  // each title.
  function plots(host) {
    const last = host.samples[host.samples.length - 1] || {};
    const calls = host.samples.reduce((a, m) => a + m.calls, 0);
    return {
      sessions: {
        series: [{ name: 'sessions', cls: 'a', value: (m) => m.sessions },
          { name: 'principal cores', cls: 'b', value: (m) => m.principal_cores }],
        unit: '', now: (last.sessions || 0) + ' this minute',
      },
      calls: {
        series: [{ name: 'calls/s', cls: 'a', bars: true, value: (m) => m.calls_per_second }],
        unit: '/s', now: calls + (calls === 1 ? ' call' : ' calls') + ' in the hour',
      },
      latency: {
        series: [{ name: 'p50', cls: 'a', value: (m) => m.p50_ms, defined: (m) => m.calls > 0 },
          { name: 'p99', cls: 'b', value: (m) => m.p99_ms, defined: (m) => m.calls > 0 }],
        unit: ' ms', now: last.calls ? 'p50 ' + num(last.p50_ms) + ' ms, p99 ' + num(last.p99_ms) + ' ms this minute' : 'no calls this minute',
      },
    };
  }

  function renderHost(host, now) {
    const section = byId('host');
    if (!section || !host) return;
    const all = plots(host);
    for (const fig of section.querySelectorAll('figure[data-plot]')) {
      const p = all[fig.dataset.plot];
      fig.querySelector('.now').textContent = p.now;
      drawPlot(fig, host, now, p.series, p.unit);
    }
  }

  function render(state) {
    offset = Date.parse(state.now) - Date.now();
    renderHost(state.host, state.now);
    renderCores(state.cores);
    renderCalls(state.calls);
    renderBoards(state.boards, state.statuses);
  }

  function tick() {
    for (const e of document.querySelectorAll('[data-since]')) e.textContent = since(e.dataset.since);
  }

  function connect() {
    const live = byId('live');
    const es = new EventSource('/dashboard/events');
    es.addEventListener('state', (ev) => {
      render(JSON.parse(ev.data));
      live.textContent = 'live';
      live.classList.add('on');
    });
    es.addEventListener('logout', () => {
      es.close();
      window.location.reload();
    });
    es.onerror = () => {
      live.textContent = 'reconnecting…';
      live.classList.remove('on');
    };
  }

  document.addEventListener('DOMContentLoaded', () => {
    window.addEventListener('hashchange', markTarget);
    markTarget();
    connect();
    setInterval(tick, 1000);
  });
})();
