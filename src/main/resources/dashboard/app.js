// The operator's dashboard: polls the JSON API; every action goes through the same admin
// endpoints curl would use, so what the page shows is what the queue says.
'use strict';

const state = { batch: null, job: null };
// Requests go to the page's origin, never to a URL with the credentials the address bar may
// carry (fetch refuses those); the session's CSRF token goes with every request.
const ORIGIN = location.origin;
const session = { user: null, csrf: null };

async function api(method, path, body) {
  const headers = { 'Accept': 'application/json', 'X-Requested-By': 'ingest-queue-dashboard' };
  if (session.csrf) headers['X-CSRF-Token'] = session.csrf;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const r = await fetch(new URL(path, ORIGIN), { method, credentials: 'same-origin', headers,
    body: body === undefined ? undefined : JSON.stringify(body) });
  const answer = await r.json().catch(() => ({}));
  if (r.status === 401 && path !== '/api/login') {
    location.replace(ORIGIN + '/login.html');
    throw new Error('log in first');
  }
  if (!r.ok) {
    throw new Error(answer.error ? answer.error + (answer.allowed ? ' Allowed: ' + answer.allowed.join(', ') : '') : r.status + ' ' + r.statusText);
  }
  return answer;
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith('on')) e.addEventListener(k.substring(2), v);
    else if (k === 'style') e.style.cssText = v; // CSSOM, which the Content-Security-Policy allows (style attributes it does not)
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(c == null ? '' : String(c)));
  return e;
}

async function act(method, path, confirmText) {
  if (confirmText && !window.confirm(confirmText)) return;
  try {
    await api(method, path);
    document.getElementById('message').textContent = '';
  } catch (e) {
    document.getElementById('message').textContent = e.message;
  }
  await refresh();
}

function counts(target, map) {
  const box = document.getElementById(target);
  box.replaceChildren(...Object.entries(map).map(([k, v]) =>
    el('div', { class: 'count', 'data-state': k }, el('b', {}, v), k)));
}

function progress(jobs) {
  const total = Math.max(jobs.total, 1);
  const bar = el('div', { class: 'bar', title: `${jobs.completed} completed, ${jobs.failed} failed, ${jobs.total} total` },
    el('div', { class: 'completed', style: `width:${100 * jobs.completed / total}%` }),
    el('div', { class: 'failed', style: `width:${100 * jobs.failed / total}%` }));
  return el('div', {}, bar, el('span', { class: 'muted progress-text' }, `${jobs.completed} / ${jobs.failed} / ${jobs.total}`));
}

function batchButtons(b) {
  const id = b.batch_id, s = b.status.status, out = [];
  if (s === 'pending') out.push(el('button', { onclick: () => act('POST', `/api/batches/${id}/hold`) }, 'Hold'));
  if (s === 'held') out.push(el('button', { onclick: () => act('POST', `/api/batches/${id}/release`) }, 'Release'));
  if (s === 'failed') out.push(el('button', { onclick: () => act('POST', `/api/batches/${id}/update-reporting`) }, 'Update report'));
  if (s === 'failed' || s === 'held') out.push(el('button', {
    onclick: () => act('POST', `/api/batches/${id}/delete`, `Delete batch ${id} and all its jobs?`) }, 'Delete'));
  return out;
}

function jobButtons(j) {
  const id = j.job_id, s = j.status.status, out = [];
  const working = ['pending', 'estimating', 'provisioning', 'downloading', 'processing', 'recording', 'notify'];
  if (working.includes(s)) out.push(el('button', { 'data-action': 'hold', onclick: () => act('POST', `/api/jobs/${id}/hold`) }, 'Hold'));
  if (s === 'held') out.push(el('button', { 'data-action': 'release', onclick: () => act('POST', `/api/jobs/${id}/release`) }, 'Release'));
  if (s === 'failed') out.push(el('button', { 'data-action': 'requeue', onclick: () => act('POST', `/api/jobs/${id}/requeue`) }, 'Requeue'));
  if (s === 'failed' || s === 'held') out.push(el('button', { 'data-action': 'delete',
    onclick: () => act('POST', `/api/jobs/${id}/delete?confirm=true`, `Delete job ${id}? Its batch report will not mention it.`) }, 'Delete'));
  return out;
}

async function refresh() {
  try {
    const q = await api('GET', '/api/queue');
    counts('job-counts', q.jobs);
    counts('batch-counts', q.batches);
    const held = q.holds.queue;
    const badge = document.getElementById('queue-hold');
    badge.dataset.held = String(held);
    badge.textContent = held ? 'queue held' : 'queue running';
    document.getElementById('queue-toggle').textContent = held ? 'Release queue' : 'Hold queue';
    document.getElementById('held-collections').textContent =
      q.holds.collections.length ? 'Held collections: ' + q.holds.collections.join(', ') : '';

    const bs = await api('GET', '/api/batches?limit=50');
    document.querySelector('#batches tbody').replaceChildren(...bs.batches.map(b =>
      el('tr', { 'data-batch': b.batch_id, class: b.batch_id === state.batch ? 'selected' : '',
                 onclick: () => { state.batch = b.batch_id; state.job = null; refresh(); } },
        el('td', {}, b.batch_id), el('td', {}, b.submission.profile_name),
        el('td', { class: 'batch-status' }, b.status.status + (b.status.error_message ? ': ' + b.status.error_message : '')),
        el('td', {}, progress(b.jobs)), el('td', {}, ...batchButtons(b)))));

    if (state.batch) {
      const js = await api('GET', `/api/jobs?batch=${state.batch}&limit=1000`);
      document.getElementById('batch-detail').hidden = false;
      document.getElementById('batch-title').textContent = state.batch;
      document.querySelector('#jobs tbody').replaceChildren(...js.jobs.map(j =>
        el('tr', { 'data-job': j.job_id, class: j.job_id === state.job ? 'selected' : '',
                   onclick: () => { state.job = j.job_id; refresh(); } },
          el('td', {}, j.job_id), el('td', { class: 'job-status' }, j.status.status), el('td', {}, j.priority),
          el('td', { class: 'error' }, j.status.error_message || ''), el('td', {}, ...jobButtons(j)))));
    }
    if (state.job) {
      const j = await api('GET', `/api/jobs/${state.job}`);
      document.getElementById('job-detail').hidden = false;
      document.getElementById('job-title').textContent = j.job_id;
      document.getElementById('job-status').textContent = j.status.status;
      document.getElementById('job-last').textContent = j.status.last_successful_status || '—';
      document.getElementById('job-retries').textContent = j.status.retry_count;
      document.getElementById('job-error').textContent = j.status.error_message || '—';
      document.getElementById('job-ids').textContent =
        [j.identifiers.primary, ...(j.identifiers.local_id || [])].filter(Boolean).join(', ') || '—';
      document.getElementById('job-payload').textContent = j.configuration.payload_url;
      document.getElementById('job-actions').replaceChildren(...jobButtons(j));
    }
    document.getElementById('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
  } catch (e) {
    document.getElementById('message').textContent = e.message;
  }
}

document.getElementById('queue-toggle').addEventListener('click', () =>
  act('POST', document.getElementById('queue-hold').dataset.held === 'true' ? '/api/queue/release' : '/api/queue/hold'));
document.getElementById('logout').addEventListener('click', async () => {
  try { await api('POST', '/api/logout'); } catch (e) { /* going to the login page anyway */ }
  location.replace(ORIGIN + '/login.html');
});

async function start() {
  // document.URL keeps the user and password of http://user:password@host/ (location.href does not)
  const here = new URL(document.URL);
  try {
    if (here.username) {
      // opened as http://user:password@host/: log in with them, then continue on the plain address
      await api('POST', '/api/login', { username: decodeURIComponent(here.username), password: decodeURIComponent(here.password) });
      location.replace(ORIGIN + here.pathname + here.search + here.hash);
      return;
    }
    const s = await api('GET', '/api/session');
    session.user = s.user;
    session.csrf = s.csrf_token || null;
    document.getElementById('who').textContent = s.user;
  } catch (e) {
    document.getElementById('message').textContent = e.message;
    return;
  }
  refresh();
  setInterval(refresh, 1000);
}
start();
