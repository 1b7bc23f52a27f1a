// Plain SVG charts (no library): bars per minute and lines over samples, drawn from /api/activity.
'use strict';

const CHART_W = 600, CHART_H = 160, PAD_L = 34, PAD_B = 18, PAD_T = 8;

function axes(max, label) {
  const g = svg('g', {});
  g.append(svg('line', { class: 'axis', x1: PAD_L, y1: PAD_T, x2: PAD_L, y2: CHART_H - PAD_B }));
  g.append(svg('line', { class: 'axis', x1: PAD_L, y1: CHART_H - PAD_B, x2: CHART_W, y2: CHART_H - PAD_B }));
  g.append(svg('text', { x: 2, y: PAD_T + 8 }, String(max)));
  g.append(svg('text', { x: 2, y: CHART_H - PAD_B }, '0'));
  if (label) g.append(svg('text', { x: PAD_L + 4, y: CHART_H - 4 }, label));
  return g;
}

/** Completed (up) and failed (stacked) jobs per minute. */
function perMinuteChart(rows) {
  const max = Math.max(1, ...rows.map(r => r.completed + r.failed));
  const w = (CHART_W - PAD_L) / Math.max(rows.length, 1);
  const h = CHART_H - PAD_B - PAD_T;
  const s = svg('svg', { viewBox: `0 0 ${CHART_W} ${CHART_H}`, role: 'img',
    'aria-label': `jobs per minute, last ${rows.length} minutes: ${rows.reduce((a, r) => a + r.completed, 0)} completed, ${rows.reduce((a, r) => a + r.failed, 0)} failed` });
  s.append(axes(max, `last ${Math.round(rows.length / 60 * 10) / 10} h, per minute`));
  rows.forEach((r, i) => {
    const x = PAD_L + i * w;
    const hc = h * r.completed / max, hf = h * r.failed / max;
    if (r.completed) s.append(svg('rect', { class: 'completed', x, width: Math.max(w - .5, .5), y: CHART_H - PAD_B - hc, height: hc },
      svg('title', {}, `${new Date(r.minute).toLocaleTimeString()}: ${r.completed} completed`)));
    if (r.failed) s.append(svg('rect', { class: 'failed', x, width: Math.max(w - .5, .5), y: CHART_H - PAD_B - hc - hf, height: hf },
      svg('title', {}, `${new Date(r.minute).toLocaleTimeString()}: ${r.failed} failed`)));
  });
  return s;
}

/** Lines over the minute samples: {name, cls, value(sample)}. */
function lineChart(samples, series, label) {
  const values = series.map(sr => samples.map(sr.value));
  const max = Math.max(1, ...values.flat().filter(v => v != null));
  const n = Math.max(samples.length - 1, 1);
  const h = CHART_H - PAD_B - PAD_T;
  const s = svg('svg', { viewBox: `0 0 ${CHART_W} ${CHART_H}`, role: 'img', 'aria-label': label + (samples.length
    ? ': now ' + series.map((sr, i) => sr.name + ' ' + (values[i][values[i].length - 1] ?? '—')).join(', ') : ': no samples yet') });
  s.append(axes(max, label));
  series.forEach((sr, i) => {
    const pts = values[i].map((v, j) => v == null ? null : `${PAD_L + (CHART_W - PAD_L) * j / n},${CHART_H - PAD_B - h * v / max}`)
      .filter(Boolean);
    if (pts.length === 1) pts.push(pts[0].replace(/^[^,]+/, x => String(Number(x) + 3)));
    if (pts.length) s.append(svg('polyline', { class: sr.cls, points: pts.join(' ') }));
  });
  return s;
}

function legend(...items) {
  return el('div', { class: 'legend' }, ...items.map(([cls, text]) => el('span', { class: cls }, text + ' ')));
}

// the job states between pending and completed: a job in one of them is active while a worker holds it, else waiting
const STEP_STATES = ['estimating', 'provisioning', 'downloading', 'processing', 'storing', 'recording', 'notify'];
const OPEN_STATES = ['pending', ...STEP_STATES];

function charts(activity) {
  const samples = activity.samples || [];
  // the README's words: active = a worker holds the job; waiting = open, not held, no worker has it; held = held.
  // A sample without `work` (written before the tiles' counts were sampled) shows a gap, never another count.
  const work = k => x => x.work ? x.work[k] ?? null : null;
  const longest = key => x => maxOf(OPEN_STATES.map(k => (x[key] || {})[k]));
  const rate = activity.rate_per_minute ?? activity.completed_per_minute;
  return el('div', { class: 'charts' },
    el('div', { class: 'chart' }, el('h3', {}, 'Jobs completed and failed per minute'),
      perMinuteChart(activity.per_minute || []), legend(['l-completed', 'completed'], ['l-failed', 'failed']),
      el('div', { class: 'muted', id: 'queue-rate' }, `rate now: ${rate} jobs completed per minute (last 15 min); measured since ${when(activity.since)}`)),
    el('div', { class: 'chart' }, el('h3', {}, 'Open jobs: active, waiting, held'),
      lineChart(samples, [
        { name: 'waiting', cls: 's-pending', value: work('waiting') },
        { name: 'active', cls: 's-active', value: work('active') },
        { name: 'held', cls: 's-held', value: work('held') }], 'jobs, a sample a minute'),
      legend(['l-pending', 'waiting (no worker has it)'], ['l-active', 'active (a worker holds it)'], ['l-held', 'held'])),
    el('div', { class: 'chart' }, el('h3', {}, 'Longest wait and longest step time'),
      lineChart(samples, [
        { name: 'longest wait', cls: 's-pending', value: longest('wait_seconds') },
        { name: 'longest step time', cls: 's-active', value: longest('step_seconds') }], 'seconds, a sample a minute'),
      legend(['l-pending', 'longest wait of a waiting job (the next 5 in line of each state)'],
        ['l-active', 'longest step time of an active job'])));
}

function maxOf(values) {
  const v = values.filter(x => x != null);
  return v.length ? Math.max(...v) : null;
}
