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
      const name = o.key.includes('.') ? o.key.slice(o.key.indexOf('.') + 1) : o.key;
      opts.append(el('label', { title: o.key }, optionInput(o), ` ${o.description || name} `, el('small', { text: `(${name})` })));
    }
    if (x.options.length) row.append(opts);
    // An expansion's options only matter (and only show) once it is ticked.
    opts.hidden = !cb.checked;
    cb.addEventListener('change', () => { opts.hidden = !cb.checked; });
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

// The input of a typed option: a checkbox, a dropdown of its choices or a number box.
function optionInput(o) {
  const t = o.type;
  let inp;
  if (t === 'Bool') {
    inp = el('input', { type: 'checkbox' });
    inp.checked = o.default === 'true';
  } else if (t && t.Choice) {
    inp = el('select');
    for (const c of t.Choice) inp.append(el('option', { value: c, text: c }));
    inp.value = o.default;
  } else if (t && t.Int) {
    inp = el('input', { type: 'number', min: t.Int.min, max: t.Int.max, value: o.default });
  } else inp = el('input', { value: o.default, size: 10 });
  inp.dataset.opt = o.key;
  inp.dataset.default = o.default;
  return inp;
}

function optionValue(i) {
  return i.type === 'checkbox' ? String(i.checked) : i.value;
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
  for (const i of document.querySelectorAll('[data-opt]')) {
    const exp = i.dataset.opt.includes('.') ? i.dataset.opt.split('.')[0] : 'base';
    const v = optionValue(i);
    if (v !== i.dataset.default && (exp === 'base' || expansions.includes(exp))) options[i.dataset.opt] = v;
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

// Where cell (x, y) is on the drawn board: the board draws cell (x, y) at (x·s, y·s) and
// its viewBox starts at the board's top-left corner, one pixel a unit.
function grid() {
  const svg = $('board').querySelector('svg');
  if (!svg || !svg.viewBox || !svg.viewBox.baseVal) return null;
  const s = +svg.getAttribute('data-tile-size') || view.tile_size;
  const vb = svg.viewBox.baseVal;
  const pad = 70; // #board padding
  return { s, ox: pad - vb.x, oy: pad - vb.y };
}

// The game's board as the page last received it (an SVG document, its version in
// `.version`): a view asked with `since` brings only what changed (`board_delta`: new tile
// groups, figure groups that changed, the extent, backdrop and overlay), applied here.
let boardDoc = null;
let deltasApplied = 0; // (read by the browser test)
const SVG_NS = 'http://www.w3.org/2000/svg';

function svgPart(text) {
  const d = new DOMParser().parseFromString(`<svg xmlns="${SVG_NS}">${text}</svg>`, 'image/svg+xml');
  return boardDoc.importNode(d.documentElement.firstElementChild, true);
}

function applyDelta(d) {
  const svg = boardDoc.documentElement;
  svg.setAttribute('width', d.width);
  svg.setAttribute('height', d.height);
  svg.setAttribute('viewBox', d.view_box);
  for (const id of ['backdrop', 'overlay']) svg.querySelector(`[id="${id}"]`).replaceWith(svgPart(d[id]));
  const tiles = svg.querySelector('[id="tiles"]'), figs = svg.querySelector('[id="figures"]');
  for (const c of d.cells) {
    const at = (layer) => [...layer.children].find((g) => g.getAttribute('data-cell') === c.cell);
    if (c.tile) {
      const old = at(tiles);
      if (old) old.replaceWith(svgPart(c.tile)); else tiles.append(svgPart(c.tile));
    }
    const old = at(figs);
    if (old) old.remove();
    // Figure groups stay in placement order, as the whole board has them.
    if (c.figures) figs.insertBefore(svgPart(c.figures), [...figs.children].find((g) => +g.getAttribute('data-order') > c.order) || null);
  }
}

// The view's board as an element to draw: the whole board parsed, or the delta applied to
// the board the page has. False when a delta does not fit it (then the whole is fetched).
function takeBoard(v) {
  if (v.board_delta) {
    if (!boardDoc || boardDoc.version !== v.board_delta.since) return false;
    applyDelta(v.board_delta);
    deltasApplied++;
  } else {
    boardDoc = new DOMParser().parseFromString(v.board, 'image/svg+xml');
  }
  boardDoc.version = v.version;
  v.board = boardDoc.documentElement;
  return true;
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

function drawBoard(board, preview) {
  const b = $('board');
  if (typeof board === 'string') b.innerHTML = board;
  else b.replaceChildren(document.importNode(board, true));
  delete b.dataset.preview;
  if (!preview) fitCam(false);
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
  // Deployments, moves and targeted fan actions on their tiles, each as the icon of the
  // figure it concerns; a button that would cover another is pushed along a ring round
  // its spot, so none overlap.
  const taken = [];
  for (const a of acts) {
    if (a.kind === 'place' || a.x === undefined) continue;
    const [fx, fy] = spotOf(a);
    let px = g.ox + (a.x + fx) * g.s, py = g.oy + (a.y + fy) * g.s;
    const bx = px, by = py;
    for (let n = 1; taken.some(([tx, ty]) => Math.hypot(tx - px, ty - py) < SPOT); n++) {
      const ring = Math.ceil(n / 6), ang = (n % 6) * Math.PI / 3 + ring * 0.5;
      px = bx + Math.cos(ang) * SPOT * ring;
      py = by + Math.sin(ang) * SPOT * ring;
    }
    taken.push([px, py]);
    const s = el('button', { class: `spot ${a.kind}`, title: a.text || a.label, 'aria-label': a.text || a.label, 'data-index': a.index });
    s.append(iconSvg(a.icon));
    s.style.left = `${px}px`;
    s.style.top = `${py}px`;
    s.addEventListener('click', () => act(a.index));
    s.addEventListener('mouseenter', () => hl(a.index, true));
    s.addEventListener('mouseleave', () => hl(a.index, false));
    b.append(s);
  }
}

// Diameter of an on-tile button, in board pixels.
const SPOT = 20;

// A figure's icon ({d, fill} from the server, a 20×20 box); a plain marker when the action
// concerns no figure.
function iconSvg(icon) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 20 20');
  svg.setAttribute('class', 'icon');
  const p = document.createElementNS(ns, icon ? 'path' : 'circle');
  if (icon) { p.setAttribute('d', icon.d); p.setAttribute('fill', icon.fill || '#888'); } else {
    p.setAttribute('cx', 10); p.setAttribute('cy', 10); p.setAttribute('r', 5); p.setAttribute('fill', '#444');
  }
  p.setAttribute('stroke', '#000');
  p.setAttribute('stroke-width', '1');
  svg.append(p);
  return svg;
}

// ---------------------------------------------------------------- pan and zoom

// The board is moved and scaled with a CSS transform inside a window-sized frame: it fits
// the window and is centred on the last move until the player pans or zooms (wheel, drag,
// pinch); "Fit" (or F) goes back to that.
const cam = { z: 1, x: 0, y: 0, user: false };

function applyCam() {
  $('board').style.transform = `translate(${cam.x}px, ${cam.y}px) scale(${cam.z})`;
}

function fitCam(force) {
  if (cam.user && !force) return;
  cam.user = false;
  const w = $('board-wrap'), b = $('board');
  w.scrollLeft = w.scrollTop = 0;
  const W = w.clientWidth, H = w.clientHeight, bw = b.offsetWidth, bh = b.offsetHeight;
  if (!W || !bw) return;
  cam.z = Math.max(0.3, Math.min(1.5, W / bw, H / bh));
  let cx = bw / 2, cy = bh / 2;
  const g = grid();
  if (g && view && view.last && view.last.x !== undefined && (bw * cam.z > W || bh * cam.z > H)) {
    cx = g.ox + (view.last.x + 0.5) * g.s;
    cy = g.oy + (view.last.y + 0.5) * g.s;
  }
  cam.x = W / 2 - cx * cam.z;
  cam.y = H / 2 - cy * cam.z;
  applyCam();
}

function zoomAt(px, py, f) {
  const z = Math.max(0.15, Math.min(4, cam.z * f));
  f = z / cam.z;
  cam.x = px - (px - cam.x) * f;
  cam.y = py - (py - cam.y) * f;
  cam.z = z;
  cam.user = true;
  applyCam();
}

function initCam() {
  const w = $('board-wrap');
  w.addEventListener('wheel', (e) => {
    e.preventDefault();
    const r = w.getBoundingClientRect();
    zoomAt(e.clientX - r.left, e.clientY - r.top, Math.exp(-e.deltaY * 0.0015));
  }, { passive: false });
  const ptrs = new Map();
  let moved = 0;
  w.addEventListener('pointerdown', (e) => {
    ptrs.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (ptrs.size === 1) moved = 0;
  });
  window.addEventListener('pointermove', (e) => {
    const p = ptrs.get(e.pointerId);
    if (!p) return;
    const dx = e.clientX - p.x, dy = e.clientY - p.y;
    if (ptrs.size === 1) {
      moved += Math.abs(dx) + Math.abs(dy);
      if (moved > 4) { cam.x += dx; cam.y += dy; cam.user = true; applyCam(); }
    } else if (ptrs.size === 2) {
      // Pinch: scale by the change of the distance between the two fingers.
      const o = [...ptrs.entries()].find(([id]) => id !== e.pointerId)[1];
      const d0 = Math.hypot(p.x - o.x, p.y - o.y), d1 = Math.hypot(e.clientX - o.x, e.clientY - o.y);
      const r = w.getBoundingClientRect();
      if (d0 > 0) zoomAt((e.clientX + o.x) / 2 - r.left, (e.clientY + o.y) / 2 - r.top, d1 / d0);
      moved += 10;
    }
    p.x = e.clientX; p.y = e.clientY;
  });
  const up = (e) => { ptrs.delete(e.pointerId); };
  window.addEventListener('pointerup', up);
  window.addEventListener('pointercancel', up);
  // A drag is not a click on what it started on.
  w.addEventListener('click', (e) => { if (moved > 4) { e.stopPropagation(); e.preventDefault(); moved = 0; } }, true);
  $('fit').addEventListener('click', () => fitCam(true));
  window.addEventListener('resize', () => fitCam(false));
}

function hl(index, on) {
  for (const e of document.querySelectorAll(`[data-index="${index}"]`)) e.classList.toggle('hl', on);
}

async function select(c, r) {
  selected = { x: c.x, y: c.y, rotations: c.rotations, r };
  const a = c.rotations[r];
  $('placing').hidden = false;
  $('placing-text').textContent = (a.text || a.label) + ' ';
  turnDrawn(a.rotation);
  try {
    const p = await api('GET', `/api/games/${gameId}/preview?index=${a.index}&version=${view.version}`);
    if (selected && selected.rotations[selected.r] === a) {
      drawBoard(p.board, true);
      $('board').dataset.preview = a.index;
    }
  } catch (e) { showError(e.message); }
}

// The drawn tile's picture, turned as it would be placed.
function turnDrawn(deg) {
  const d = $('drawn');
  if (d.firstElementChild) d.firstElementChild.style.transform = `rotate(${deg || 0}deg)`;
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
  // A link whose token holds no seat (mistyped, forged or from another game) says so.
  $('no-seat').hidden = !v.token_unknown;
  $('prompt').textContent = askText(v);
  const drawn = $('drawn');
  drawn.innerHTML = v.drawn_tile || '';
  drawn.parentElement.hidden = !v.drawn_tile;
  if (v.drawn_tile) {
    $('drawn-id').textContent = v.pending && v.pending.tile ? v.pending.tile : '';
    const first = (v.actions || []).find((a) => a.kind === 'place');
    turnDrawn(selected ? selected.rotations[selected.r].rotation : first ? first.rotation : 0);
  }
  const acts = $('actions');
  acts.replaceChildren();
  if (myTurn()) {
    const places = v.actions.filter((a) => a.kind === 'place').length;
    if (places) acts.append(el('p', { class: 'hint', text: 'Click a highlighted cell (or use the arrow keys), R to turn the tile, Enter to place it.' }));
    else if (v.actions.some((a) => a.x !== undefined)) acts.append(el('p', { class: 'hint', text: 'Click a figure on the board or a choice below.' }));
    for (const a of v.actions) {
      if (a.kind === 'place') continue;
      const b = el('button', { 'data-index': a.index, class: 'act', title: a.label, text: a.text || a.label });
      if (a.icon) b.prepend(iconSvg(a.icon));
      b.addEventListener('click', () => act(a.index));
      b.addEventListener('mouseenter', () => hl(a.index, true));
      b.addEventListener('mouseleave', () => hl(a.index, false));
      acts.append(b);
    }
  }
  // Each expansion's per-player state as a column under its own name (`token`), grouped
  // under the expansion's name; game-wide state below the table.
  const slots = Object.entries(v.slots || {});
  const perPlayer = slots.filter(([, x]) => Array.isArray(x));
  const t = $('players');
  const head = el('tr', {}, el('th', { text: 'Player' }), el('th', { text: 'Score' }), el('th', { text: 'Supply' }));
  for (const [k] of perPlayer) head.append(el('th', { title: slotName(k), text: k.slice(k.indexOf('.') + 1).replace(/[-_]/g, ' ') }));
  t.replaceChildren(head);
  for (const p of v.players) {
    const sup = Object.entries(p.supply).map(([k, n]) => `${n} ${k.replace(/[-_]/g, ' ')}`).join(', ');
    const s = seats[p.seat] || {};
    const sw = el('span', { class: 'swatch' });
    sw.style.background = p.colour || '#888';
    const row = el('tr', {}, el('td', {}, sw, `${p.name}${s.bot ? ` (${s.bot})` : ''}${s.resigned ? ' (resigned)' : ''}`), el('td', { class: 'score', text: p.score }), el('td', { text: sup }));
    for (const [, x] of perPlayer) row.append(el('td', { class: 'slot', text: x[p.seat] }));
    if (p.seat === v.current) row.classList.add('active');
    t.append(row);
  }
  // Game-wide numbers are the expansions' bookkeeping; what they mean for players the
  // board shows (describe: places, neutral figures, titles).
  $('game-state').textContent = perPlayer.length
    ? `Columns after Supply: ${[...new Set(perPlayer.map(([k]) => slotName(k)))].join(', ')}.` : '';
  drawLegend(v);
  $('tiles-left').textContent = `Tiles left: ${v.tiles_left}`;
  $('last-move').textContent = v.last ? `Last move (${seats[v.last.seat] ? seats[v.last.seat].name : ''}): ${v.last.text || v.last.label}` : '';
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

// Expansion names by id (from the server's list), to say who asks.
const expNames = {};

// A state slot `<expansion>.<name>` as "<name> (<expansion's name>)".
function slotName(key) {
  const i = key.indexOf('.');
  const exp = key.slice(0, i), name = key.slice(i + 1).replace(/[-_]/g, ' ');
  return `${name} (${expNames[exp] || exp})`;
}

// The pending decision in words: which expansion asks whom what.
function askText(v) {
  const a = v.ask;
  if (!a) return v.finished ? 'The game is over.' : (v.prompt || '');
  const who = a.seat === v.you && !replayId ? 'You' : a.who;
  const by = a.expansion ? `${expNames[a.expansion] || a.expansion} asks ${who === 'You' ? 'you' : who}: ` : `${who}: `;
  return `${by}${a.text}`;
}

// Who is who on the board: each seat's colour and every neutral figure and title shown.
function drawLegend(v) {
  const ul = $('key-list');
  ul.replaceChildren();
  for (const p of v.players) {
    const sw = el('span', { class: 'swatch' });
    sw.style.background = p.colour;
    ul.append(el('li', {}, sw, p.name));
  }
  for (const n of v.legend || []) {
    const where = n.x !== undefined ? ` at (${n.x},${n.y})` : '';
    const who = n.holder !== undefined ? ` — ${n.holder || 'nobody'}${n.detail ? `, ${n.detail}` : ''}` : '';
    ul.append(el('li', { class: 'neutral' }, iconSvg(n), `${n.name}${where}${who}`));
  }
}

async function refresh() {
  if (fetching) { dirty = true; return; }
  fetching = true;
  try {
    do {
      dirty = false;
      const q = [token ? `token=${encodeURIComponent(token)}` : '', boardDoc ? `since=${boardDoc.version}` : ''].filter((x) => x).join('&');
      let v = await api('GET', `/api/games/${gameId}${q ? `?${q}` : ''}`);
      if (!takeBoard(v)) {
        boardDoc = null;
        v = await api('GET', `/api/games/${gameId}${token ? `?token=${encodeURIComponent(token)}` : ''}`);
        takeBoard(v);
      }
      view = v;
    } while (dirty);
    selected = null;
    $('placing').hidden = true;
    drawBoard(view.board);
    drawSide();
  } catch (e) { showError(e.message); }
  fetching = false;
}

async function loadNames() {
  try {
    const info = await api('GET', '/api/expansions');
    for (const x of info.expansions) expNames[x.id] = x.name;
  } catch (_) { /* ids are shown instead */ }
}

function initGame() {
  $('game-view').hidden = false;
  initCam();
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
    else if (e.key === 'f' || e.key === 'F') fitCam(true);
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
  initCam();
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

// ---------------------------------------------------------------- live reload (`serve --watch`)

// While the server watches a fan expansion's folder, a bar says what happened to it: a
// change that loads offers a new game with the new version (games already running keep
// theirs); a change that does not load shows the script host's `file:line:col` error, and
// the version that loaded last stays the one played.
async function watchLoop() {
  let w;
  try { w = await api('GET', '/api/watch'); } catch (_) { return; }
  if (!w.watching || !w.watching.length) return;
  const start = w.generation;
  const bar = $('watch');
  const show = (w) => {
    bar.hidden = false;
    bar.classList.toggle('broken', !!w.error);
    const names = w.expansions.map((x) => expNames[x] || x).join(', ') || 'the watched expansion';
    if (w.error) {
      bar.replaceChildren(el('strong', { text: `${names}: the changed files do not load. ` }),
        el('code', { id: 'watch-error', text: w.error }),
        el('span', { text: ' The version that loaded last is still the one played; fix the file and save it again.' }));
    } else if (w.generation > start) {
      const b = el('button', { id: 'watch-new', text: 'New game with the new version' });
      b.addEventListener('click', newVersionGame);
      bar.replaceChildren(el('strong', { text: `${names} changed and loads (change ${w.generation}). ` }),
        view && gameId ? 'This game keeps the version it started with. ' : 'New games use it. ', b);
    } else {
      bar.replaceChildren(`Watching ${w.watching.join(', ')}: save a file of ${names} and this page offers a game with the new version.`);
    }
    bar.dataset.generation = w.generation;
    // The board and side panel fill what the bar leaves of the window.
    document.documentElement.style.setProperty('--bar', `${bar.offsetHeight}px`);
  };
  show(w);
  setInterval(async () => {
    try { show(await api('GET', '/api/watch')); } catch (_) { /* the server is restarting */ }
  }, 1000);
}

// The same table again (expansions, options, seats; a new seed) on the new version.
async function newVersionGame() {
  if (!view || !gameId) { $('create-form').requestSubmit(); return; }
  const body = {
    expansions: (view.expansions || []).filter((x) => x !== 'base'),
    options: view.options || {},
    seats: view.seats.map((s) => ({ name: s.name, bot: s.bot || null })),
  };
  try {
    const g = await api('POST', '/api/games', body);
    const mine = view.you !== null && view.you !== undefined ? g.seats[view.you] : null;
    const seat = mine && mine.link ? mine : g.seats.find((s) => s.link);
    location.href = seat ? seat.link : g.watch;
  } catch (e) { showError(e.message); }
}

loadNames().then(() => { if (view) drawSide(); watchLoop(); });

if (replayId) initReplay();
else if (gameId) initGame();
else initCreate();
