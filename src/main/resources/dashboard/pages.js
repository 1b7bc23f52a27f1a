// The dashboard's detail pages: a batch and its jobs, a job and its timeline, the hosts, search.
// Each page is {skeleton, refresh(change)}: refresh re-reads only when the change concerns it.
'use strict';

// ------------------------------------------------------------------ a batch and its jobs

function batchPage(bid, params) {
  const head = el('div', {}), actions = el('div', { class: 'actions' }), tbody = el('tbody', {}), pager = el('div', { class: 'pager' });
  const state = params.get('state') || '', offset = Number(params.get('offset') || 0);
  const stateFilter = el('form', { class: 'filters', onsubmit: e => { e.preventDefault(); go('/batches/' + bid, new URLSearchParams({ state: e.target.state.value })); } },
    el('label', {}, 'job state', el('select', { name: 'state', onchange: e => e.target.form.requestSubmit() }, el('option', { value: '' }, 'any'),
      ...JOB_STATES.map(s => el('option', { value: s, selected: state === s }, s)))));
  return {
    minInterval: 1000,
    skeleton: [el('p', {}, el('a', { href: '#/' }, '« batches')), head, actions, el('h2', {}, 'Jobs'), stateFilter,
      el('div', { class: 'table-wrap' }, el('table', { id: 'jobs' }, el('thead', {}, el('tr', {}, el('th', {}, 'job'), el('th', {}, 'status'),
        el('th', {}, 'local id'), el('th', {}, 'updated'), el('th', {}, 'error'))), tbody)), pager],
    async refresh(change) {
      if (!change.reload && !(change.batches_changed || []).includes(bid)) return;
      const b = await api('GET', '/api/batches/' + bid);
      const s = b.status.status, sub = b.submission, p = b.progress || {}, hold = holdNote(b, p);
      replace(head, el('h2', { id: 'batch-title' }, `Batch ${bid}: ${sub.erc_what || '(no title)'}`),
        el('dl', { class: 'fields' },
          el('dt', {}, 'status'), el('dd', { id: 'batch-status' }, s + (b.status.error_message ? ': ' + b.status.error_message : '')),
          el('dt', {}, 'progress'), el('dd', {}, progress(b.jobs, b.job_states), el('span', { class: 'progress-text', id: 'batch-rate' }, rate(b, p))),
          el('dt', {}, 'open jobs'), el('dd', { id: 'batch-job-states' }, p.jobs ? `${p.jobs.active} active, ${p.jobs.waiting} waiting, ${p.jobs.held} held` : '—'),
          hold ? [el('dt', {}, 'hold'), el('dd', { id: 'batch-hold', class: 'hold-note' }, hold)] : null,
          el('dt', {}, 'estimate'), el('dd', { id: 'batch-estimate' }, ...estimate(b, p, hold)),
          p.priority_note ? [el('dt', {}, 'priority'), el('dd', { id: 'batch-priority' }, p.priority_note)] : null,
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
      replace(tbody, js.jobs.length ? js.jobs.map(j => jobRow(j, hold)) : [el('tr', {}, cell('', { colspan: 5, class: 'muted' }, 'no jobs' + (state ? ' in ' + state : '')))]);
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
  const running = s === 'pending' || s === 'processing'; // a running batch's jobs stop before their next step
  if (running && !b.batch_held) out.push(actionButton('hold-batch', 'Hold batch', 'POST', `/api/batches/${id}/hold`, { disabledWhy: locked }));
  if (s === 'held' || (running && b.batch_held)) out.push(actionButton('release-batch', 'Release batch', 'POST', `/api/batches/${id}/release`, { disabledWhy: locked }));
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

/**
 * The batch's estimate (README, glossary): when its last job should complete, with its range and what it rests on;
 * or why there is none. Each field is shown only when the answer has it.
 */
function estimate(b, p, hold) {
  if (p.estimated_completion) {
    const r = p.estimate_range;
    return [el('div', {}, `last job done by ${when(p.estimated_completion)}`
      + (r && r.earliest && r.latest ? ` (between ${when(r.earliest)} and ${when(r.latest)})` : '')
      + (p.last_position != null ? `; its place in line: ${p.last_position}` : '')),
    p.estimate_basis ? el('div', { class: 'muted', id: 'estimate-basis' }, p.estimate_basis) : null,
    p.estimate_note ? el('div', { class: 'muted' }, p.estimate_note) : null];
  }
  if (p.estimate_note) return [p.estimate_note];
  if (hold) return ['none while the hold lasts'];
  if (b.status.status === 'pending') return ['none yet: the batch\'s jobs are made when it leaves pending'];
  return [b.jobs.processing ? '—' : 'none: no open jobs'];
}

/** A job of the batch; a pending one says the hold that stops it, where one does. */
function jobRow(j, hold) {
  if (j.damaged) return el('tr', { 'data-job': j.job_id }, cell('job', {}, j.job_id), cell('problem', { colspan: 4, class: 'error' }, 'damaged: ' + j.damaged));
  const s = j.status.status;
  return el('tr', { 'data-job': j.job_id },
    cell('job', {}, el('a', { href: '#/jobs/' + j.job_id, 'data-key': 'j-' + j.job_id }, j.job_id)),
    cell('status', { class: 'job-status' }, s, j.lock ? el('span', { class: 'muted' }, ' (active: a worker holds it)') : null,
      hold && s === 'pending' && !j.lock ? el('div', { class: 'hold-note' }, hold) : null),
    cell('local id', {}, (j.identifiers.local_id || []).join(', ') || '—'),
    cell('updated', {}, when(j.status.last_modification_date)),
    cell('error', { class: 'error' }, j.status.error_message || ''));
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
      const locked = j.lock ? `locked by ${j.lock.worker}@${j.lock.host} since ${when(j.lock.since)}: it is active (a worker holds it, in a step); the buttons come back when it moves on` : null;
      replace(actions, locked && isAdmin() ? el('span', { class: 'locked-note', id: 'locked-why' }, locked) : null, ...jobButtons(j, locked));
      const h = st.history || [];
      const items = h.slice().reverse().map(e => el('li', { 'data-to': e.to },
        el('b', {}, (e.from || 'created') + ' → ' + e.to), ' ', el('span', { class: 'muted' }, when(e.at) + ' · ' + (e.by || '?')),
        e.reason ? el('div', {}, e.reason) : null));
      if (h.length && h[0].from) items.push(el('li', { class: 'muted', id: 'history-cut' }, `earlier transitions are not kept (a job keeps its last ${h.length})`));
      replace(timeline, h.length ? items : [el('li', { class: 'muted' }, 'no history recorded (a job created before histories were kept)')]);
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
        el('th', {}, 'active jobs'), el('th', {}, ''))), tbody))],
    async refresh(change) {
      if (!change.reload && !change.hosts_changed) return;
      const a = await api('GET', '/api/hosts');
      replace(tbody, a.hosts.map(h => el('tr', { 'data-host': h.id },
        cell('host', {}, el('b', {}, h.id), h.this_host ? el('span', { class: 'muted' }, ' (this page\'s host)') : null,
          h.started ? el('div', { class: 'muted' }, `pid ${h.pid}, up since ${when(h.started)}`) : null),
        cell('state', { class: 'host-state' }, (h.alive ? 'alive' : 'gone') + (h.drained ? ', drained' : ''),
          h.drain ? el('div', { class: 'muted' }, `by ${h.drain.by} ${ago(h.drain.since)}`) : null),
        cell('active jobs', {}, h.work.length ? el('ul', {}, h.work.map(w => el('li', {}, el('a', { href: '#/jobs/' + w.job_id }, w.job_id),
          ` in ${w.state || '?'} since ${when(w.since)} (step time ${duration(Math.max(0, Math.round((Date.now() - new Date(w.since)) / 1000)))})`))) : el('span', { class: 'muted' }, 'idle'),
          (h.leads || []).length ? el('div', { class: 'muted host-leads' }, `runs ${h.leads.join(', ')} (one host at a time)`) : null),
        cell('', {}, isAdmin() ? (h.drained
          ? actionButton('undrain:' + h.id, 'Undrain', 'POST', `/api/hosts/${encodeURIComponent(h.id)}/undrain`, { action: 'undrain' })
          : actionButton('drain:' + h.id, 'Drain', 'POST', `/api/hosts/${encodeURIComponent(h.id)}/drain`, { action: 'drain',
            confirm: { title: `Drain ${h.id}?`, text: `${h.id} finishes the ${h.work.length} job(s) it works on and takes no new work until you undrain it. Other hosts go on.` } })) : null))));
    }
  };
}

// ------------------------------------------------------------------ search

function searchPage(params) {
  const q = params.get('q') || '';
  const list = el('ul', { id: 'results' }), more = el('div', { class: 'pager' }), note = el('p', { class: 'refusal', id: 'search-incomplete' });
  document.getElementById('search-q').value = q;
  // open work from the queue, finished work from history: by text, submitter and when it last changed (finished)
  const f = Object.fromEntries(['q', 'submitter', 'from', 'to'].map(k => [k, params.get(k) || '']));
  const day = v => v.length > 10 ? v.slice(0, 10) : v;
  const form = el('form', { class: 'filters', id: 'search-form', onsubmit: e => {
    e.preventDefault();
    go('/search', new URLSearchParams([...new FormData(e.target)].map(([k, v]) => [k, String(v).trim()])));
  } },
  el('label', {}, 'text', el('input', { name: 'q', value: f.q, size: 24, placeholder: 'job, batch, local id, ARK, title' })),
  el('label', {}, 'submitter', el('input', { name: 'submitter', value: f.submitter, size: 12 })),
  el('label', {}, 'finished from', el('input', { name: 'from', type: 'date', value: day(f.from) })),
  el('label', {}, 'to', el('input', { name: 'to', type: 'date', value: day(f.to) })),
  el('button', { type: 'submit' }, 'Search'));
  const what = [f.q, f.submitter && 'by ' + f.submitter, f.from && 'from ' + day(f.from), f.to && 'to ' + day(f.to)].filter(Boolean).join(' ');
  return {
    skeleton: [el('h2', {}, `Search: ${what}`), form, note, list, more],
    async refresh(change) {
      if (!change.reload) return;
      if (!f.q && !f.submitter && !f.from && !f.to) { replace(list, el('li', { class: 'muted' }, 'give a text, a submitter or dates')); return; }
      const a = await api('GET', '/api/search?' + new URLSearchParams([...params].filter(([, v]) => v !== '')));
      note.textContent = a.incomplete || '';
      replace(list, a.results.length ? a.results.map(r => el('li', { 'data-result': r.id },
        el('a', { href: `#/${r.kind === 'job' ? 'jobs' : 'batches'}/${r.id}`, id: 'result-' + r.id }, `${r.kind} ${r.id}`),
        ` matched by ${r.matched}`, r.state ? ` · ${r.state}` : '', r.title ? el('span', { class: 'muted' }, ` · ${r.title}` + (r.kind === 'job' ? ` (batch ${r.batch_id})` : '')) : ''))
        : [el('li', { class: 'muted' }, 'nothing found' + (a.scanned ? ` in the newest ${a.scanned.batches} batches and ${a.scanned.jobs} jobs, nor in history` : ''))]);
      const next = a.next ? new URLSearchParams(a.next.split('?')[1]) : null;
      replace(more, next ? el('a', { href: '#/search?' + next, id: 'search-more' }, 'more… (older batches'
        + (a.scanned ? `; ${a.scanned.batches} batches, ${a.scanned.jobs} jobs read here` : '') + ')') : null);
    }
  };
}

