// The operator's dashboard: pages with addresses (#/, #/batches/BID, #/jobs/JID, #/hosts,
// #/search?q=), kept live by the server-sent events of /api/events: each event carries the counts
// and the ids that changed, and a page re-reads only what it shows when something it shows changed.
// Every action goes through the same admin endpoints curl would use.
'use strict';

const view = document.getElementById('view');
const WORKING = ['pending', 'estimating', 'provisioning', 'downloading', 'processing', 'recording', 'notify'];
const JOB_STATES = ['pending', ...ACTIVE, 'held', 'failed', 'completed'];
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

async function render() {
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
  document.getElementById('message').textContent = '';
  await refreshView({ reload: true });
}

// one refresh at a time; a change that arrives meanwhile runs once more after it
let running = null, again = null;
async function refreshView(change) {
  const c = change || { reload: true };
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
  return { reload: a.reload || b.reload, jobs_changed: [...(a.jobs_changed || []), ...(b.jobs_changed || [])],
    batches_changed: [...(a.batches_changed || []), ...(b.batches_changed || [])],
    hosts_changed: a.hosts_changed || b.hosts_changed, holds_changed: a.holds_changed || b.holds_changed };
}

// ------------------------------------------------------------------ counts and holds (every page)

function countBoxes(map, order) {
  return order.filter(k => k in map).map(k => el('div', { class: 'count', 'data-state': k }, el('b', {}, map[k]), k));
}

function jobSummary(jobs) {
  const active = ACTIVE.reduce((a, k) => a + (jobs[k] || 0), 0);
  return [['waiting', jobs.pending || 0, 'pending'], ['active', active, ACTIVE.join(', ')], ['held', jobs.held || 0, 'held'],
    ['failed', jobs.failed || 0, 'failed'], ['completed', jobs.completed || 0, 'completed']]
    .map(([k, n, what]) => el('div', { class: 'count', 'data-summary': k, title: what }, el('b', {}, n), k));
}

async function refreshHolds() {
  const q = await api('GET', '/api/queue');
  const held = q.holds.queue;
  const badge = document.getElementById('queue-hold');
  badge.dataset.held = String(held);
  badge.textContent = held ? 'queue held' : 'queue running';
  document.getElementById('queue-toggle').textContent = held ? 'Release queue' : 'Hold queue';
  return q;
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
  let chartsAt = 0;
  return {
    skeleton: [el('h2', {}, 'Jobs and batches'), counts, holds, el('h2', {}, 'Activity'), chartsBox,
      el('h2', { id: 'batches-title' }, 'Batches'), filters,
      el('div', { class: 'table-wrap' }, el('table', { id: 'batches' },
        el('thead', {}, el('tr', {}, el('th', {}, 'batch'), el('th', {}, 'title / file'), el('th', { class: 'hide-narrow' }, 'submitter'),
          el('th', { class: 'hide-narrow' }, 'submitted'), el('th', {}, 'status'), el('th', {}, 'progress'), el('th', {}, ''))), tbody)),
      pager],
    async refresh(change) {
      if (change.reload || change.counts || change.holds_changed) {
        const c = change.counts || QueueCounts.last;
        if (change.reload || !c) {
          const q = await refreshHolds();
          QueueCounts.last = { jobs: q.jobs, batches: q.batches };
          replace(holds, collectionHolds(q.holds.collections));
        }
        const cc = change.counts || QueueCounts.last;
        replace(counts, el('div', { class: 'group' },
          el('div', {}, el('div', { class: 'muted' }, 'jobs'), el('div', { class: 'counts', id: 'job-summary' }, jobSummary(cc.jobs))),
          el('div', {}, el('div', { class: 'muted' }, 'batches'), el('div', { class: 'counts', id: 'batch-counts' }, countBoxes(cc.batches, BATCH_STATES)))),
        el('details', {}, el('summary', {}, 'jobs per state'), el('div', { class: 'counts', id: 'job-counts' }, countBoxes(cc.jobs, JOB_STATES))));
      }
      if (change.reload || Date.now() - chartsAt > 15000) {
        chartsAt = Date.now();
        replace(chartsBox, charts(await api('GET', '/api/activity?minutes=180')));
      }
      const touched = (change.batches_changed || []);
      const newer = touched.some(b => !shown.length || b > shown[0]) && !params.get('before');
      if (change.reload || newer || touched.some(b => shown.includes(b))) {
        const q = new URLSearchParams([...params].filter(([k]) => k !== 'page'));
        q.set('limit', '25');
        const bs = await api('GET', '/api/batches?' + q.toString());
        shown = bs.batches.map(b => b.batch_id);
        replace(tbody, bs.batches.length ? bs.batches.map(batchRow) : [el('tr', {}, el('td', { colspan: 7, class: 'muted' }, 'no batches match'))]);
        const older = bs.next ? new URLSearchParams(bs.next.split('?')[1]) : null;
        replace(pager, params.get('before') ? el('a', { href: '#/?' + new URLSearchParams([...params].filter(([k]) => k !== 'before')) }, '« newest') : null,
          older ? el('a', { href: '#/?' + new URLSearchParams([...params].filter(([k]) => k !== 'before').concat([['before', older.get('before')]])), 'data-key': 'older' }, 'older »') : null);
      }
    }
  };
}

const QueueCounts = { last: null };

/** Held collections with their Release buttons, and a confirmed hold of another collection. */
function collectionHolds(held) {
  const out = [el('span', {}, held.length ? 'Held collections: ' : 'No collection is held. ')];
  for (const c of held) {
    out.push(el('b', {}, c), ' ', isAdmin() ? actionButton('release-collection:' + c, 'Release ' + c, 'POST',
      `/api/collections/${encodeURIComponent(c)}/release`, { action: 'release-collection' }) : null, ' ');
  }
  if (!isAdmin()) return out;
  const input = el('input', { id: 'collection-name', size: 14, placeholder: 'profile name', 'aria-label': 'collection (profile) to hold' });
  const note = el('span', { class: 'refusal', role: 'alert', id: 'collection-refusal' }, refusals.get('hold-collection') || '');
  out.push(el('form', { class: 'filters', onsubmit: async e => {
    e.preventDefault();
    const c = input.value.trim();
    if (!c || !(await confirmAction(`Hold collection ${c}?`, `Pending jobs and batches of ${c} wait (held) until you release the collection; jobs already past pending finish their steps. Other collections go on.`, 'Hold collection'))) return;
    try {
      await api('POST', `/api/collections/${encodeURIComponent(c)}/hold`);
      refusals.delete('hold-collection');
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
  const open = jobs.processing - (held || 0);
  const total = Math.max(jobs.expected || jobs.total, 1);
  const text = `${jobs.completed} completed · ${jobs.failed} failed · ${held == null ? '?' : held} held · ${open} open of ${jobs.expected || jobs.total}`;
  return el('div', {}, el('div', { class: 'bar', role: 'img', 'aria-label': text },
    el('div', { class: 'completed', style: `width:${100 * jobs.completed / total}%` }),
    el('div', { class: 'failed', style: `width:${100 * jobs.failed / total}%` }),
    el('div', { class: 'held', style: `width:${100 * (held || 0) / total}%` })),
  el('span', { class: 'progress-text' }, text));
}

function rate(b) {
  const done = b.jobs.completed + b.jobs.failed;
  if (!done || !['processing', 'reporting'].includes(b.status.status)) return '';
  const minutes = (Date.now() - new Date(b.submission.submitted).getTime()) / 60000;
  return minutes > 0 ? ` · ${(done / minutes).toFixed(1)}/min` : '';
}

function batchRow(b) {
  if (b.damaged) return el('tr', { 'data-batch': b.batch_id }, el('td', {}, b.batch_id), el('td', { colspan: 6, class: 'error' }, 'damaged: ' + b.damaged));
  const s = b.status.status, sub = b.submission;
  const finished = ['completed', 'failed'].includes(s) ? b.status.last_modified : null;
  return el('tr', { 'data-batch': b.batch_id },
    el('td', {}, el('a', { href: '#/batches/' + b.batch_id, 'data-key': 'b-' + b.batch_id }, b.batch_id)),
    el('td', {}, el('div', {}, sub.erc_what || el('span', { class: 'muted' }, '(no title)')), el('div', { class: 'muted' }, fileName(sub))),
    el('td', { class: 'hide-narrow' }, sub.submitter || '—', el('div', { class: 'muted' }, sub.profile_name)),
    el('td', { class: 'hide-narrow' }, when(sub.submitted), finished ? el('div', { class: 'muted' }, 'finished ' + when(finished)) : null),
    el('td', { class: 'batch-status' }, s + (b.status.error_message ? ': ' + b.status.error_message : '')),
    el('td', {}, progress(b.jobs, b.job_states), el('span', { class: 'progress-text' }, rate(b))),
    el('td', {}, el('a', { href: '#/batches/' + b.batch_id }, 'open')));
}

// ------------------------------------------------------------------ a batch and its jobs

function batchPage(bid, params) {
  const head = el('div', {}), actions = el('div', { class: 'actions' }), tbody = el('tbody', {}), pager = el('div', { class: 'pager' });
  const state = params.get('state') || '', offset = Number(params.get('offset') || 0);
  const stateFilter = el('form', { class: 'filters', onsubmit: e => { e.preventDefault(); go('/batches/' + bid, new URLSearchParams({ state: e.target.state.value })); } },
    el('label', {}, 'job state', el('select', { name: 'state', onchange: e => e.target.form.requestSubmit() }, el('option', { value: '' }, 'any'),
      ...JOB_STATES.map(s => el('option', { value: s, selected: state === s }, s)))));
  return {
    skeleton: [el('p', {}, el('a', { href: '#/' }, '« batches')), head, actions, el('h2', {}, 'Jobs'), stateFilter,
      el('div', { class: 'table-wrap' }, el('table', { id: 'jobs' }, el('thead', {}, el('tr', {}, el('th', {}, 'job'), el('th', {}, 'status'),
        el('th', { class: 'hide-narrow' }, 'local id'), el('th', { class: 'hide-narrow' }, 'updated'), el('th', {}, 'error'))), tbody)), pager],
    async refresh(change) {
      if (!change.reload && !(change.batches_changed || []).includes(bid)) return;
      const b = await api('GET', '/api/batches/' + bid);
      const s = b.status.status, sub = b.submission, p = b.progress || {};
      replace(head, el('h2', { id: 'batch-title' }, `Batch ${bid}: ${sub.erc_what || '(no title)'}`),
        el('dl', { class: 'fields' },
          el('dt', {}, 'status'), el('dd', { id: 'batch-status' }, s + (b.status.error_message ? ': ' + b.status.error_message : '')),
          el('dt', {}, 'progress'), el('dd', {}, progress(b.jobs, b.job_states)),
          el('dt', {}, 'jobs'), el('dd', { id: 'batch-job-states' }, p.jobs ? `${p.jobs.waiting} waiting, ${p.jobs.active} active, ${p.jobs.held} held` : '—'),
          el('dt', {}, 'estimate'), el('dd', {}, p.estimated_completion ? `done by ${when(p.estimated_completion)} (last job at position ${p.last_position}; ${p.completed_per_minute}/min)`
            : (p.estimate_note || (b.jobs.processing ? '—' : 'no open jobs'))),
          el('dt', {}, 'profile'), el('dd', {}, sub.profile_name),
          el('dt', {}, 'submitter'), el('dd', {}, sub.submitter || '—'),
          el('dt', {}, 'submitted'), el('dd', {}, when(sub.submitted)),
          el('dt', {}, 'last change'), el('dd', {}, when(b.status.last_modified)),
          el('dt', {}, 'file'), el('dd', {}, fileName(sub)),
          el('dt', {}, 'payload'), el('dd', {}, sub.payload_url),
          b.lock ? [el('dt', {}, 'locked by'), el('dd', {}, `${b.lock.worker}@${b.lock.host} since ${when(b.lock.since)}`)] : null));
      replace(actions, ...batchButtons(b));
      const q = new URLSearchParams({ batch: bid, limit: '50', offset: String(offset) });
      if (state) q.set('state', state);
      const js = await api('GET', '/api/jobs?' + q);
      replace(tbody, js.jobs.length ? js.jobs.map(jobRow) : [el('tr', {}, el('td', { colspan: 5, class: 'muted' }, 'no jobs' + (state ? ' in ' + state : '')))]);
      const base = '#/batches/' + bid + '?' + (state ? 'state=' + state + '&' : '');
      replace(pager, offset > 0 ? el('a', { href: base + 'offset=' + Math.max(0, offset - 50) }, '« previous') : null,
        js.next_offset ? el('a', { href: base + 'offset=' + js.next_offset }, 'next »') : null);
    }
  };
}

function batchButtons(b) {
  if (!isAdmin()) return [];
  const id = b.batch_id, s = b.status.status, out = [];
  const locked = b.lock ? `the batch is locked by ${b.lock.worker}@${b.lock.host} since ${when(b.lock.since)}; wait until it moves on` : null;
  if (s === 'pending') out.push(actionButton('hold-batch', 'Hold batch', 'POST', `/api/batches/${id}/hold`, { disabledWhy: locked }));
  if (s === 'held') out.push(actionButton('release-batch', 'Release batch', 'POST', `/api/batches/${id}/release`, { disabledWhy: locked }));
  if (b.jobs.failed > 0) out.push(actionButton('requeue-failed', `Requeue ${b.jobs.failed} failed`, 'POST', `/api/batches/${id}/requeue-failed`, {
    confirm: { title: `Requeue the failed jobs of ${id}?`, text: `${b.jobs.failed} failed job(s) go back to the step that failed (or pending), one at a time; a job that cannot be requeued is named here and the others go on. The batch reports again when they end.` },
    after: a => { if (a.refused.length) { const e = new Error(`${a.requeued.length} requeued; refused: ` + a.refused.map(r => r.job_id + ' (' + r.error + ')').join('; ')); throw e; } } }));
  if (s === 'failed') out.push(actionButton('update-report', 'Update report', 'POST', `/api/batches/${id}/update-reporting`, {
    confirm: { title: `Send ${id}'s report again?`, text: `The depositor (${b.submission.notification || 'the profile\'s notification addresses'}) gets a new report mail for this batch now. Requeue and finish the failed jobs first, or the report will list them as failed again.` } }));
  if (s === 'failed' || s === 'held') out.push(actionButton('delete-batch', 'Delete batch', 'POST', `/api/batches/${id}/delete`, { danger: true,
    confirm: { title: `Delete batch ${id}?`, text: `Batch ${id} and all its ${b.jobs.total} job(s) are removed from the queue with their working files. Nothing already stored is touched. This cannot be undone.` },
    after: () => go('/'), refresh: false }));
  return out;
}

function jobRow(j) {
  if (j.damaged) return el('tr', { 'data-job': j.job_id }, el('td', {}, j.job_id), el('td', { colspan: 4, class: 'error' }, 'damaged: ' + j.damaged));
  return el('tr', { 'data-job': j.job_id },
    el('td', {}, el('a', { href: '#/jobs/' + j.job_id, 'data-key': 'j-' + j.job_id }, j.job_id)),
    el('td', { class: 'job-status' }, j.status.status, j.lock ? el('span', { class: 'muted' }, ' (locked)') : null),
    el('td', { class: 'hide-narrow' }, (j.identifiers.local_id || []).join(', ') || '—'),
    el('td', { class: 'hide-narrow' }, when(j.status.last_modification_date)),
    el('td', { class: 'error' }, j.status.error_message || ''));
}

// ------------------------------------------------------------------ a job and its timeline

function jobPage(jid) {
  const box = el('div', {}), actions = el('div', { class: 'actions', id: 'job-actions' }), timeline = el('ol', { class: 'timeline', id: 'timeline' });
  return {
    skeleton: [box, actions, el('h2', {}, 'History'), timeline],
    async refresh(change) {
      if (!change.reload && !(change.jobs_changed || []).includes(jid)) return;
      const j = await api('GET', '/api/jobs/' + jid);
      const st = j.status, ids = j.identifiers, c = j.configuration;
      replace(box, el('p', {}, el('a', { href: '#/batches/' + j.batch_id }, '« batch ' + j.batch_id)),
        el('h2', { id: 'job-title' }, 'Job ' + jid),
        el('dl', { class: 'fields' },
          el('dt', {}, 'status'), el('dd', { id: 'job-status' }, st.status),
          el('dt', {}, 'last successful'), el('dd', { id: 'job-last' }, st.last_successful_status || '—'),
          el('dt', {}, 'since'), el('dd', {}, when(st.last_modification_date) + ' (' + ago(st.last_modification_date) + ')'),
          el('dt', {}, 'retries'), el('dd', { id: 'job-retries' }, st.retry_count),
          el('dt', {}, 'error'), el('dd', { id: 'job-error', class: st.error_message ? 'error' : null }, st.error_message || '—'),
          el('dt', {}, 'ARK'), el('dd', { id: 'job-ark' }, ids.primary || '—'),
          el('dt', {}, 'local ids'), el('dd', { id: 'job-ids' }, (ids.local_id || []).join(', ') || '—'),
          el('dt', {}, 'title'), el('dd', {}, c.erc_what || '—'),
          el('dt', {}, 'payload'), el('dd', { id: 'job-payload' }, c.payload_url),
          el('dt', {}, 'priority'), el('dd', {}, j.priority),
          el('dt', {}, 'lock'), el('dd', { id: 'job-lock' }, j.lock ? `${j.lock.worker}@${j.lock.host} (pid ${j.lock.pid}) since ${when(j.lock.since)}` : 'not locked')));
      const locked = j.lock ? `locked by ${j.lock.worker}@${j.lock.host} since ${when(j.lock.since)}: a worker is running its step; the buttons come back when it moves on` : null;
      replace(actions, locked && isAdmin() ? el('span', { class: 'locked-note', id: 'locked-why' }, locked) : null, ...jobButtons(j, locked));
      const h = st.history || [];
      replace(timeline, h.length ? h.slice().reverse().map(e => el('li', { 'data-to': e.to },
        el('b', {}, (e.from || 'created') + ' → ' + e.to), ' ', el('span', { class: 'muted' }, when(e.at) + ' · ' + (e.by || '?')),
        e.reason ? el('div', {}, e.reason) : null)) : [el('li', { class: 'muted' }, 'no history recorded (a job created before histories were kept)')]);
    }
  };
}

function jobButtons(j, locked) {
  if (!isAdmin()) return [];
  const id = j.job_id, s = j.status.status, out = [];
  const o = extra => Object.assign({ disabledWhy: locked }, extra);
  if (WORKING.includes(s)) out.push(actionButton('hold:' + id, 'Hold', 'POST', `/api/jobs/${id}/hold`, o({ action: 'hold' })));
  if (s === 'held') out.push(actionButton('release:' + id, 'Release', 'POST', `/api/jobs/${id}/release`, o({ action: 'release' })));
  if (s === 'failed') out.push(actionButton('requeue:' + id, 'Requeue', 'POST', `/api/jobs/${id}/requeue`, o({ action: 'requeue' })));
  if (s === 'failed' || s === 'held') out.push(actionButton('delete:' + id, 'Delete', 'POST', `/api/jobs/${id}/delete?confirm=true`, o({ action: 'delete', danger: true,
    confirm: { title: `Delete job ${id}?`, text: `Job ${id} and its working files are removed; batch ${j.batch_id}'s report will not mention it. Nothing already stored is touched.` },
    after: () => go('/batches/' + j.batch_id), refresh: false })));
  return out;
}

// ------------------------------------------------------------------ hosts

function hostsPage() {
  const tbody = el('tbody', {});
  return {
    skeleton: [el('h2', {}, 'Hosts and workers'), el('p', { class: 'muted' }, 'Service instances register while they run. A drained host finishes what it holds and takes no new work until undrained.'),
      el('div', { class: 'table-wrap' }, el('table', { id: 'hosts' }, el('thead', {}, el('tr', {}, el('th', {}, 'host'), el('th', {}, 'state'),
        el('th', {}, 'working on'), el('th', {}, ''))), tbody))],
    async refresh(change) {
      if (!change.reload && !change.hosts_changed) return;
      const a = await api('GET', '/api/hosts');
      replace(tbody, a.hosts.map(h => el('tr', { 'data-host': h.id },
        el('td', {}, el('b', {}, h.id), h.this_host ? el('span', { class: 'muted' }, ' (this page\'s host)') : null,
          h.started ? el('div', { class: 'muted' }, `pid ${h.pid}, up since ${when(h.started)}`) : null),
        el('td', { class: 'host-state' }, (h.alive ? 'alive' : 'gone') + (h.drained ? ', drained' : ''),
          h.drain ? el('div', { class: 'muted' }, `by ${h.drain.by} ${ago(h.drain.since)}`) : null),
        el('td', {}, h.work.length ? el('ul', {}, h.work.map(w => el('li', {}, el('a', { href: '#/jobs/' + w.job_id }, w.job_id),
          ` ${w.state || '?'} since ${when(w.since)}`))) : el('span', { class: 'muted' }, 'idle')),
        el('td', {}, isAdmin() ? (h.drained
          ? actionButton('undrain:' + h.id, 'Undrain', 'POST', `/api/hosts/${encodeURIComponent(h.id)}/undrain`, { action: 'undrain' })
          : actionButton('drain:' + h.id, 'Drain', 'POST', `/api/hosts/${encodeURIComponent(h.id)}/drain`, { action: 'drain',
            confirm: { title: `Drain ${h.id}?`, text: `${h.id} finishes the ${h.work.length} job(s) it works on and takes no new work until you undrain it. Other hosts go on.` } })) : null))));
    }
  };
}

// ------------------------------------------------------------------ search

function searchPage(params) {
  const q = params.get('q') || '';
  const list = el('ul', { id: 'results' }), more = el('div', { class: 'pager' });
  document.getElementById('search-q').value = q;
  return {
    skeleton: [el('h2', {}, `Search: ${q}`), list, more],
    async refresh(change) {
      if (!change.reload) return;
      const path = params.get('before') ? `/api/search?q=${encodeURIComponent(q)}&before=${params.get('before')}&skip=${params.get('skip') || 0}`
        : `/api/search?q=${encodeURIComponent(q)}`;
      const a = await api('GET', path);
      replace(list, a.results.length ? a.results.map(r => el('li', { 'data-result': r.id },
        el('a', { href: `#/${r.kind === 'job' ? 'jobs' : 'batches'}/${r.id}` }, `${r.kind} ${r.id}`),
        ` matched by ${r.matched}`, r.state ? ` · ${r.state}` : '', r.title ? el('span', { class: 'muted' }, ` · ${r.title}` + (r.kind === 'job' ? ` (batch ${r.batch_id})` : '')) : ''))
        : [el('li', { class: 'muted' }, 'nothing found' + (a.scanned ? ` in the newest ${a.scanned.batches} batches and ${a.scanned.jobs} jobs` : ''))]);
      const next = a.next ? new URLSearchParams(a.next.split('?')[1]) : null;
      replace(more, next ? el('a', { href: '#/search?' + next, id: 'search-more' }, `more… (search older batches; ${a.scanned.batches} batches, ${a.scanned.jobs} jobs read so far)`) : null);
    }
  };
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
  source.onerror = () => {
    badge.dataset.live = 'false';
    badge.textContent = 'reconnecting…'; // EventSource reconnects by itself
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
    session.csrf = s.csrf_token || null;
    session.roles = s.roles || [];
    document.getElementById('who').textContent = s.user;
  } catch (e) {
    document.getElementById('message').textContent = e.message;
    return;
  }
  await refreshHolds().catch(e => { document.getElementById('message').textContent = e.message; });
  await render();
  live();
}
start();
