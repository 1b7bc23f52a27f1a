// The depositor's status page: /status.html#<bid>.<token>, the link of the "queued" mail. The
// token stays in the fragment (never sent as part of the address) and goes to the API as a header;
// the page shows that one batch only, and asks again every 10 seconds while it has open jobs.
'use strict';

const [bid, token] = location.hash.replace(/^#/, '').split('.');

function text(id, v) {
  document.getElementById(id).textContent = v == null || v === '' ? '—' : v;
}

// The estimate as a time with its range, what it rests on, and what may move it: a hold, the priority rule.
function estimateLines(a, j) {
  const range = a.estimate_range;
  const head = a.estimated_completion
    ? `about ${when(a.estimated_completion)}`
      + (range ? ` (between ${when(range.earliest)} and ${when(range.latest)})` : '')
    : (a.estimate_note || (j.waiting + j.active + j.held ? '—' : 'all objects have been processed'));
  const rate = a.rate_per_minute != null ? `this batch: ${a.rate_per_minute} objects a minute (last 15 minutes)`
    : a.mean_per_minute != null ? `this batch ran at ${a.mean_per_minute} objects a minute on average` : null;
  return [el('div', { class: 'estimate' }, head),
    ...[a.estimate_basis, rate].filter(Boolean).map(t => el('div', { class: 'muted estimate-basis' }, t)),
    ...(a.hold_note ? [el('div', { class: 'hold-note' }, a.hold_note)] : []),
    ...(a.priority_note ? [el('div', { class: 'muted priority-note' }, a.priority_note)] : [])];
}

async function load() {
  const r = await fetch(new URL('/api/status/' + encodeURIComponent(bid || 'none'), location.origin),
    { headers: { 'Accept': 'application/json', 'X-Status-Token': token || '' }, credentials: 'omit' });
  const a = await r.json().catch(() => ({}));
  if (!r.ok) {
    text('message', a.error || r.status + ' ' + r.statusText);
    document.getElementById('batch').hidden = true;
    return false;
  }
  document.getElementById('message').textContent = '';
  document.getElementById('batch').hidden = false;
  text('title', a.title || 'Submission ' + a.batch_id);
  text('batch-id', a.batch_id);
  text('state', a.state);
  text('submitted', when(a.submitted));
  text('file', a.file_name);
  const j = a.jobs;
  text('counts', `${j.completed} completed, ${j.failed} failed, ${j.active} active, ${j.waiting} waiting, ${j.held} held, of ${j.expected || j.total}`);
  document.getElementById('eta').replaceChildren(...estimateLines(a, j));
  document.querySelector('#open-jobs tbody').replaceChildren(...a.open_jobs.map(o => el('tr', { 'data-job': o.job_id },
    el('td', {}, o.job_id), el('td', {}, (o.local_id || []).join(', ') || '—'), el('td', { class: 'job-state' }, o.state),
    el('td', { class: 'position' }, o.position == null ? 'held' : o.position === 0 ? 'active: a worker has it' : String(o.position)),
    el('td', { class: 'eta' }, o.estimated_completion ? when(o.estimated_completion) : (o.estimate_note || '—')))));
  labelCells(document.getElementById('open-jobs')); // a phone shows each object as a card
  document.getElementById('not-listed').textContent = a.open_jobs_not_listed ? `and ${a.open_jobs_not_listed} more` : '';
  document.getElementById('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
  return j.waiting + j.active + j.held > 0 || ['pending', 'processing', 'reporting'].includes(a.state);
}

async function loop() {
  let again = true;
  try {
    again = await load();
  } catch (e) {
    text('message', e.message);
  }
  if (again) setTimeout(loop, 10000);
}
loop();
