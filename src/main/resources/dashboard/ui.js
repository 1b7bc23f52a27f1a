// Helpers the dashboard's pages share: requests to the API (with the session's CSRF token, which
// the server keeps in the XSRF-TOKEN cookie and expects back as X-XSRF-TOKEN),
// building elements without HTML strings (nothing a job carries is ever parsed as markup),
// the confirmation dialog, and actions whose refusals appear next to the button that asked.
'use strict';

const ORIGIN = location.origin;
const session = { user: null, roles: [] };

function csrfToken() {
  const c = document.cookie.split('; ').find(kv => kv.startsWith('XSRF-TOKEN='));
  return c ? decodeURIComponent(c.substring('XSRF-TOKEN='.length)) : null;
}

async function send(method, path, body) {
  const headers = { 'Accept': 'application/json', 'X-Requested-By': 'ingest-queue-dashboard' };
  const token = csrfToken(); // read at each request: every change the server accepts renews it
  if (token) headers['X-XSRF-TOKEN'] = token;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const r = await fetch(new URL(path, ORIGIN), { method, credentials: 'same-origin', headers,
    body: body === undefined ? undefined : JSON.stringify(body) });
  return [r, await r.json().catch(() => ({}))];
}

async function api(method, path, body) {
  let [r, answer] = await send(method, path, body);
  if (r.status === 403 && method !== 'GET' && String(answer.error).includes('XSRF-TOKEN')) {
    // a token another tab renewed, or one past its time: a read brings the session's own, then once more
    await send('GET', '/api/session');
    [r, answer] = await send(method, path, body);
  }
  if (r.status === 401 && path !== '/api/login') {
    location.replace(ORIGIN + '/login.html');
    throw new Error('log in first');
  }
  if (!r.ok) {
    const e = new Error(answer.error ? answer.error + (answer.allowed ? ' Allowed: ' + answer.allowed.join(', ') : '')
      : r.status + ' ' + r.statusText);
    e.answer = answer;
    throw e;
  }
  return answer;
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.substring(2), v);
    else if (k === 'style') e.style.cssText = v; // CSSOM, which the Content-Security-Policy allows (style attributes it does not)
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** A table cell that names its column: on a phone a row is a card, each cell under its label (style.css). */
function cell(label, attrs, ...children) {
  return el('td', Object.assign({ 'data-label': label }, attrs), ...children);
}

/** Names each cell of a table by its column's header, where the page built the cell without a label. */
function labelCells(table) {
  const heads = [...table.querySelectorAll('thead th')].map(th => th.textContent);
  table.querySelectorAll('tbody tr').forEach(tr => [...tr.cells].forEach((td, i) => {
    if (!td.hasAttribute('data-label') && heads[i] != null && td.colSpan === 1) td.setAttribute('data-label', heads[i]);
  }));
}

function svg(tag, attrs, ...children) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children.flat()) {
    if (c === undefined || c === null) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** Replaces a container's children, keeping the keyboard focus on the element with the same data-key. */
function replace(container, ...nodes) {
  const active = document.activeElement;
  const key = active && container.contains(active) ? active.getAttribute('data-key') : null;
  container.replaceChildren(...nodes.flat().filter(n => n !== null && n !== undefined && n !== false));
  if (key) {
    const again = container.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (again) again.focus();
  }
}

function when(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return isNaN(d) ? iso : d.toLocaleString([], { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

function ago(iso) {
  if (!iso) return '';
  const s = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (isNaN(s)) return '';
  if (s < 0) return 'in ' + duration(-s);
  return duration(s) + ' ago';
}

function duration(s) {
  if (s < 90) return s + ' s';
  if (s < 5400) return Math.round(s / 60) + ' min';
  if (s < 172800) return (s / 3600).toFixed(1) + ' h';
  return Math.round(s / 86400) + ' d';
}

/** The confirmation dialog: says what will happen; resolves true only on the action's own button. */
function confirmAction(title, text, okLabel) {
  const d = document.getElementById('confirm');
  document.getElementById('confirm-title').textContent = title;
  document.getElementById('confirm-text').textContent = text;
  const ok = document.getElementById('confirm-ok');
  ok.textContent = okLabel;
  return new Promise(resolve => {
    d.addEventListener('close', () => resolve(d.returnValue === 'ok'), { once: true });
    d.returnValue = 'cancel';
    d.showModal();
    document.getElementById('confirm-cancel').focus(); // the safe choice has the focus
  });
}

// refusals by action key, so a page re-drawn by a live update shows them again
const refusals = new Map();

/**
 * An action button with its refusal next to it. {@code confirm} ({title, text}) asks first;
 * {@code disabledWhy} disables it and says why (read out by screen readers too).
 */
function actionButton(key, label, method, path, opts) {
  const o = opts || {};
  const note = el('span', { class: 'refusal', role: 'alert', 'data-refusal': key }, refusals.get(key) || '');
  const reason = o.disabledWhy ? el('span', { class: 'visually-hidden', id: 'why-' + key }, o.disabledWhy) : null;
  const b = el('button', { type: 'button', 'data-action': o.action || key.split(':')[0], 'data-key': key,
    class: o.danger ? 'danger' : null, disabled: !!o.disabledWhy, title: o.disabledWhy || null,
    'aria-describedby': reason ? 'why-' + key : null,
    onclick: async () => {
      if (o.confirm && !(await confirmAction(o.confirm.title, o.confirm.text, label))) return;
      b.disabled = true;
      try {
        const answer = await api(method, path);
        refusals.delete(key);
        note.textContent = '';
        if (o.after) o.after(answer);
      } catch (e) {
        refusals.set(key, e.message);
        note.textContent = e.message;
      } finally {
        b.disabled = !!o.disabledWhy;
      }
      if (o.refresh !== false) refreshView();
    } }, label);
  return el('span', { class: 'action' }, b, reason, note);
}

function isAdmin() {
  return session.roles.includes('admin');
}
