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

  function renderBoards(boards) {
    const root = byId('boards');
    root.replaceChildren();
    for (const b of boards) {
      const div = el('div', null, 'board');
      const h3 = el('h3', b.shared ? 'Shared board' : (b.subject || 'anonymous') + '’s board');
      if (b.path) {
        h3.appendChild(document.createTextNode(' '));
        h3.appendChild(el('span', b.path, 'path mono'));
      }
      div.appendChild(h3);
      if (b.error) div.appendChild(el('p', b.error, 'error'));
      const table = el('table');
      const head = row(['id', 'status', 'priority', 'description', 'blocked by', 'part of'].map((t) => el('th', t)));
      table.appendChild(el('thead')).appendChild(head);
      const tbody = table.appendChild(el('tbody'));
      fill(tbody, b.tasks.map((t) => {
        const tr = row([el('td', t.id, 'mono'), t.status + (t.ready ? ' (ready)' : ''), 'P' + t.priority,
          el('td', t.description, 'description'), el('td', t.blocked_by.join(', '), 'mono'),
          el('td', t.parent_id, 'mono')], 'status-' + t.status);
        tr.dataset.task = t.id;
        return tr;
      }), 'no tasks', 6);
      div.appendChild(table);
      root.appendChild(div);
    }
  }

  function render(state) {
    offset = Date.parse(state.now) - Date.now();
    renderCores(state.cores);
    renderCalls(state.calls);
    renderBoards(state.boards);
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
    connect();
    setInterval(tick, 1000);
  });
})();
