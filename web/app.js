// svir's live page (docs/live-page.md): reads GET /svir/api/events (Server-Sent Events) with
// fetch and a stream reader, so the key goes in an Authorization header, never in the URL
// (EventSource cannot send headers). The key, when svir asks for one, is kept in this tab's
// sessionStorage only. Everything shown comes from svir and partly from its clients (model
// names, tool names quoted in svir's notes): it is written as text, never as markup.

const EVENTS_PATH = '/svir/api/events';
const KEY_ITEM = 'svir.apiKey';
const MAX_RECENT = 300;
const RECONNECT_MS = 2000;
const COLORS = ['#2f81f7', '#e5534b', '#3fb950', '#d29922', '#a371f7', '#39c5cf', '#db61a2', '#8b949e'];

const $ = (id) => document.getElementById(id);
const backendColors = new Map();
let recentCount = 0;

function colorOf(backend) {
  if (!backendColors.has(backend)) backendColors.set(backend, COLORS[backendColors.size % COLORS.length]);
  return backendColors.get(backend);
}

/** A table cell with text (never markup), an optional class and data attributes. */
function cell(text, className, data) {
  const td = document.createElement('td');
  td.textContent = text === undefined || text === null ? '' : String(text);
  if (className) td.className = className;
  for (const [key, value] of Object.entries(data ?? {})) td.dataset[key] = value;
  return td;
}

function ms(value) {
  if (value === undefined || value === null) return '';
  if (value < 1000) return `${Math.round(value)} ms`;
  if (value < 60_000) return `${(value / 1000).toFixed(1)} s`;
  return `${Math.floor(value / 60_000)} min ${Math.round((value % 60_000) / 1000)} s`;
}

function clock(epochMs) {
  return new Date(epochMs).toLocaleTimeString([], { hour12: false });
}

function setConnection(state, text) {
  const element = $('connection');
  element.dataset.state = state;
  element.textContent = text;
}

function renderBackends(backends) {
  const body = $('backends').tBodies[0];
  body.replaceChildren(
    ...backends.map((backend) => {
      const row = document.createElement('tr');
      row.dataset.backend = backend.name;
      row.dataset.state = backend.state;
      const state = cell(backend.state, 'state', { state: backend.state });
      if (backend.reason) {
        const reason = document.createElement('span');
        reason.className = 'reason';
        reason.textContent = backend.reason;
        state.append(reason);
      }
      const models = backend.models.length === 0 ? '(none known)' : backend.models.join(', ');
      row.append(
        cell(backend.name),
        cell(backend.type),
        cell(backend.url, 'url'),
        state,
        cell(`${models}${backend.modelsFrom === 'config' ? ' (config)' : ''}`, 'models'),
        cell(`${backend.active} / ${backend.maxConcurrent}`, 'num'),
        cell(`${backend.queued} / ${backend.maxQueue}`, 'num'),
      );
      return row;
    }),
  );
}

function renderOpen(open) {
  const body = $('open').tBodies[0];
  body.replaceChildren(
    ...open.map((request) => {
      const row = document.createElement('tr');
      row.dataset.route = request.route;
      row.append(
        cell(request.route),
        cell(request.model),
        cell(request.backend),
        cell(ms(request.elapsedMs), 'num'),
        cell(request.tokens, 'num tokens'),
        cell(request.tokensPerSecond === undefined ? '' : request.tokensPerSecond.toFixed(1), 'num'),
      );
      return row;
    }),
  );
  $('open-count').textContent = open.length === 0 ? '' : `(${open.length})`;
  $('open-empty').hidden = open.length > 0;
}

function recentRow(request) {
  const row = document.createElement('tr');
  row.dataset.requestId = request.id;
  row.dataset.route = request.route;
  const status = request.error ? `${request.status} ${request.error}` : String(request.status);
  row.append(
    cell(clock(request.startedAt)),
    cell(request.route),
    cell(request.model),
    cell(request.backend),
    cell(status, request.error || request.status >= 400 ? 'error' : ''),
    cell(ms(request.ttftMs), 'num'),
    cell(ms(request.durationMs), 'num'),
    cell(request.tokensIn, 'num'),
    cell(request.tokensOut, 'num'),
    cell(request.changes.join('; '), 'changes'),
  );
  return row;
}

function showRecentCount() {
  $('recent-count').textContent = recentCount === 0 ? '' : `(last ${recentCount})`;
  $('recent-empty').hidden = recentCount > 0;
}

function renderRecent(recent) {
  // Newest first.
  $('recent').tBodies[0].replaceChildren(...recent.slice(-MAX_RECENT).reverse().map(recentRow));
  recentCount = Math.min(recent.length, MAX_RECENT);
  showRecentCount();
}

function addRecent(request) {
  const body = $('recent').tBodies[0];
  body.prepend(recentRow(request));
  while (body.rows.length > MAX_RECENT) body.deleteRow(-1);
  recentCount = body.rows.length;
  showRecentCount();
}

const SVG = 'http://www.w3.org/2000/svg';

function svg(name, attributes) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return element;
}

/** A line per backend over the buckets, drawn by hand in SVG. */
function renderChart(rates) {
  // Drawn at the box's own width: a stretched drawing would stretch its text too.
  const width = Math.max(320, Math.round($('chart').clientWidth) - 24);
  const height = 180;
  const left = 40;
  const bottom = 20;
  const series = Object.entries(rates.backends);
  const count = series[0]?.[1].length ?? 0;
  const max = Math.max(1, ...series.flatMap(([, values]) => values));
  const top = niceCeiling(max);
  const x = (i) => left + (count <= 1 ? 0 : (i / (count - 1)) * (width - left - 4));
  const y = (value) => 6 + (1 - value / top) * (height - bottom - 6);
  const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'tokens per second per backend' });
  for (const fraction of [0, 0.5, 1]) {
    const value = top * fraction;
    chart.append(svg('line', { class: 'axis', x1: left, x2: width, y1: y(value), y2: y(value) }));
    const label = svg('text', { x: left - 6, y: y(value) + 4, 'text-anchor': 'end' });
    label.textContent = value === 0 || value >= 10 ? String(Math.round(value)) : value.toFixed(1);
    chart.append(label);
  }
  const minutes = Math.round((count * rates.bucketMs) / 60_000);
  for (const [text, anchor, at] of [[`-${minutes} min`, 'start', left], ['now', 'end', width - 4]]) {
    const label = svg('text', { x: at, y: height - 4, 'text-anchor': anchor });
    label.textContent = text;
    chart.append(label);
  }
  for (const [backend, values] of series) {
    const points = values.map((value, i) => `${x(i).toFixed(1)},${y(value).toFixed(1)}`).join(' ');
    chart.append(svg('polyline', { points, fill: 'none', stroke: colorOf(backend), 'stroke-width': 2, 'data-backend': backend }));
  }
  const legend = document.createElement('div');
  legend.className = 'legend';
  for (const [backend, values] of series) {
    const item = document.createElement('span');
    item.style.setProperty('--swatch', colorOf(backend));
    item.textContent = `${backend}: ${values.at(-1) ?? 0} tokens/s now`;
    legend.append(item);
  }
  if (series.length === 0) {
    legend.textContent = 'No tokens generated in the last 5 minutes.';
  }
  $('chart').replaceChildren(chart, legend);
}

function niceCeiling(value) {
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (value <= step * power) return step * power;
  return 10 * power;
}

function renderLive(live) {
  renderBackends(live.backends);
  renderOpen(live.open);
  renderChart(live.rates);
}

const handlers = {
  state(state) {
    renderLive(state);
    renderRecent(state.recent);
    $('app').hidden = false;
  },
  live: renderLive,
  request: addRecent,
};

/** Splits the feed's text into events (`event:` and `data:` lines, a blank line after each). */
function createEventReader(onEvent) {
  let buffer = '';
  return (text) => {
    buffer += text;
    let end;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = 'message';
      const data = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) name = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0) onEvent(name, JSON.parse(data.join('\n')));
    }
  };
}

function askForKey(refused) {
  $('app').hidden = true;
  $('key-form').hidden = false;
  $('key-error').hidden = !refused;
  $('key-error').textContent = refused ? 'svir refused that key.' : '';
  setConnection('down', 'key needed');
  $('key-input').focus();
}

async function follow() {
  const key = sessionStorage.getItem(KEY_ITEM);
  const headers = key ? { authorization: `Bearer ${key}` } : {};
  let response;
  try {
    response = await fetch(EVENTS_PATH, { headers, cache: 'no-store' });
  } catch {
    return reconnect();
  }
  if (response.status === 401) {
    sessionStorage.removeItem(KEY_ITEM);
    askForKey(key !== null);
    return;
  }
  if (!response.ok || response.body === null) return reconnect();
  $('key-form').hidden = true;
  setConnection('live', 'live');
  const read = createEventReader((name, data) => handlers[name]?.(data));
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      read(value);
    }
  } catch {
    // The connection broke: reconnect below.
  }
  reconnect();
}

function reconnect() {
  setConnection('down', 'reconnecting');
  setTimeout(follow, RECONNECT_MS);
}

$('key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const key = $('key-input').value.trim();
  if (key === '') return;
  sessionStorage.setItem(KEY_ITEM, key);
  $('key-input').value = '';
  $('key-form').hidden = true;
  setConnection('connecting', 'connecting');
  follow();
});

follow();
