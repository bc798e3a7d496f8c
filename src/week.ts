// `hbgen plan`: the next seven days of fires as a picture — a grid of days × hours in the
// working zone (and on the host's clock when that runs in another zone), as terminal text
// and as SVG. Pure: the spec, the scheduler, "now" and the host's zone come in as data, the
// same input gives the same bytes. The fire times are the plan's (src/schedule.ts), read
// as the scheduler reads them (src/host/audit/health.ts firesBetween: systemd in the working
// zone, cron and launchd on the host clock), so the picture shows what will happen.
import { pad2 } from './formats.ts';
import { firesBetween } from './host/audit/health.ts';
import { dayStart, localParts } from './host/audit/history.ts';
import { openDays, plan } from './schedule.ts';
import { clockMinutes, idleOf, seconds, type Spec } from './spec.ts';
import { offsetAt, transitions } from './zone-offsets.ts';

const MIN = 60_000;
const DAY = 1440 * MIN;
const WEEKDAY = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

export interface Fire {
  /** UTC ms. */
  t: number;
  /** True when the wrapper will wake the agent; false: a fire it skips (`skip` says why). */
  wake: boolean;
  /**
   * Why a fire is no wake: 'gate', a fire of a widened host-clock plan that the gate closes;
   * 'minRun', an expected wake with less than minRun of the working window left, which the
   * wrapper skips every time (skip-window).
   */
  skip?: 'gate' | 'minRun' | 'ended';
}

/** A change of a zone's UTC offset within the span. */
export interface DstChange {
  t: number;
  zone: string;
  /** Wall clock just before and right after, e.g. 02:00 → 03:00. */
  before: string;
  after: string;
  forward: boolean;
}

export interface Week {
  name: string;
  scheduler: string;
  workZone: string;
  /** The zone the scheduler's clock runs in: the working zone for systemd, the host's for cron and launchd. */
  clockZone: string;
  /** The host's zone (the actual one when known), for the second grid. */
  hostZone: string;
  /** Local midnight today in the working zone, and seven days later (UTC ms). */
  from: number;
  to: number;
  fires: Fire[];
  /** Expected wakes the scheduler will not fire (its clock runs in another zone than the plan's). */
  missed: number[];
  /** The spec's minRun, as written (for the words under the grid). */
  minRun: string;
  /** The spec's end, a wall-clock time of the working zone (YYYY-MM-DDTHH:MM), if any. */
  until?: string;
  /** The idle backoff (idleAfter, 0: off; idleEvery in seconds). */
  idle: { after: number; every: number };
  dst: DstChange[];
  /** Is UTC minute t inside the working window? */
  inWindow: (t: number) => boolean;
}

export interface WeekInput {
  spec: Pick<Spec, 'name' | 'schedule' | 'minRun' | 'until' | 'idleAfter' | 'idleEvery'>;
  scheduler: { id: string; hostClock: boolean };
  now: number;
  /** The zone the host clock runs in (cron and launchd read it). */
  hostZone: string;
}

/** The local date after `date` (YYYY-MM-DD). */
const nextDate = (date: string): string => new Date(Date.parse(`${date}T12:00:00Z`) + DAY).toISOString().slice(0, 10);


/** The working window as a test on a local (weekday, minute of day) of the working zone. */
function windowTest(spec: Pick<Spec, 'schedule'>): (dow: number, m: number) => boolean {
  const open = new Set(openDays(spec));
  const start = clockMinutes(spec.schedule.hours.start);
  const end = clockMinutes(spec.schedule.hours.end);
  if (end > start) return (dow, m) => open.has(dow) && m >= start && m < end;
  // Across midnight: the evening of an open day and the morning after it.
  return (dow, m) => (open.has(dow) && m >= start) || (open.has((dow + 6) % 7) && m < end);
}

function changes(zone: string, from: number, to: number): DstChange[] {
  return transitions(zone)
    .filter((t) => t >= from && t < to)
    .map((t) => {
      const b = offsetAt(zone, t - MIN);
      const a = offsetAt(zone, t);
      const wall = (off: number) => {
        const l = new Date(t + off * MIN);
        return `${pad2(l.getUTCHours())}:${pad2(l.getUTCMinutes())}`;
      };
      return { t, zone, before: wall(b), after: wall(a), forward: a > b };
    });
}

/**
 * Whether the spec's until (a wall-clock time of the working zone, "YYYY-MM-DDTHH:MM") has
 * come at UTC ms `t`: as the wrapper compares it, on the wall clock, so a clock change
 * cannot move it.
 */
export function untilReached(spec: Pick<Spec, 'schedule' | 'until'>, t: number): boolean {
  const zone = spec.schedule.hours.timezone;
  return spec.until !== undefined && new Date(t + offsetAt(zone, t) * MIN).toISOString().slice(0, 16) >= spec.until;
}

export function week(input: WeekInput): Week {
  const { spec, scheduler } = input;
  const workZone = spec.schedule.hours.timezone;
  const p = plan(spec);
  const today = localParts(input.now, workZone).date;
  let end = today;
  for (let i = 0; i < 7; i++) end = nextDate(end);
  const from = dayStart(today, workZone);
  const to = dayStart(end, workZone);
  const clockZone = scheduler.hostClock ? input.hostZone : workZone;
  const entries = scheduler.hostClock ? p.hostEntries : p.zoneEntries;
  const expected = firesBetween(p.zoneEntries, workZone, from, to);
  const want = new Set(expected);
  const times = firesBetween(entries, clockZone, from, to);
  const fired = new Set(times);
  const test = windowTest(spec);
  const inWindow = (t: number) => {
    const l = new Date(t + offsetAt(workZone, t) * MIN);
    return test(l.getUTCDay(), l.getUTCHours() * 60 + l.getUTCMinutes());
  };
  // The wrapper skips a wake with less than minRun of its window left: it wakes only when the
  // window is still open at the last whole minute of that run (the window is one stretch).
  const last = Math.ceil(seconds(spec.minRun) / 60) * MIN - MIN;
  const ended = (t: number) => untilReached(spec, t);
  const fire = (t: number): Fire =>
    !want.has(t) ? { t, wake: false, skip: 'gate' } : ended(t) ? { t, wake: false, skip: 'ended' } : inWindow(t + last) ? { t, wake: true } : { t, wake: false, skip: 'minRun' };
  const zones = [...new Set([workZone, input.hostZone])];
  return {
    name: spec.name,
    scheduler: scheduler.id,
    workZone,
    clockZone,
    hostZone: input.hostZone,
    from,
    to,
    fires: times.map(fire),
    missed: expected.filter((t) => !fired.has(t)),
    minRun: spec.minRun,
    ...(spec.until ? { until: spec.until } : {}),
    idle: idleOf(spec),
    dst: zones.flatMap((z) => changes(z, from, to)).sort((a, b) => a.t - b.t || a.zone.localeCompare(b.zone)),
    inWindow,
  };
}

// ---- the grid: rows of local dates, columns of local hours, in one zone ----

export interface Cell {
  /** Some minute of this hour lies in the span. */
  inSpan: boolean;
  window: boolean;
  wakes: number;
  wasted: number;
}

export interface Row {
  date: string;
  /** Sun … Sat. */
  weekday: string;
  cells: Cell[];
  /** The zone's offset changes on this date. */
  dst: DstChange[];
  /** Each fire of the row, with its local hour and minute (for the SVG). */
  fires: (Fire & { hour: number; minute: number })[];
}

/** The week's fires on the wall clock of `zone`: one row per local date the span touches. */
export function grid(w: Week, zone: string): Row[] {
  const rows = new Map<string, Row>();
  const row = (date: string) => {
    let r = rows.get(date);
    if (!r) {
      const weekday = WEEKDAY[new Date(`${date}T12:00:00Z`).getUTCDay()]!;
      rows.set(date, (r = { date, weekday, cells: Array.from({ length: 24 }, () => ({ inSpan: false, window: false, wakes: 0, wasted: 0 })), dst: [], fires: [] }));
    }
    return r;
  };
  for (let t = w.from; t < w.to; t += MIN) {
    const l = new Date(t + offsetAt(zone, t) * MIN);
    const c = row(l.toISOString().slice(0, 10)).cells[l.getUTCHours()]!;
    c.inSpan = true;
    if (!c.window && w.inWindow(t)) c.window = true;
  }
  for (const f of w.fires) {
    const l = new Date(f.t + offsetAt(zone, f.t) * MIN);
    const r = row(l.toISOString().slice(0, 10));
    const c = r.cells[l.getUTCHours()]!;
    if (f.wake) c.wakes++;
    else c.wasted++;
    r.fires.push({ ...f, hour: l.getUTCHours(), minute: l.getUTCMinutes() });
  }
  for (const d of w.dst.filter((x) => x.zone === zone)) {
    const l = new Date(d.t + offsetAt(zone, d.t - MIN) * MIN - MIN);
    row(l.toISOString().slice(0, 10)).dst.push(d);
  }
  return [...rows.values()].sort((a, b) => a.date.localeCompare(b.date));
}

/** Do the two zones keep different clocks during the week? */
export function zonesDiffer(w: Week): boolean {
  for (let t = w.from; t < w.to; t += 15 * MIN) if (offsetAt(w.workZone, t) !== offsetAt(w.hostZone, t)) return true;
  return false;
}

// ---- terminal text ----

export const MARKS = { wake: '#', wasted: 'x', window: '.', outside: ' ' } as const;

const dstText = (d: DstChange) => `clocks go ${d.forward ? 'forward' : 'back'} ${d.before} → ${d.after}`;

function gridText(rows: Row[], zone: string): string[] {
  const out = [`         ${Array.from({ length: 24 }, (_, h) => pad2(h)).join(' ')}   (hours in ${zone})`];
  for (const r of rows) {
    const cells = r.cells.map((c) => (!c.inSpan ? '  ' : c.wakes ? ` ${MARKS.wake}` : c.wasted ? ` ${MARKS.wasted}` : c.window ? ` ${MARKS.window}` : `  `));
    const note = r.dst.length ? `  ← ${r.dst.map(dstText).join('; ')}` : '';
    out.push(`  ${r.weekday} ${r.date.slice(8)} ${cells.map((c) => `${c} `).join('').replace(/\s+$/, '')}${note}`.replace(/\s+$/, ''));
  }
  return out;
}

/** The whole terminal picture, one string per line. */
export function weekText(w: Week): string[] {
  const wakes = w.fires.filter((f) => f.wake).length;
  const gated = w.fires.filter((f) => f.skip === 'gate').length;
  const late = w.fires.filter((f) => f.skip === 'minRun').length;
  const ended = w.fires.filter((f) => f.skip === 'ended').length;
  const first = localParts(w.from, w.workZone).date;
  const out = [
    `hbgen plan: "${w.name}" (${w.scheduler}), the 7 days from ${WEEKDAY[new Date(`${first}T12:00:00Z`).getUTCDay()]} ${first}, in ${w.workZone}`,
    `  ${MARKS.wake} a wake   ${MARKS.wasted} a fire that wakes no agent (the gate closes it, or less than minRun is left)   ${MARKS.window} working hours, no fire`,
    '',
    ...gridText(grid(w, w.workZone), w.workZone),
  ];
  if (zonesDiffer(w)) {
    out.push('', `The same fires on the host's clock (${w.hostZone}):`, '', ...gridText(grid(w, w.hostZone), w.hostZone));
  }
  out.push('');
  const why = w.missed.length
    ? `the host clock runs in ${w.clockZone}, not the zone the entries are planned for`
    : `the ${w.scheduler} entries read the host clock (${w.clockZone}) and are widened to cover the working hours in every offset the two zones have`;
  const plural = (n: number) => (n === 1 ? '' : 's');
  const lateText = `${late} with less than minRun (${w.minRun}) of the window left, which the wrapper skips every time (skip-window): end the window later, move schedule.minute or shorten minRun`;
  const wastedText =
    gated + late === 0
      ? '0 wasted fires (every fire is a wake)'
      : late === 0
        ? `${gated} wasted fire${plural(gated)}, which the gate closes (${why})`
        : `${gated + late} wasted fire${plural(gated + late)}: ${gated ? `${gated} the gate closes (${why}); ` : ''}${lateText}`;
  // The wakes drawn are the most there can be: the idle backoff skips some of them at run time.
  if (w.idle.after) {
    out.push(`idle backoff: after ${w.idle.after} wake${plural(w.idle.after)} in a row that change nothing (the repo, HEART.md, STATE.md), fires log skip-idle and run no agent until something changes or this long has passed since the last wake: ${w.idle.every % 3600 === 0 ? `${w.idle.every / 3600}h` : w.idle.every % 60 === 0 ? `${w.idle.every / 60}m` : `${w.idle.every}s`}; the agent can also ask for no wake before a time, never later than that (a "Next useful wake: not before" line in STATE.md); the wakes counted next are the most there can be`);
  }
  out.push(`${wakes} wake${plural(wakes)} in the 7 days; ${wastedText}`);
  if (ended) out.push(`${ended} fire${plural(ended)} at or after until (${w.until} ${w.workZone}), which the wrapper skips (skip-ended): the job has ended then; \`hbgen stop\` removes its entry`);
  if (w.missed.length) {
    out.push(`${w.missed.length} expected wake${w.missed.length === 1 ? '' : 's'} will not fire: the host clock runs in ${w.clockZone}, not the zone the entries are planned for; \`hbgen status\` says more`);
  }
  return out;
}

// ---- SVG ----

/** The SVG's geometry, shared with the test that finds the marks in a rendering. */
export const SVG = { left: 96, colW: 28, rowH: 26, top: 64, panelGap: 64, right: 24, markW: 3, markPad: 4 } as const;
export const COLORS = { wake: '#1f4e9e', wasted: '#e8590c', window: '#d3f0dc', dst: '#c2255c', grid: '#c8c8c8', text: '#222222', background: '#ffffff' } as const;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const num = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2));

/** The x of a fire at local `hour`:`minute` (the mark's left edge is this minus markW/2). */
export const markX = (hour: number, minute: number): number => SVG.left + (hour + minute / 60) * SVG.colW;

interface Panel {
  title: string;
  zone: string;
  rows: Row[];
  /** y of the first row. */
  y: number;
}

/** The panels (working zone, then host clock when it differs) with their rows' y. */
export function svgPanels(w: Week): Panel[] {
  const panels: Panel[] = [];
  let y = SVG.top;
  const add = (title: string, zone: string) => {
    const rows = grid(w, zone);
    panels.push({ title, zone, rows, y: y + 40 });
    y += 40 + rows.length * SVG.rowH + SVG.panelGap;
  };
  add(`Hours in ${w.workZone} (working zone)`, w.workZone);
  if (zonesDiffer(w)) add(`The same fires on the host's clock: hours in ${w.hostZone}`, w.hostZone);
  return panels;
}

export function weekSvg(w: Week): string {
  const panels = svgPanels(w);
  const width = SVG.left + 24 * SVG.colW + SVG.right;
  const last = panels[panels.length - 1]!;
  const legendY = last.y + last.rows.length * SVG.rowH + 36;
  const height = legendY + 60;
  const wakes = w.fires.filter((f) => f.wake).length;
  const gated = w.fires.filter((f) => f.skip === 'gate').length;
  const late = w.fires.filter((f) => f.skip === 'minRun').length;
  const ended = w.fires.filter((f) => f.skip === 'ended').length;
  const first = localParts(w.from, w.workZone).date;
  const o: string[] = [];
  o.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="DejaVu Sans, Verdana, sans-serif" font-size="12">`);
  o.push(`<title>hbgen plan: ${esc(w.name)}, the 7 days from ${first}</title>`);
  o.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="${COLORS.background}"/>`);
  o.push(`<text x="16" y="26" font-size="16" font-weight="bold" fill="${COLORS.text}">hbgen plan: "${esc(w.name)}" (${esc(w.scheduler)}), the 7 days from ${first}</text>`);
  o.push(`<text x="16" y="46" fill="${COLORS.text}">${wakes} wakes, ${gated} fires the gate closes${late ? `, ${late} with less than minRun left (skipped)` : ''}${w.missed.length ? `, ${w.missed.length} expected wakes that will not fire` : ''}; working zone ${esc(w.workZone)}, scheduler clock ${esc(w.clockZone)}</text>`);
  for (const p of panels) o.push(...panelSvg(p));
  o.push(...legendSvg(legendY));
  o.push('</svg>');
  return `${o.join('\n')}\n`;
}

/** One grid: its title, hour labels, rows (window, marks), grid lines, then the DST lines over them. */
function panelSvg(p: Panel): string[] {
  const o = [`<g class="panel" data-zone="${esc(p.zone)}">`];
  const over: string[] = [];
  o.push(`<text x="16" y="${p.y - 24}" font-weight="bold" fill="${COLORS.text}">${esc(p.title)}</text>`);
  for (let h = 0; h < 24; h++) o.push(`<text x="${num(SVG.left + h * SVG.colW + SVG.colW / 2)}" y="${p.y - 6}" text-anchor="middle" font-size="10" fill="${COLORS.text}">${pad2(h)}</text>`);
  p.rows.forEach((r, i) => {
    const y = p.y + i * SVG.rowH;
    o.push(`<text x="16" y="${y + SVG.rowH / 2 + 4}" fill="${COLORS.text}">${r.weekday} ${r.date}</text>`);
    r.cells.forEach((c, h) => {
      if (c.inSpan && c.window) o.push(`<rect class="window" x="${SVG.left + h * SVG.colW}" y="${y}" width="${SVG.colW}" height="${SVG.rowH}" fill="${COLORS.window}"/>`);
    });
    o.push(`<line x1="${SVG.left}" y1="${y + SVG.rowH}" x2="${SVG.left + 24 * SVG.colW}" y2="${y + SVG.rowH}" stroke="${COLORS.grid}" stroke-width="1"/>`);
    for (const f of r.fires) {
      o.push(
        `<rect class="${f.wake ? 'wake' : 'wasted'}" data-utc="${new Date(f.t).toISOString()}" x="${num(markX(f.hour, f.minute) - SVG.markW / 2)}" y="${y + SVG.markPad}" width="${SVG.markW}" height="${SVG.rowH - 2 * SVG.markPad}" fill="${f.wake ? COLORS.wake : COLORS.wasted}"/>`,
      );
    }
    for (const d of r.dst) {
      // At the wall-clock time the change happens (the time before it); drawn over the grid.
      const [hh, mm] = d.before.split(':').map(Number) as [number, number];
      const x = num(markX(hh === 0 && mm === 0 ? 24 : hh, mm));
      over.push(`<line class="dst" x1="${x}" y1="${y - 2}" x2="${x}" y2="${y + SVG.rowH + 2}" stroke="${COLORS.dst}" stroke-width="2" stroke-dasharray="4 2"/>`);
      over.push(`<text x="${SVG.left + 24 * SVG.colW + 4}" y="${y + SVG.rowH / 2 + 4}" font-size="10" fill="${COLORS.dst}">DST</text>`);
    }
  });
  for (let h = 0; h <= 24; h++) o.push(`<line x1="${SVG.left + h * SVG.colW}" y1="${p.y}" x2="${SVG.left + h * SVG.colW}" y2="${p.y + p.rows.length * SVG.rowH}" stroke="${COLORS.grid}" stroke-width="${h % 6 === 0 ? 1 : 0.5}"/>`);
  o.push(...over);
  const notes = p.rows.flatMap((r) => r.dst.map((d) => `${r.weekday} ${r.date}: ${p.zone} ${dstText(d)}`));
  notes.forEach((n, i) => o.push(`<text x="${SVG.left}" y="${p.y + p.rows.length * SVG.rowH + 16 + i * 14}" font-size="11" fill="${COLORS.dst}">${esc(n)}</text>`));
  o.push('</g>');
  return o;
}

function legendSvg(legendY: number): string[] {
  const items: [string, string, string][] = [
    ['wake', COLORS.wake, 'a wake'],
    ['wasted', COLORS.wasted, 'a fire that wakes no agent'],
    ['window', COLORS.window, 'working hours'],
    ['dst', COLORS.dst, 'clock change (DST)'],
  ];
  const o = [`<g class="legend">`];
  items.forEach(([k, color, label], i) => {
    const x = 16 + i * 190;
    if (k === 'window') o.push(`<rect x="${x}" y="${legendY - 12}" width="16" height="16" fill="${color}" stroke="${COLORS.grid}"/>`);
    else if (k === 'dst') o.push(`<line x1="${x + 8}" y1="${legendY - 14}" x2="${x + 8}" y2="${legendY + 6}" stroke="${color}" stroke-width="2" stroke-dasharray="4 2"/>`);
    else o.push(`<rect x="${x + 6}" y="${legendY - 14}" width="${SVG.markW + 1}" height="20" fill="${color}"/>`);
    o.push(`<text x="${x + 22}" y="${legendY + 1}" fill="${COLORS.text}">${esc(label)}</text>`);
  });
  o.push(`<text x="16" y="${legendY + 30}" font-size="10" fill="${COLORS.text}">Marks at the minute each fire happens; rows are local dates of the zone named above each grid.</text>`);
  o.push('</g>');
  return o;
}
