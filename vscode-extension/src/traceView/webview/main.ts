// The trace view's script, in the webview (browser, bundled to
// dist/webview.js). It draws the diagram that ../diagram.ts computes:
// a sticky header of thread names, one row per step with a box on the
// thread's lifeline, and the edges between rows as SVG curves beneath the
// boxes. Only the rows in sight (and a few around) are in the DOM, so a
// trace of any length scrolls like a short one.
//
// Colours come from VS Code's theme variables (media/traceView.css); this
// script only sets positions and sizes through the CSSOM (the page's
// Content-Security-Policy allows no inline style or handler).

import type { TraceDocument, TraceStep } from '../../protocol';
import { buildDiagram, bugKindTitle, rowOfStep, EDGE_KINDS, type Diagram, type Edge, type EdgeKind, type Row } from '../diagram';
import { parseToWebview, type FromWebview } from '../messages';

interface VsCodeApi {
  postMessage(msg: FromWebview): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const SVG = 'http://www.w3.org/2000/svg';
/** Height of a row, px. */
const ROW_H = 30;
/** Narrowest width of the step/line gutter, px (it grows with the numbers). */
const MIN_GUTTER_W = 84;
/** Space between a column's edge and the widest box, px. */
const COL_PAD = 18;
/** Horizontal padding inside a box, px. */
const BOX_TEXT_PAD = 8;
const MIN_COL_W = 120;
/** The widest a column gets; a longer op's box spills over its neighbours (a row has one box). */
const MAX_COL_W = 300;
/** The widest a box gets; longer text ends in an ellipsis (the details below show it whole). */
const MAX_BOX_W = 560;
/** Where each kind's arrows meet a box, from its middle, px: apart when two arrive at one box. */
const ATTACH_DY: Record<EdgeKind, number> = { 'lock-order': 4, spawn: -4, join: 0, race: 0 };
/** Rows drawn beyond the visible ones, above and below. */
const OVERSCAN = 8;

const EDGE_WORDS: Record<EdgeKind, string> = {
  'lock-order': 'unlock → lock of the same mutex',
  spawn: 'spawn → the new thread’s first step',
  join: 'a thread’s last step → its join',
  race: 'data race: two unordered accesses',
};

const vscode = acquireVsCodeApi();

const el = {
  title: byId('title'),
  message: byId('message'),
  notes: byId('notes'),
  legend: byId('legend'),
  scroller: byId('scroller'),
  columns: byId('columns'),
  canvas: byId('canvas'),
  details: byId('details'),
};

interface View {
  trace: TraceDocument;
  d: Diagram;
  colX: number[];
  colW: number[];
  gutterW: number;
  width: number;
  height: number;
  /** Box widths per row. */
  boxW: Float64Array;
  /** Edges sorted by `from`, and the longest span, to find those in sight quickly. */
  maxSpan: number;
}

let view: View | undefined;
let selected = -1;
let current = -1;
let renderQueued = false;

const measureCtx = document.createElement('canvas').getContext('2d');

window.addEventListener('message', (e: MessageEvent) => {
  const msg = parseToWebview(e.data);
  if (!msg) return;
  if (msg.type === 'trace') show(msg.trace);
  else setCurrent(msg.step);
});
el.scroller.addEventListener('scroll', queueRender, { passive: true });
new ResizeObserver(queueRender).observe(el.scroller);
// VS Code rewrites the theme's variables on <html> when the theme or the
// editor font changes: measure the boxes again.
new MutationObserver(relayout).observe(document.documentElement, { attributes: true, attributeFilter: ['style', 'class'] });
new MutationObserver(relayout).observe(document.body, { attributes: true, attributeFilter: ['class'] });
el.scroller.addEventListener('keydown', onKey);
el.canvas.addEventListener('click', onClick);
vscode.postMessage({ type: 'ready' });

function byId(id: string): HTMLElement {
  const e = document.getElementById(id);
  if (!e) throw new Error(`trace view: no #${id} in the page`);
  return e;
}

function show(trace: TraceDocument): void {
  layout(trace, buildDiagram(trace));
  selected = view && view.d.rows.length > 0 ? view.d.rows.length - 1 : -1;
  current = -1;
  drawChrome(view!);
  // The footer first: its height changes what is in sight.
  showDetails();
  el.scroller.scrollTop = 0;
  el.scroller.scrollLeft = 0;
  if (selected >= 0) ensureVisible(selected, 'end');
  render();
}

/** Measures again (new fonts), keeping the selection and the scroll position. */
function relayout(): void {
  if (!view) return;
  const top = el.scroller.scrollTop;
  const left = el.scroller.scrollLeft;
  layout(view.trace, view.d);
  drawChrome(view);
  el.scroller.scrollTop = top;
  el.scroller.scrollLeft = left;
  render();
}

/** Sizes the columns and boxes for the current font. */
function layout(trace: TraceDocument, d: Diagram): void {
  const font = boxFont();
  const colW = d.columns.map(() => MIN_COL_W);
  // A column is as wide as its widest box (or its name), within bounds.
  const widest = d.columns.map((c) => textWidth(c.name, font) + 24);
  const boxW = new Float64Array(d.rows.length);
  let widestBox = 0;
  for (const r of d.rows) {
    const w = Math.min(MAX_BOX_W, Math.ceil(textWidth(r.op, font)) + 2 * BOX_TEXT_PAD + 2);
    boxW[r.index] = w;
    if (w > widest[r.column]) widest[r.column] = w;
    if (w > widestBox) widestBox = w;
  }
  for (let c = 0; c < colW.length; c++) colW[c] = clamp(Math.ceil(widest[c] + 2 * COL_PAD), MIN_COL_W, MAX_COL_W);
  const colX: number[] = [];
  // The gutter: a mark, the widest step number, the widest line number.
  let maxLine = 0;
  for (const r of d.rows) if (r.line > maxLine) maxLine = r.line;
  const lastStep = d.rows.length > 0 ? d.rows[d.rows.length - 1].step : 0;
  const digits = `${'8'.repeat(String(lastStep).length)} L${'8'.repeat(String(maxLine).length)}`;
  const gutterW = Math.max(MIN_GUTTER_W, Math.ceil(textWidth(digits, font) * 0.92) + 40);
  let x = gutterW;
  for (const w of colW) {
    colX.push(x);
    x += w;
  }
  x = Math.max(x, gutterW + widestBox + 2 * COL_PAD);
  let maxSpan = 0;
  for (const e of d.edges) maxSpan = Math.max(maxSpan, e.to - e.from);
  view = {
    trace,
    d,
    colX,
    colW,
    gutterW,
    width: x + 8,
    height: (d.rows.length + (d.omitted ? 1 : 0)) * ROW_H + ROW_H / 2,
    boxW,
    maxSpan,
  };
}

/** The title, notes, legend and header: everything but the rows. */
function drawChrome(v: View): void {
  const { d } = v;
  el.title.textContent = `${bugKindTitle(d.kind)} — ${d.totalSteps.toLocaleString('en-US')} step${d.totalSteps === 1 ? '' : 's'}, ${d.columns.length} thread${d.columns.length === 1 ? '' : 's'}`;
  el.message.textContent = d.message;
  el.notes.replaceChildren(
    ...d.notes.map((n) => {
      const p = document.createElement('p');
      p.className = 'note';
      p.textContent = n;
      return p;
    }),
  );

  const items: HTMLElement[] = [];
  if (d.hasEvents) {
    for (const k of EDGE_KINDS) {
      const li = document.createElement('li');
      const count = d.edges.reduce((n, e) => n + (e.kind === k ? 1 : 0), 0);
      if (count === 0) li.classList.add('absent');
      const svg = document.createElementNS(SVG, 'svg');
      svg.setAttribute('width', '36');
      svg.setAttribute('height', '12');
      svg.setAttribute('aria-hidden', 'true');
      svg.append(markerDefs(`legend-${k}`));
      const line = document.createElementNS(SVG, 'path');
      line.setAttribute('d', 'M 3 6 L 31 6');
      line.setAttribute('class', `edge ${k}`);
      setMarkers(line, k, `legend-${k}`);
      svg.append(line);
      const label = document.createElement('span');
      label.textContent = `${EDGE_WORDS[k]}${count > 0 ? ` (${count})` : ''}`;
      li.append(svg, label);
      items.push(li);
    }
  }
  for (const [cls, glyph, words] of [
    ['bug', '✖', 'the step where the bug shows'],
    ['current', '▶', 'the debugger’s step'],
  ] as const) {
    const li = document.createElement('li');
    const g = document.createElement('span');
    g.className = `glyph ${cls}`;
    g.textContent = glyph;
    g.setAttribute('aria-hidden', 'true');
    const label = document.createElement('span');
    label.textContent = words;
    li.append(g, label);
    items.push(li);
  }
  el.legend.replaceChildren(...items);

  // Header: thread names over their columns.
  const cells: HTMLElement[] = [];
  const corner = document.createElement('div');
  corner.className = 'corner';
  corner.textContent = 'step · line';
  setBox(corner, 0, v.gutterW);
  el.scroller.style.setProperty('--weft-gutter-width', `${v.gutterW}px`);
  cells.push(corner);
  for (const c of d.columns) {
    const h = document.createElement('div');
    h.className = 'thread';
    h.textContent = c.name;
    h.title = `${c.name}${c.spawned ? ' (spawned)' : ''}${c.ended ? '' : ' (still running at the end)'}`;
    setBox(h, v.colX[c.index], v.colW[c.index]);
    cells.push(h);
  }
  el.columns.replaceChildren(...cells);
  el.columns.style.width = `${v.width}px`;
  el.canvas.style.width = `${v.width}px`;
  el.canvas.style.height = `${v.height}px`;
  el.scroller.setAttribute('aria-label', `Steps of the counterexample: ${bugKindTitle(d.kind)}`);
}

function setBox(e: HTMLElement, left: number, width: number): void {
  e.style.left = `${left}px`;
  e.style.width = `${width}px`;
}

/** The y of a row's top, in canvas pixels (the omitted steps take one row). */
function rowY(d: Diagram, r: number): number {
  return (r + (d.omitted && r >= d.omitted.beforeRow ? 1 : 0)) * ROW_H;
}

/** The row at a canvas y (clamped). */
function rowAt(d: Diagram, y: number): number {
  let r = Math.floor(y / ROW_H);
  if (d.omitted && r >= d.omitted.beforeRow) r -= 1;
  return clamp(r, 0, d.rows.length - 1);
}

function queueRender(): void {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => {
    renderQueued = false;
    render();
  });
}

/** Draws the rows and edges in sight. */
function render(): void {
  const v = view;
  if (!v) return;
  const { d } = v;
  if (d.rows.length === 0) {
    el.canvas.replaceChildren();
    return;
  }
  const headerH = el.columns.offsetHeight;
  const top = el.scroller.scrollTop;
  const bottom = top + Math.max(0, el.scroller.clientHeight - headerH);
  const first = Math.max(0, rowAt(d, top) - OVERSCAN);
  const last = Math.min(d.rows.length - 1, rowAt(d, bottom) + OVERSCAN);
  const y0 = rowY(d, first);
  const y1 = rowY(d, last) + ROW_H;

  const nodes: Element[] = [];

  // Bands under everything: the selection and the debugger's step.
  for (const [r, cls] of [
    [current, 'band current'],
    [selected, 'band selected'],
  ] as const) {
    if (r >= first && r <= last) {
      const b = document.createElement('div');
      b.className = cls;
      b.style.top = `${rowY(d, r)}px`;
      b.style.height = `${ROW_H}px`;
      nodes.push(b);
    }
  }

  // Lifelines and edges: one SVG covering the rows drawn.
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('class', 'lines');
  svg.setAttribute('width', String(v.width));
  svg.setAttribute('height', String(y1 - y0));
  svg.setAttribute('aria-hidden', 'true');
  svg.style.top = `${y0}px`;
  svg.append(markerDefs('m'));
  for (const c of d.columns) {
    if (c.end < first || c.start > last || c.end < c.start) continue;
    const x = v.colX[c.index] + v.colW[c.index] / 2;
    const startsHere = c.spawned || c.start > 0;
    const ys = (startsHere ? rowY(d, c.start) + ROW_H / 2 : 0) - y0;
    // An ended thread's lifeline stops under its last box, with a bar.
    const ye = (c.ended ? rowY(d, c.end) + ROW_H - 2 : v.height) - y0;
    svg.append(path(`M ${x} ${ys} L ${x} ${ye}`, 'lifeline'));
    if (startsHere && c.start >= first) svg.append(circle(x, ys, 4, 'lifeline-start'));
    if (c.ended && c.end <= last) svg.append(path(`M ${x - 9} ${ye} L ${x + 9} ${ye}`, 'lifeline-end'));
  }
  if (d.omitted && d.omitted.beforeRow >= first && d.omitted.beforeRow <= last + 1) {
    const g = document.createElement('div');
    g.className = 'gap';
    g.style.top = `${d.omitted.beforeRow * ROW_H}px`;
    g.style.height = `${ROW_H}px`;
    g.textContent = `⋯ ${d.omitted.steps.toLocaleString('en-US')} steps not drawn ⋯`;
    nodes.push(g);
  }
  // Edges in sight: from ≤ last and to ≥ first. Edges are sorted by
  // `from`, and none spans more than maxSpan rows, so those with
  // from ≥ first - maxSpan are the only candidates.
  const edgeNodes: SVGElement[] = [];
  for (let i = lowerBound(d.edges, first - v.maxSpan); i < d.edges.length; i++) {
    const e = d.edges[i];
    if (e.from > last) break;
    if (e.to < first) continue;
    edgeNodes.push(edgePath(v, e, y0));
  }
  // Edges that touch the selection go on top.
  edgeNodes.sort((a, b) => Number(a.classList.contains('touch')) - Number(b.classList.contains('touch')));
  svg.append(...edgeNodes);
  nodes.push(svg);

  // The rows.
  for (let r = first; r <= last; r++) nodes.push(rowNode(v, d.rows[r]));
  el.canvas.replaceChildren(...nodes);

  if (selected >= first && selected <= last) el.scroller.setAttribute('aria-activedescendant', rowId(d.rows[selected]));
  else el.scroller.removeAttribute('aria-activedescendant');
}

function rowId(r: Row): string {
  return `step-${r.index}`;
}

function rowNode(v: View, r: Row): HTMLElement {
  const { d } = v;
  const row = document.createElement('div');
  row.className = 'row';
  row.id = rowId(r);
  row.setAttribute('role', 'option');
  row.setAttribute('aria-selected', String(r.index === selected));
  row.setAttribute('aria-setsize', String(d.totalSteps));
  row.setAttribute('aria-posinset', String(r.step));
  row.setAttribute('aria-label', rowWords(d, r));
  row.dataset.row = String(r.index);
  row.style.top = `${rowY(d, r.index)}px`;
  row.style.height = `${ROW_H}px`;
  if (r.index === selected) row.classList.add('selected');
  if (r.index === current) row.classList.add('current');

  const gutter = document.createElement('div');
  gutter.className = 'gutter';
  const mark = document.createElement('span');
  mark.className = 'mark';
  mark.setAttribute('aria-hidden', 'true');
  if (r.index === current) {
    mark.textContent = '▶';
    mark.classList.add('current');
  } else if (r.bug) {
    mark.textContent = '✖';
    mark.classList.add('bug');
  } else if (r.race) {
    mark.textContent = '≠';
    mark.classList.add('race');
  }
  const num = document.createElement('span');
  num.className = 'num';
  num.textContent = String(r.step);
  const line = document.createElement('span');
  line.className = 'line';
  line.textContent = r.line > 0 ? `L${r.line}` : '';
  gutter.append(mark, num, line);

  const box = document.createElement('div');
  box.className = 'box';
  if (r.event && /^[a-z-]+$/.test(r.event)) box.classList.add(`ev-${r.event}`);
  if (r.race) box.classList.add('race');
  if (r.bug) box.classList.add('bug');
  box.textContent = r.op;
  box.title = `${r.thread}: ${r.op}${r.line > 0 ? ` (line ${r.line})` : ''}`;
  const [left, w] = boxGeom(v, r);
  box.style.left = `${left}px`;
  box.style.width = `${w}px`;
  row.append(gutter, box);
  return row;
}

function rowWords(d: Diagram, r: Row): string {
  const parts = [`Step ${r.step} of ${d.totalSteps}`, r.thread, r.op];
  if (r.line > 0) parts.push(`line ${r.line}`);
  if (r.race) parts.push('one of the two racing accesses');
  if (r.bug) parts.push(`the ${d.kind || 'bug'} shows here`);
  if (r.ends) parts.push('the thread ends');
  return parts.join(', ');
}

function boxFont(): string {
  const probe = document.createElement('div');
  probe.className = 'box';
  probe.textContent = 'x';
  el.canvas.append(probe);
  const cs = getComputedStyle(probe);
  const font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
  probe.remove();
  return font;
}

function textWidth(s: string, font: string): number {
  if (!measureCtx) return s.length * 8;
  measureCtx.font = font;
  return measureCtx.measureText(s).width;
}

/** A row's box: [left, width], centred on its lifeline, kept inside the canvas. */
function boxGeom(v: View, r: Row): [number, number] {
  const w = v.boxW[r.index];
  const cx = v.colX[r.column] + v.colW[r.column] / 2;
  const left = clamp(cx - w / 2, v.gutterW + 6, v.width - 6 - w);
  return [left, w];
}

/** The SVG path of an edge, in the coordinates of an SVG whose top is at canvas y0. */
function edgePath(v: View, e: Edge, y0: number): SVGElement {
  const { d } = v;
  const a = d.rows[e.from];
  const b = d.rows[e.to];
  const dy = ATTACH_DY[e.kind];
  const ya = rowY(d, e.from) + ROW_H / 2 + dy - y0;
  const yb = rowY(d, e.to) + ROW_H / 2 + dy - y0;
  const [la, wa] = boxGeom(v, a);
  const [lb, wb] = boxGeom(v, b);
  const ra = la + wa;
  const rb = lb + wb;
  const gap = e.kind === 'race' ? 0 : 2; // room for the arrowhead's tip
  let p: string;
  if (rb + 4 <= la || ra + 4 <= lb) {
    // Side by side: from the side of one box facing the other to the facing side of the other.
    const dir = lb >= ra ? 1 : -1;
    const xa = dir > 0 ? ra : la;
    const xb = dir > 0 ? lb - gap : rb + gap;
    const k = Math.max(14, Math.abs(xb - xa) / 2);
    p = `M ${xa} ${ya} C ${xa + dir * k} ${ya}, ${xb - dir * k} ${yb}, ${xb} ${yb}`;
  } else {
    // The boxes overlap across (same thread, or a long box): from the
    // bottom of one to the top of the other, in the middle of the overlap.
    const x = (Math.max(la, lb) + Math.min(ra, rb)) / 2;
    const y1 = rowY(d, e.from) + ROW_H - 4 - y0;
    const y2 = rowY(d, e.to) + 4 - gap - y0;
    const k = Math.max(8, (y2 - y1) / 2);
    p = `M ${x} ${y1} C ${x} ${y1 + k}, ${x} ${y2 - k}, ${x} ${y2}`;
  }
  const g = document.createElementNS(SVG, 'g');
  const touch = e.from === selected || e.to === selected;
  g.setAttribute('class', `edge-group ${e.kind}${touch ? ' touch' : ''}`);
  const t = document.createElementNS(SVG, 'title');
  t.textContent = `${EDGE_WORDS[e.kind]}${e.label ? `: ${e.label}` : ''} (step ${a.step} → step ${b.step})`;
  const halo = path(p, `halo ${e.kind}`);
  const line = path(p, `edge ${e.kind}`);
  setMarkers(line, e.kind, 'm');
  g.append(t, halo, line);
  return g;
}

function setMarkers(line: SVGElement, kind: EdgeKind, prefix: string): void {
  if (kind === 'race') {
    line.setAttribute('marker-start', `url(#${prefix}-race-end)`);
    line.setAttribute('marker-end', `url(#${prefix}-race-end)`);
  } else {
    line.setAttribute('marker-end', `url(#${prefix}-${kind}-head)`);
  }
}

/** Arrowheads for each kind (markers take no colour from the line that uses them). */
function markerDefs(prefix: string): SVGDefsElement {
  const defs = document.createElementNS(SVG, 'defs');
  for (const k of EDGE_KINDS) {
    const m = document.createElementNS(SVG, 'marker');
    m.setAttribute('viewBox', '0 0 10 10');
    m.setAttribute('refX', k === 'race' ? '5' : '9');
    m.setAttribute('refY', '5');
    m.setAttribute('markerUnits', 'userSpaceOnUse');
    m.setAttribute('markerWidth', k === 'race' ? '8' : '10');
    m.setAttribute('markerHeight', k === 'race' ? '8' : '10');
    m.setAttribute('orient', 'auto-start-reverse');
    if (k === 'race') {
      m.id = `${prefix}-race-end`;
      const c = document.createElementNS(SVG, 'circle');
      c.setAttribute('cx', '5');
      c.setAttribute('cy', '5');
      c.setAttribute('r', '4');
      c.setAttribute('class', `marker ${k}`);
      m.append(c);
    } else {
      m.id = `${prefix}-${k}-head`;
      m.append(path('M 0 1 L 10 5 L 0 9 z', `marker ${k}`));
    }
    defs.append(m);
  }
  return defs;
}

function path(d: string, cls: string): SVGPathElement {
  const p = document.createElementNS(SVG, 'path');
  p.setAttribute('d', d);
  p.setAttribute('class', cls);
  return p;
}

function circle(cx: number, cy: number, r: number, cls: string): SVGCircleElement {
  const c = document.createElementNS(SVG, 'circle');
  c.setAttribute('cx', String(cx));
  c.setAttribute('cy', String(cy));
  c.setAttribute('r', String(r));
  c.setAttribute('class', cls);
  return c;
}

/** The first edge index with from ≥ row. */
function lowerBound(edges: Edge[], row: number): number {
  let lo = 0;
  let hi = edges.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (edges[mid].from < row) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function onClick(ev: MouseEvent): void {
  const v = view;
  if (!v || v.d.rows.length === 0) return;
  // By height, so that a click anywhere on a row (box, gutter, band or an
  // arrow crossing it) chooses its step; the omitted steps' row chooses nothing.
  const y = ev.clientY - el.canvas.getBoundingClientRect().top;
  const om = v.d.omitted;
  if (om && y >= om.beforeRow * ROW_H && y < (om.beforeRow + 1) * ROW_H) return;
  if (y < 0 || y >= rowY(v.d, v.d.rows.length - 1) + ROW_H) return;
  select(rowAt(v.d, y));
  el.scroller.focus({ preventScroll: true });
  reveal();
}

function onKey(ev: KeyboardEvent): void {
  const v = view;
  if (!v || v.d.rows.length === 0) return;
  const n = v.d.rows.length;
  const page = Math.max(1, Math.floor((el.scroller.clientHeight - el.columns.offsetHeight) / ROW_H) - 1);
  let next = selected < 0 ? 0 : selected;
  switch (ev.key) {
    case 'ArrowDown':
      next += 1;
      break;
    case 'ArrowUp':
      next -= 1;
      break;
    case 'PageDown':
      next += page;
      break;
    case 'PageUp':
      next -= page;
      break;
    case 'Home':
      next = 0;
      break;
    case 'End':
      next = n - 1;
      break;
    case 'Enter':
    case ' ':
      ev.preventDefault();
      reveal();
      return;
    default:
      return;
  }
  ev.preventDefault();
  select(clamp(next, 0, n - 1));
}

function select(r: number): void {
  selected = r;
  showDetails();
  ensureVisible(r, 'nearest');
  render();
}

function reveal(): void {
  const v = view;
  if (!v || selected < 0) return;
  vscode.postMessage({ type: 'reveal', step: v.d.rows[selected].step });
}

function setCurrent(step: number): void {
  const v = view;
  if (!v) return;
  const r = step >= 1 ? rowOfStep(v.d, step) : undefined;
  current = r ?? -1;
  if (r !== undefined) {
    selected = r;
    showDetails();
    ensureVisible(r, 'center');
  }
  render();
}

/** Scrolls so that row r is in sight: at the nearest edge, or centred if it is out of sight. */
function ensureVisible(r: number, how: 'nearest' | 'center' | 'end'): void {
  const v = view;
  if (!v) return;
  const headerH = el.columns.offsetHeight;
  const viewH = Math.max(ROW_H, el.scroller.clientHeight - headerH);
  const y = rowY(v.d, r);
  const top = el.scroller.scrollTop;
  const inSight = y >= top && y + ROW_H <= top + viewH;
  if (how === 'end') el.scroller.scrollTop = y + ROW_H * 2 - viewH;
  else if (inSight) {
    // Vertically in sight already; it may still be out of sight sideways.
  } else if (how === 'center') el.scroller.scrollTop = y - viewH / 2;
  else if (y < top) el.scroller.scrollTop = y - ROW_H / 2;
  else el.scroller.scrollTop = y + ROW_H * 1.5 - viewH;
  // Horizontally: as little as brings the row's box in sight right of
  // the sticky gutter, its start first when it is wider than the view.
  const row = v.d.rows[r];
  const x = v.colX[row.column];
  const w = v.colW[row.column];
  const left = el.scroller.scrollLeft;
  const viewW = el.scroller.clientWidth;
  const showStart = Math.max(0, x - v.gutterW - 16);
  if (x - v.gutterW < left) {
    el.scroller.scrollLeft = showStart;
  } else if (x + w > left + viewW) {
    el.scroller.scrollLeft = Math.min(showStart, x + w - viewW + 16);
  }
}

/** The footer: the selected step in full, with the state after it. */
function showDetails(): void {
  const v = view;
  if (!v || selected < 0) {
    el.details.replaceChildren();
    return;
  }
  const r = v.d.rows[selected];
  const st: TraceStep | undefined = v.trace.steps[r.at];
  const head = document.createElement('p');
  head.className = 'step';
  const strong = document.createElement('strong');
  strong.textContent = `Step ${r.step.toLocaleString('en-US')} of ${v.d.totalSteps.toLocaleString('en-US')}`;
  const rest = document.createElement('span');
  rest.textContent = ` · ${r.thread}${r.line > 0 ? ` · line ${r.line}` : ''} · `;
  const op = document.createElement('code');
  op.textContent = r.op;
  head.append(strong, rest, op);
  if (r.bug) head.append(badge('bug', bugKindTitle(v.d.kind)));
  if (r.race) head.append(badge('race', 'racing access'));
  if (r.ends) head.append(badge('ends', 'thread ends'));
  const lines: HTMLElement[] = [head];
  const edges = edgesOf(v.d, selected);
  if (edges.length > 0) {
    const p = document.createElement('p');
    p.className = 'state';
    p.textContent = edges.join(' · ');
    lines.push(p);
  }
  if (st?.shared && st.shared.length > 0) {
    lines.push(stateLine('shared', st.shared.map((x) => `${x.name} = ${x.value}`)));
  }
  if (st?.locks && st.locks.length > 0) {
    lines.push(stateLine('locks', st.locks.map((l) => `${l.name}: ${l.holder === '' ? 'free' : l.holder}`)));
  }
  if (v.trace.stateOmitted && selected === v.d.rows.length - 1) {
    const p = document.createElement('p');
    p.className = 'state';
    p.textContent = 'The trace is too long for a state per step: steps only.';
    lines.push(p);
  }
  el.details.replaceChildren(...lines);
}

function edgesOf(d: Diagram, r: number): string[] {
  // The selection changes at human speed: scanning every edge is fine.
  const out: string[] = [];
  for (const e of d.edges) {
    if (e.from === r || e.to === r) out.push(edgeWords(d, e, r));
  }
  return out;
}

/** An edge in words, seen from row r (one of its ends). */
function edgeWords(d: Diagram, e: Edge, r: number): string {
  const from = d.rows[e.from];
  const to = d.rows[e.to];
  const incoming = e.to === r;
  switch (e.kind) {
    case 'lock-order':
      return incoming
        ? `after ${from.thread} unlocked ${e.label} at step ${from.step}`
        : `${to.thread} locks ${e.label} next, at step ${to.step}`;
    case 'spawn':
      return incoming ? `spawned by ${from.thread} at step ${from.step}` : `spawns ${e.label}, whose first step is step ${to.step}`;
    case 'join':
      return incoming ? `after ${e.label} ended at step ${from.step}` : `${to.thread} joins this thread at step ${to.step}`;
    case 'race': {
      const other = incoming ? from : to;
      return `races${e.label ? ` on ${e.label}` : ''} with step ${other.step} (${other.thread}): not ordered by synchronisation`;
    }
  }
}

function stateLine(label: string, items: string[]): HTMLElement {
  const p = document.createElement('p');
  p.className = 'state';
  const l = document.createElement('span');
  l.className = 'label';
  l.textContent = `${label}: `;
  p.append(l, items.join(', '));
  return p;
}

function badge(cls: string, text: string): HTMLElement {
  const b = document.createElement('span');
  b.className = `badge ${cls}`;
  b.textContent = text;
  return b;
}

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}
