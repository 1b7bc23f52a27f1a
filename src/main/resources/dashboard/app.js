// The operator's dashboard: pages with addresses (#/, #/batches/BID, #/jobs/JID, #/hosts,
// #/search?q=), kept live by the server-sent events of /api/events: each event carries the counts
// and the ids that changed, and a page re-reads only what it shows when something it shows changed.
// Every action goes through the same admin endpoints curl would use.
'use strict';

const view = document.getElementById('view');
const WORKING = ['pending', 'estimating', 'provisioning', 'downloading', 'processing', 'storing', 'recording', 'notify'];
const JOB_STATES = ['pending', ...STEP_STATES, 'held', 'failed', 'completed'];
const BATCH_STATES = ['pending', 'held', 'processing', 'reporting', 'update-reporting', 'completed', 'failed'];
let current = null; // { route, refresh(change) }

function route() {
  const h = location.hash.replace(/^#/, '') || '/';
  const [path, query] = h.split('?');
  return { parts: path.split('/').filter(Boolean), params: new URLSearchParams(query || '') };
}

function go(path, params) {
  const q = params ? new URLSearchParams([...params].filter(([, v]) => v !== '' && v != null)).toString() : '';
  location.hash = '#' + path + (q ? '?' + q : '');
}

async function render(event) {
  const moved = !!event;
  const r = route();
  refusals.clear();
  document.querySelectorAll('header nav a').forEach(a => a.removeAttribute('aria-current'));
  const nav = r.parts[0] === 'hosts' ? 'hosts' : (r.parts.length ? null : 'overview');
  if (nav) document.querySelector(`header nav a[data-nav="${nav}"]`).setAttribute('aria-current', 'page');
  let page;
  if (r.parts[0] === 'batches' && r.parts[1]) page = batchPage(r.parts[1], r.params);
  else if (r.parts[0] === 'jobs' && r.parts[1]) page = jobPage(r.parts[1]);
  else if (r.parts[0] === 'hosts') page = hostsPage();
  else if (r.parts[0] === 'search') page = searchPage(r.params);
  else page = overviewPage(r.params);
  current = page;
  view.replaceChildren(...page.skeleton);
  if (moved) view.focus({ preventScroll: false }); // a keyboard or screen reader user goes on from the new page's start
  document.getElementById('message').textContent = '';
  await refreshView({ reload: true });
}

// one refresh at a time; a change that arrives meanwhile runs once more after it
let running = null, again = null;
async function refreshView(change) {
  const c = change || { reload: true };
  const p = current;
  // a page that reads much per change (a batch's jobs) says how often it may: later changes wait and merge
  if (p && p.minInterval && !c.reload && Date.now() - (p.lastAt || 0) < p.minInterval) {
    p.held = p.held ? merge(p.held, c) : c;
    if (!p.timer) p.timer = setTimeout(() => { p.timer = null; const h = p.held; p.held = null; if (p === current) refreshView(h); },
      p.minInterval - (Date.now() - p.lastAt));
    return;
  }
  if (p) p.lastAt = Date.now();
  if (running) { again = again ? merge(again, c) : c; return; }
  const page = current;
  running = (async () => {
    try {
      await page.refresh(c);
    } catch (e) {
      document.getElementById('message').textContent = e.message;
    }
  })();
  await running;
  running = null;
  // a page opened meanwhile gets its first load here (its change says reload)
  if (again) { const next = again; again = null; await refreshView(next); }
}

function merge(a, b) {
  return { reload: a.reload || b.reload, list: a.list || b.list, jobs_changed: [...(a.jobs_changed || []), ...(b.jobs_changed || [])],
    batches_changed: [...(a.batches_changed || []), ...(b.batches_changed || [])],
    hosts_changed: a.hosts_changed || b.hosts_changed, holds_changed: a.holds_changed || b.holds_changed };
}

// ------------------------------------------------------------------ counts and holds (every page)

function countBoxes(map, order) {
  return order.filter(k => k in map).map(k => el('div', { class: 'count', 'data-state': k }, el('b', {}, map[k]), k));
}

function jobSummary(jobs, work) {
  // the README's words: active, a worker holds the job; waiting, open, not held, no worker has it (in any state
  // from pending to notify); held, in the held state. Without the hosts' work nobody can tell active from waiting.
  const w = work || { active: '—', waiting: '—', held: jobs.held || 0 };
  return [['waiting', w.waiting, 'open, not held, no worker has it'], ['active', w.active, 'a worker holds it: it is in a step'],
    ['held', w.held, 'held by an operator or by a hold on the queue, its collection or its batch'],
    ['failed', jobs.failed || 0, 'failed'], ['completed', jobs.completed || 0, 'completed']]
    .map(([k, n, what]) => el('div', { class: 'count', 'data-summary': k, title: what }, el('b', {}, n), k));
}

async function refreshHolds() {
  const q = await api('GET', '/api/queue');
  QueueHolds.last = q.holds;
  const held = q.holds.queue;
  const badge = document.getElementById('queue-hold');
  badge.dataset.held = String(held);
  badge.textContent = held ? 'queue held' : 'queue not held';
  document.getElementById('queue-toggle').textContent = held ? 'Release queue' : 'Hold queue';
  historyNotice(q.history);
  return q;
}

/** While history's database cannot be reached, finished work waits in ZooKeeper: the operator is told. */
function historyNotice(h) {
  const notice = document.getElementById('history-notice');
  const down = !!h && h.status === 'DOWN';
  notice.hidden = !down;
  notice.textContent = down ? `history database unreachable since ${when(h.since)}; ${h.batches_waiting} finished `
    + `batch${h.batches_waiting === 1 ? '' : 'es'} wait in ZooKeeper until it is back (${h.error || 'no answer'})` : '';
}

// ------------------------------------------------------------------ overview: counts, charts, batches

function overviewPage(params) {
  const counts = el('div', {}), chartsBox = el('div', {}, el('p', { class: 'muted' }, 'loading charts…'));
  const tbody = el('tbody', {}), pager = el('div', { class: 'pager' }), holds = el('div', { class: 'muted', id: 'held-collections' });
  const f = Object.fromEntries(['state', 'profile', 'submitter', 'from', 'to'].map(k => [k, params.get(k) || '']));
  const filters = el('form', { class: 'filters', onsubmit: e => {
    e.preventDefault();
    const d = new FormData(e.target);
    go('/', new URLSearchParams([...d].map(([k, v]) => [k, String(v).trim()])));
  } },
  el('label', {}, 'state', el('select', { name: 'state' }, el('option', { value: '' }, 'any'),
    ...BATCH_STATES.map(s => el('option', { value: s, selected: f.state === s }, s)))),
  el('label', {}, 'profile', el('input', { name: 'profile', value: f.profile, size: 14 })),
  el('label', {}, 'submitter', el('input', { name: 'submitter', value: f.submitter, size: 12 })),
  el('label', {}, 'submitted from', el('input', { name: 'from', type: 'date', value: f.from })),
  el('label', {}, 'to', el('input', { name: 'to', type: 'date', value: f.to })),
  el('button', { type: 'submit' }, 'Filter'), el('a', { href: '#/' }, 'clear'));
  let shown = [];
  let chartsAt = 0, listAt = 0, listLater = null;
  return {
    skeleton: [el('h2', {}, 'Jobs and batches'), counts, holds, el('h2', {}, 'Activity'), chartsBox,
      el('h2', { id: 'batches-title' }, 'Batches'), filters,
      el('div', { class: 'table-wrap' }, el('table', { id: 'batches' },
        el('thead', {}, el('tr', {}, el('th', {}, 'batch'), el('th', {}, 'title / file'), el('th', {}, 'submitter'),
          el('th', {}, 'submitted'), el('th', {}, 'status'), el('th', {}, 'progress'), el('th', {}, ''))), tbody)),
      pager],
    async refresh(change) {
      if (change.reload || change.counts || change.holds_changed) {
        const c = change.counts || QueueCounts.last;
        if (change.reload || !c) {
          const q = await refreshHolds();
          QueueCounts.last = { jobs: q.jobs, batches: q.batches, work: q.work };
          replace(holds, collectionHolds(q.holds.collections));
        }
        const cc = change.counts || QueueCounts.last;
        replace(counts, el('div', { class: 'group' },
          el('div', {}, el('div', { class: 'muted' }, 'jobs'), el('div', { class: 'counts', id: 'job-summary' }, jobSummary(cc.jobs, cc.work))),
          el('div', {}, el('div', { class: 'muted' }, 'batches'), el('div', { class: 'counts', id: 'batch-counts' }, countBoxes(cc.batches, BATCH_STATES)))),
        el('details', {}, el('summary', {}, 'jobs per state'), el('div', { class: 'counts', id: 'job-counts' }, countBoxes(cc.jobs, JOB_STATES))));
      }
      if (change.reload || Date.now() - chartsAt > 15000) {
        chartsAt = Date.now();
        replace(chartsBox, charts(await api('GET', '/api/activity?minutes=180')));
      }
      const touched = (change.batches_changed || []);
      const newer = touched.some(b => !shown.length || b > shown[0]) && !params.get('before');
      let wanted = change.reload || change.list || newer || touched.some(b => shown.includes(b));
      // a busy queue changes its rows several times a second: the list is read at most once a second
      if (wanted && !change.reload && Date.now() - listAt < 1000) {
        if (!listLater) listLater = setTimeout(() => { listLater = null; refreshView({ list: true }); }, 1000 - (Date.now() - listAt));
        wanted = false;
      }
      if (wanted) {
        listAt = Date.now();
        const q = new URLSearchParams([...params].filter(([k]) => k !== 'page'));
        q.set('limit', '25');
        const bs = await api('GET', '/api/batches?' + q.toString());
        shown = bs.batches.map(b => b.batch_id);
        replace(tbody, bs.batches.length ? bs.batches.map(batchRow) : [el('tr', {}, cell('', { colspan: 7, class: 'muted' }, 'no batches match'))]);
        const older = bs.next ? new URLSearchParams(bs.next.split('?')[1]) : null;
        replace(pager, params.get('before') ? el('a', { href: '#/?' + new URLSearchParams([...params].filter(([k]) => k !== 'before')) }, '« newest') : null,
          older ? el('a', { href: '#/?' + new URLSearchParams([...params].filter(([k]) => k !== 'before').concat([['before', older.get('before')]])), 'data-key': 'older' }, 'older »') : null);
      }
    }
  };
}

const QueueCounts = { last: null };
// what the operator is typing survives the page's redraws by live updates
const collectionDraft = { value: '', focused: false };

/** Held collections with their Release buttons, and a confirmed hold of another collection. */
function collectionHolds(held) {
  const out = [el('span', {}, held.length ? 'Held collections: ' : 'No collection is held. ')];
  for (const c of held) {
    out.push(el('b', {}, c), ' ', isAdmin() ? actionButton('release-collection:' + c, 'Release ' + c, 'POST',
      `/api/collections/${encodeURIComponent(c)}/release`, { action: 'release-collection' }) : null, ' ');
  }
  if (!isAdmin()) return out;
  const input = el('input', { id: 'collection-name', size: 14, placeholder: 'profile name', 'aria-label': 'collection (profile) to hold',
    oninput: () => { collectionDraft.value = input.value; },
    onfocus: () => { collectionDraft.focused = true; }, onblur: () => { collectionDraft.focused = false; } });
  input.value = collectionDraft.value;
  if (collectionDraft.focused) setTimeout(() => input.focus(), 0); // keep the caret where the operator was typing
  const note = el('span', { class: 'refusal', role: 'alert', id: 'collection-refusal' }, refusals.get('hold-collection') || '');
  out.push(el('form', { class: 'filters', onsubmit: async e => {
    e.preventDefault();
    const c = input.value.trim();
    if (!c || !(await confirmAction(`Hold collection ${c}?`, `Pending jobs and batches of ${c} wait (held) until you release the collection; jobs already past pending finish their steps. Other collections go on.`, 'Hold collection'))) return;
    try {
      await api('POST', `/api/collections/${encodeURIComponent(c)}/hold`);
      refusals.delete('hold-collection');
      collectionDraft.value = '';
    } catch (err) {
      refusals.set('hold-collection', err.message); // shown beside the button again after the page redraws
    }
    refreshView({ reload: true });
  } }, input, el('button', { type: 'submit', 'data-action': 'hold-collection' }, 'Hold collection'), note));
  return out;
}

function fileName(sub) {
  if (sub.file_name) return sub.file_name;
  try { return decodeURIComponent(new URL(sub.payload_url).pathname.split('/').pop()); } catch (e) { return ''; }
}

function progress(jobs, states) {
  const held = states ? (states.held || 0) : (jobs.processing ? null : 0); // null: not read for this row
  const total = Math.max(jobs.expected || jobs.total, 1);
  // open: not completed, failed or deleted; the held ones are open too (README, glossary)
  const text = `${jobs.completed} completed · ${jobs.failed} failed · ${jobs.processing} open (${held == null ? '?' : held} held) of ${jobs.expected || jobs.total}`;
  return el('div', {}, el('div', { class: 'bar', role: 'img', 'aria-label': text },
    el('div', { class: 'completed', style: `width:${100 * jobs.completed / total}%` }),
    el('div', { class: 'failed', style: `width:${100 * jobs.failed / total}%` }),
    el('div', { class: 'held', style: `width:${100 * (held || 0) / total}%` })),
  el('span', { class: 'progress-text' }, text));
}

/**
 * The batch's own rate (README, glossary): while it is open, its jobs completed per minute over the last 15 minutes;
 * once finished, its mean rate. Never the queue's rate.
 */
function rate(b, p) {
  const finished = !['pending', 'held', 'processing'].includes(b.status.status);
  const mean = (p || {}).mean_per_minute ?? b.mean_per_minute;
  if (finished) return mean != null ? ` · mean rate ${mean} jobs/min` : '';
  const own = (p || {}).rate_per_minute ?? b.rate_per_minute;
  return own ? ` · ${own} jobs/min (last 15 min)` : '';
}

/**
 * Where a hold stops the batch (the progress answer's hold_note, when the page has it; else the queue's and the
 * collections' holds the page knows): null when none does.
 */
function holdNote(b, p) {
  if (p && p.hold_note) return p.hold_note;
  const h = QueueHolds.last, s = b.status.status;
  if (!h || !['pending', 'processing'].includes(s) || (s === 'processing' && !b.jobs.processing)) return null;
  if (h.queue) return 'the queue is on hold: nothing starts until an operator releases it';
  if ((h.collections || []).includes(b.submission.profile_name)) {
    return `collection ${b.submission.profile_name} is on hold: its jobs wait until an operator releases it`;
  }
  return null;
}

const QueueHolds = { last: null };

function batchRow(b) {
  if (b.damaged) return el('tr', { 'data-batch': b.batch_id }, cell('batch', {}, b.batch_id), cell('problem', { colspan: 6, class: 'error' }, 'damaged: ' + b.damaged));
  const s = b.status.status, sub = b.submission;
  const finished = ['completed', 'failed'].includes(s) ? b.status.last_modified : null;
  const hold = holdNote(b);
  return el('tr', { 'data-batch': b.batch_id },
    cell('batch', {}, el('a', { href: '#/batches/' + b.batch_id, 'data-key': 'b-' + b.batch_id }, b.batch_id)),
    cell('title / file', {}, el('div', {}, sub.erc_what || el('span', { class: 'muted' }, '(no title)')), el('div', { class: 'muted' }, fileName(sub))),
    cell('submitter', {}, sub.submitter || '—', el('div', { class: 'muted' }, sub.profile_name)),
    cell('submitted', {}, when(sub.submitted), finished ? el('div', { class: 'muted' }, 'finished ' + when(finished)) : null),
    cell('status', { class: 'batch-status' }, s + (b.status.error_message ? ': ' + b.status.error_message : ''),
      hold ? el('div', { class: 'hold-note' }, hold) : null),
    cell('progress', {}, progress(b.jobs, b.job_states), el('span', { class: 'progress-text batch-rate' }, rate(b))),
    cell('', { class: 'row-open' }, el('a', { href: '#/batches/' + b.batch_id }, 'open')));
}

// ------------------------------------------------------------------ live updates

function live() {
  const badge = document.getElementById('live');
  const source = new EventSource('/api/events');
  source.addEventListener('hello', () => {
    badge.dataset.live = 'true';
    badge.textContent = 'live';
    refreshView({ reload: true }); // events may have been missed while disconnected
  });
  source.addEventListener('change', e => {
    const c = JSON.parse(e.data);
    if (c.counts) QueueCounts.last = c.counts;
    if (c.holds_changed) refreshHolds().catch(() => {});
    refreshView(c);
  });
  source.addEventListener('logged-out', () => {
    source.close();
    api('GET', '/api/session').catch(() => {}); // answers 401: to the login page
  });
  source.onerror = () => {
    badge.dataset.live = 'false';
    badge.textContent = 'reconnecting…'; // EventSource reconnects by itself
    api('GET', '/api/session').catch(() => {}); // a session that ended goes to the login page
  };
}

// ------------------------------------------------------------------ start

document.getElementById('queue-toggle').addEventListener('click', async () => {
  const held = document.getElementById('queue-hold').dataset.held === 'true';
  const note = document.getElementById('queue-refusal');
  if (!held && !(await confirmAction('Hold the whole queue?', 'No host starts a new step of any job or batch until the queue is released; work in hand finishes its step. Submissions are still accepted.', 'Hold queue'))) return;
  try {
    await api('POST', held ? '/api/queue/release' : '/api/queue/hold');
    note.textContent = '';
  } catch (e) {
    note.textContent = e.message;
  }
  await refreshHolds();
});
document.getElementById('logout').addEventListener('click', async () => {
  try { await api('POST', '/api/logout'); } catch (e) { /* going to the login page anyway */ }
  location.replace(ORIGIN + '/login.html');
});
document.getElementById('search').addEventListener('submit', e => {
  e.preventDefault();
  const q = document.getElementById('search-q').value.trim();
  if (q) go('/search', new URLSearchParams({ q }));
});
window.addEventListener('hashchange', render);

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
    session.roles = s.roles || [];
    document.getElementById('who').textContent = s.user;
  } catch (e) {
    document.getElementById('message').textContent = e.message;
    return;
  }
  await refreshHolds().catch(e => { document.getElementById('message').textContent = e.message; });
  await render();
  live();
  setInterval(() => refreshHolds().catch(() => {}), 60000); // history's state is probed once a minute
}
start();
