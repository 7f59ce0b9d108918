// The Carcassonne page: create a game, play it, replay a record. Vanilla JS, no build step.
'use strict';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const gameId = params.get('game');
const token = params.get('token');
const replayId = params.get('replay');

let view = null;          // last state from the server
let selected = null;      // {x, y, rotations: [action], r: index} while placing
let fetching = false, dirty = false;
let finalShown = false;
let sseUpdates = 0;       // updates pushed by the server (server-sent events) so far

function showError(msg) {
  const e = $('error');
  e.textContent = msg;
  e.hidden = false;
  clearTimeout(showError.t);
  showError.t = setTimeout(() => { e.hidden = true; }, 6000);
}

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const r = await fetch(path, opts);
  let data = null;
  try { data = await r.json(); } catch (_) { data = null; }
  if (!r.ok) throw new Error((data && data.error) || `HTTP ${r.status}`);
  return data;
}

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'on') for (const [ev, f] of Object.entries(v)) e.addEventListener(ev, f);
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
}

// ---------------------------------------------------------------- create a game

async function initCreate() {
  $('create-view').hidden = false;
  $('where').textContent = '';
  const sc = $('seat-count');
  for (let n = 2; n <= 6; n++) sc.append(el('option', { value: n, text: n }));
  sc.addEventListener('change', drawSeats);
  let info;
  try { info = await api('GET', '/api/expansions'); } catch (e) { showError(e.message); return; }
  const box = $('expansions');
  box.replaceChildren(el('legend', { text: 'Expansions and options' }));
  for (const x of info.expansions) {
    const row = el('div', { class: 'exp' });
    const cb = el('input', { type: 'checkbox', 'data-exp': x.id });
    if (x.id === 'base') { cb.checked = true; cb.disabled = true; }
    row.append(el('label', {}, cb, ` ${x.name} `, el('small', { text: `(${x.id} ${x.version}, ${x.kind}, ${x.tiles} tiles)` })));
    const opts = el('div', { class: 'opts' });
    for (const o of x.options) {
      const inp = el('input', { 'data-opt': o.key, value: o.default, 'data-default': o.default, size: 10 });
      opts.append(el('label', { title: o.description }, `${o.key} `, inp, el('small', { text: ` ${o.description}` })));
    }
    if (x.options.length) row.append(opts);
    box.append(row);
  }
  const bots = info.bots;
  drawSeats.bots = bots;
  drawSeats();
  $('create-form').addEventListener('submit', createGame);
  $('open-file').addEventListener('change', openFile);
  try {
    const games = await api('GET', '/api/games');
    const ul = $('game-list');
    for (const g of games) {
      ul.append(el('li', {}, el('a', { href: `/?game=${g.id}`, text: `${g.players.join(' – ')}` }),
        ` ${g.moves} moves${g.finished ? ', finished' : ''}`));
    }
  } catch (e) { showError(e.message); }
}

function drawSeats() {
  const n = +$('seat-count').value;
  const tb = $('seats').tBodies[0];
  const old = [...tb.rows].map((r) => [r.querySelector('input').value, r.querySelector('select').value]);
  tb.replaceChildren();
  for (let i = 0; i < n; i++) {
    const who = el('select', { 'data-seat': i });
    who.append(el('option', { value: '', text: 'human' }));
    for (const b of drawSeats.bots || []) who.append(el('option', { value: b, text: `bot: ${b}` }));
    const name = el('input', { placeholder: `Player ${i + 1}`, maxlength: 40 });
    if (old[i]) { name.value = old[i][0]; who.value = old[i][1]; } else if (i > 0) who.value = 'greedy';
    tb.append(el('tr', {}, el('td', { text: i + 1 }), el('td', {}, name), el('td', {}, who)));
  }
}

async function createGame(ev) {
  ev.preventDefault();
  const expansions = [...document.querySelectorAll('input[data-exp]')]
    .filter((c) => c.checked && c.dataset.exp !== 'base').map((c) => c.dataset.exp);
  const options = {};
  for (const i of document.querySelectorAll('input[data-opt]')) {
    const exp = i.dataset.opt.includes('.') ? i.dataset.opt.split('.')[0] : 'base';
    if (i.value !== i.dataset.default && (exp === 'base' || expansions.includes(exp))) options[i.dataset.opt] = i.value;
  }
  const seats = [...$('seats').tBodies[0].rows].map((r) => {
    const name = r.querySelector('input').value.trim();
    const bot = r.querySelector('select').value;
    return { name: name || null, bot: bot || null };
  });
  const body = { expansions, options, seats };
  if ($('seed').value !== '') body.seed = +$('seed').value;
  try {
    const g = await api('POST', '/api/games', body);
    const box = $('created');
    box.hidden = false;
    box.replaceChildren(el('h2', { text: 'Game created' }), el('p', { text: 'Each human seat has its own secret link: send it to that player.' }));
    const ul = el('ul');
    for (const s of g.seats) {
      if (s.link) {
        const url = location.origin + s.link;
        ul.append(el('li', {}, `${s.name}: `, el('a', { href: s.link, class: 'seat-link', text: 'play' }), ' ', el('code', { text: url })));
      } else ul.append(el('li', { text: `${s.name}: bot ${s.bot}` }));
    }
    ul.append(el('li', {}, 'Spectators: ', el('a', { href: g.watch, text: 'watch' })));
    box.append(ul);
    const first = g.seats.find((s) => s.link);
    if (first) box.append(el('p', {}, el('a', { href: first.link, id: 'play-first', text: `Play as ${first.name} now →` })));
  } catch (e) { showError(e.message); }
}

async function openFile(ev) {
  const f = ev.target.files[0];
  if (!f) return;
  try {
    const text = await f.text();
    const r = await api('POST', '/api/replays', text);
    location.href = `/?replay=${r.id}`;
  } catch (e) { showError(e.message); }
}

// ---------------------------------------------------------------- the board

// Where cell (x, y) is on the drawn board, from the tiles the SVG carries.
function grid() {
  const svg = $('board').querySelector('svg');
  if (!svg) return null;
  const s = +svg.getAttribute('data-tile-size') || view.tile_size;
  const t = svg.querySelector('g.tile[data-cell]');
  if (!t) return null;
  const [cx, cy] = t.getAttribute('data-cell').split(',').map(Number);
  const bb = t.getBBox();
  const pad = 70; // #board padding
  return { s, ox: pad + bb.x - cx * s, oy: pad + bb.y - cy * s };
}

function cellBox(g, x, y, cls) {
  const d = el('div', { class: cls });
  d.style.left = `${g.ox + x * g.s}px`;
  d.style.top = `${g.oy + y * g.s}px`;
  d.style.width = d.style.height = `${g.s}px`;
  return d;
}

// Where on a tile a figure at `location` stands (fractions of the side): the server sends
// the renderer's figure spot (`a.spot`); the location letters are only a fallback.
function spotOf(a) {
  if (a.spot) return a.spot;
  const loc = a.location;
  if (!loc || loc.startsWith('#')) return [0.5, 0.5];
  const letters = loc.replace(/[^NESWI]/g, '');
  let x = 0, y = 0, n = 0;
  for (const c of letters) {
    const p = { N: [0.5, 0.12], S: [0.5, 0.88], E: [0.88, 0.5], W: [0.12, 0.5], I: [0.5, 0.5] }[c];
    x += p[0]; y += p[1]; n++;
  }
  return n ? [x / n, y / n] : [0.5, 0.5];
}

function myTurn() {
  return view && !view.finished && view.you !== null && view.you !== undefined && view.current === view.you && !replayId;
}

function drawBoard(svgText) {
  const b = $('board');
  b.innerHTML = svgText;
  delete b.dataset.preview;
  const g = grid();
  if (!g) return;
  if (view.last && view.last.x !== undefined) b.append(cellBox(g, view.last.x, view.last.y, 'lastcell'));
  if (!myTurn()) return;
  const acts = view.actions;
  const cells = new Map();
  for (const a of acts) {
    if (a.kind === 'place') {
      const k = `${a.x},${a.y}`;
      if (!cells.has(k)) cells.set(k, { x: a.x, y: a.y, rotations: [] });
      cells.get(k).rotations.push(a);
    }
  }
  drawBoard.cells = [...cells.values()];
  for (const c of drawBoard.cells) {
    const d = cellBox(g, c.x, c.y, 'cell');
    if (selected && selected.x === c.x && selected.y === c.y) d.classList.add('selected');
    d.title = `(${c.x},${c.y}): ${c.rotations.length} rotation(s)`;
    d.setAttribute('data-cell', `${c.x},${c.y}`);
    d.addEventListener('click', () => {
      if (selected && selected.x === c.x && selected.y === c.y) placeSelected();
      else select(c, 0);
    });
    d.addEventListener('contextmenu', (e) => { e.preventDefault(); if (selected) rotate(); });
    b.append(d);
  }
  // Deployments, moves and targeted fan actions on their tiles.
  const stack = new Map();
  for (const a of acts) {
    if (a.kind === 'place' || a.x === undefined) continue;
    const [fx, fy] = spotOf(a);
    const k = `${a.x},${a.y},${a.location}`;
    const n = stack.get(k) || 0;
    stack.set(k, n + 1);
    const s = el('button', { class: 'spot', title: a.label, 'data-index': a.index, text: (a.record.figure || a.kind)[0] });
    s.style.left = `${g.ox + (a.x + fx) * g.s + n * 14}px`;
    s.style.top = `${g.oy + (a.y + fy) * g.s}px`;
    s.addEventListener('click', () => act(a.index));
    s.addEventListener('mouseenter', () => hl(a.index, true));
    s.addEventListener('mouseleave', () => hl(a.index, false));
    b.append(s);
  }
}

function hl(index, on) {
  for (const e of document.querySelectorAll(`[data-index="${index}"]`)) e.classList.toggle('hl', on);
}

async function select(c, r) {
  selected = { x: c.x, y: c.y, rotations: c.rotations, r };
  const a = c.rotations[r];
  $('placing').hidden = false;
  $('placing-text').textContent = a.label + ' ';
  try {
    const p = await api('GET', `/api/games/${gameId}/preview?index=${a.index}&version=${view.version}`);
    if (selected && selected.rotations[selected.r] === a) {
      drawBoard(p.board);
      $('board').dataset.preview = a.index;
    }
  } catch (e) { showError(e.message); }
}

function rotate() {
  if (!selected) return;
  select(selected, (selected.r + 1) % selected.rotations.length);
}

function placeSelected() {
  if (!selected) return;
  const a = selected.rotations[selected.r];
  selected = null;
  $('placing').hidden = true;
  act(a.index);
}

function cancelPlacing() {
  selected = null;
  $('placing').hidden = true;
  if (view) drawBoard(view.board);
}

function moveSelection(delta) {
  const cells = drawBoard.cells || [];
  if (!cells.length) return;
  let i = selected ? cells.findIndex((c) => c.x === selected.x && c.y === selected.y) : -1;
  i = (i + delta + cells.length) % cells.length;
  select(cells[i], 0);
}

async function act(index) {
  try {
    await api('POST', `/api/games/${gameId}/act`, { token, index, version: view.version });
    await refresh();
  } catch (e) { showError(e.message); refresh(); }
}

// ---------------------------------------------------------------- the side panel

function drawSide() {
  const v = view;
  const seats = v.seats || v.players.map((p) => ({ name: p.name }));
  if (replayId) {
    $('status').textContent = `Replay: move ${v.step} of ${v.moves}`;
  } else if (v.broken) {
    $('status').textContent = `This game is stopped: ${v.broken}`;
  } else if (v.finished) {
    $('status').textContent = 'The game is over.';
  } else {
    const who = seats[v.current];
    const youText = v.you === null || v.you === undefined ? 'You are watching.' : `You are ${seats[v.you].name}.`;
    $('status').textContent = `${youText} ${myTurn() ? 'Your move.' : `Waiting for ${who.name}${who.bot ? ' (bot)' : ''}.`}`;
  }
  $('prompt').textContent = v.prompt || '';
  const acts = $('actions');
  acts.replaceChildren();
  if (myTurn()) {
    const places = v.actions.filter((a) => a.kind === 'place').length;
    if (places) acts.append(el('p', { text: `Drawn tile: ${v.pending.tile}. Click a highlighted cell (or arrow keys), R to rotate, Enter to place.` }));
    for (const a of v.actions) {
      if (a.kind === 'place') continue;
      const b = el('button', { 'data-index': a.index, class: 'act', text: a.label });
      b.addEventListener('click', () => act(a.index));
      b.addEventListener('mouseenter', () => hl(a.index, true));
      b.addEventListener('mouseleave', () => hl(a.index, false));
      acts.append(b);
    }
  }
  const t = $('players');
  t.replaceChildren(el('tr', {}, el('th', { text: 'Player' }), el('th', { text: 'Score' }), el('th', { text: 'Supply' })));
  for (const p of v.players) {
    const sup = Object.entries(p.supply).map(([k, n]) => `${n} ${k}`).join(', ');
    const s = seats[p.seat] || {};
    const row = el('tr', {}, el('td', { text: `${p.name}${s.bot ? ` (${s.bot})` : ''}` }), el('td', { class: 'score', text: p.score }), el('td', { text: sup }));
    if (p.seat === v.current) row.classList.add('active');
    t.append(row);
  }
  $('tiles-left').textContent = `Tiles left: ${v.tiles_left}`;
  $('last-move').textContent = v.last ? `Last move: ${v.last.label}` : '';
  const ev = $('events');
  ev.replaceChildren();
  for (const e of v.events) ev.append(el('li', { text: `${e.player} +${e.points} (${e.feature})` }));
  ev.scrollTop = ev.scrollHeight;
  if (v.finished && !finalShown && !replayId) {
    finalShown = true;
    const ol = $('final-scores');
    ol.replaceChildren();
    for (const p of [...v.players].sort((a, b) => b.score - a.score)) {
      ol.append(el('li', { class: 'final-score', 'data-name': p.name, 'data-score': p.score, text: `${p.name}: ${p.score}` }));
    }
    $('final').hidden = false;
  }
}

async function refresh() {
  if (fetching) { dirty = true; return; }
  fetching = true;
  try {
    do {
      dirty = false;
      const q = token ? `?token=${encodeURIComponent(token)}` : '';
      view = await api('GET', `/api/games/${gameId}${q}`);
    } while (dirty);
    selected = null;
    $('placing').hidden = true;
    drawBoard(view.board);
    drawSide();
  } catch (e) { showError(e.message); }
  fetching = false;
}

function initGame() {
  $('game-view').hidden = false;
  $('where').textContent = `game ${gameId}`;
  const rec = `/api/games/${gameId}/record`;
  $('download').href = rec;
  $('final-download').href = rec;
  $('final-close').addEventListener('click', () => { $('final').hidden = true; });
  $('rotate').addEventListener('click', rotate);
  $('place').addEventListener('click', placeSelected);
  $('cancel').addEventListener('click', cancelPlacing);
  document.addEventListener('keydown', (e) => {
    if (!myTurn() || e.target.tagName === 'INPUT') return;
    if (e.key === 'r' || e.key === 'R') rotate();
    else if (e.key === 'Enter' && selected) { e.preventDefault(); placeSelected(); }
    else if (e.key === 'Escape') cancelPlacing();
    else if (e.key === 'ArrowRight' || e.key === 'ArrowDown') { e.preventDefault(); moveSelection(1); }
    else if (e.key === 'ArrowLeft' || e.key === 'ArrowUp') { e.preventDefault(); moveSelection(-1); }
    else if (e.key === 'p' || e.key === 'P') {
      const pass = view.actions.find((a) => a.kind === 'pass');
      if (pass) act(pass.index);
    }
  });
  const es = new EventSource(`/api/games/${gameId}/events`);
  es.addEventListener('update', (e) => {
    sseUpdates++;
    // An event for a version already shown (the page fetched it after its own move) would
    // only redraw the board and drop a tile being placed.
    const [version, broken] = e.data.split(' ');
    if (view && !dirty && !broken && +version <= view.version) return;
    refresh();
  });
  es.onerror = () => { setTimeout(refresh, 1000); };
  refresh();
}

// ---------------------------------------------------------------- replay

async function showStep(n) {
  try {
    view = await api('GET', `/api/replays/${replayId}/${n}`);
    $('step').max = view.moves;
    $('step').value = view.step;
    $('step-text').textContent = `${view.step}/${view.moves}`;
    drawBoard(view.board);
    drawSide();
  } catch (e) { showError(e.message); }
}

function initReplay() {
  $('game-view').hidden = false;
  $('replay-controls').hidden = false;
  $('download').parentElement.hidden = true;
  $('where').textContent = 'replay';
  const go = (n) => showStep(Math.max(0, Math.min(view ? view.moves : 0, n)));
  $('first').addEventListener('click', () => go(0));
  $('prev').addEventListener('click', () => go(view.step - 1));
  $('next').addEventListener('click', () => go(view.step + 1));
  $('last').addEventListener('click', () => go(view.moves));
  $('step').addEventListener('input', (e) => go(+e.target.value));
  document.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowRight') go(view.step + 1);
    else if (e.key === 'ArrowLeft') go(view.step - 1);
  });
  showStep(0);
}

if (replayId) initReplay();
else if (gameId) initGame();
else initCreate();
