// launchd artifacts of every fixture spec (scheduler overridden to launchd), read by two
// independent plist parsers: Python's plistlib (expat) and libplist's plistutil (XML ->
// binary, read back by plistlib's binary reader). Their dicts must agree with each other
// and with what launchd.plist(5) and hbgen's launchd agent promise, and StartCalendarInterval,
// expanded by a small evaluator of its documented semantics (a missing key is a wildcard;
// Weekday 0 and 7 are Sunday), must fire at exactly the expected wakes when the host
// clock is the working zone, and at a superset of them when it is not.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { expectedEntry } from './helpers/entry.ts';
import { renderNow } from './helpers/render.ts';
import { fireMinute } from '../src/schedule.ts';
import type { Spec } from '../src/spec.ts';
import { epochToLocal, expectedWakes, loadFixtures, plistOracles, stateDirOf, tmp } from './helpers/tools.ts';

type Interval = Partial<Record<'Minute' | 'Hour' | 'Day' | 'Weekday' | 'Month', number>>;
interface Agent {
  Label: string;
  ProgramArguments: string[];
  StartCalendarInterval: Interval[] | Interval;
  StandardOutPath?: string;
  StandardErrorPath?: string;
  [k: string]: unknown;
}

const fixtures = loadFixtures();
const KEYS = ['Minute', 'Hour', 'Day', 'Weekday', 'Month'] as const;
const RANGE: Record<(typeof KEYS)[number], [number, number]> = { Minute: [0, 59], Hour: [0, 23], Day: [1, 31], Weekday: [0, 7], Month: [1, 12] };

function renderPlist(spec: Spec): { path: string; content: string; data: Agent; wrapper: string } {
  const r = renderNow(spec, { scheduler: 'launchd' });
  assert.equal(r.errors, []);
  const plists = r.files.filter((f) => f.path.endsWith('.plist'));
  assert.is(plists.length, 1, 'one plist');
  const f = plists[0]!;
  const dir = tmp('hbgen-ld');
  const file = join(dir, 'agent.plist');
  writeFileSync(file, f.content);
  const [o] = plistOracles([file]);
  assert.not.ok(o!.error, o!.error);
  assert.equal(o!.plistutil, o!.plistlib, 'libplist and plistlib read the same dict');
  assert.is(f.mode, 0o644);
  return { path: f.path, content: f.content, data: o!.plistlib as Agent, wrapper: r.files.find((x) => x.path === 'heartbeat.sh')!.content };
}

/** Does one StartCalendarInterval dict match a host-local moment? */
function matches(i: Interval, t: { wd: number; h: number; m: number; d: number; mo: number }): boolean {
  return (
    (i.Minute === undefined || i.Minute === t.m) &&
    (i.Hour === undefined || i.Hour === t.h) &&
    (i.Day === undefined || i.Day === t.d) &&
    (i.Month === undefined || i.Month === t.mo) &&
    (i.Weekday === undefined || i.Weekday === t.wd || (i.Weekday === 7 && t.wd === 0))
  );
}

/** Every minute in [from, to) at which launchd would start the job, by host wall clock. */
function launchdFires(intervals: Interval[], hostZone: string, from: number, to: number): { fires: number[]; doubled: number[] } {
  const epochs: number[] = [];
  for (let e = from; e < to; e += 60) epochs.push(e);
  const locals = epochToLocal(hostZone, epochs, '%w %H %M %d %m');
  const fires: number[] = [];
  const doubled: number[] = [];
  locals.forEach((l, k) => {
    const [wd, h, m, d, mo] = l.split(' ').map(Number) as [number, number, number, number, number];
    const n = intervals.filter((i) => matches(i, { wd, h, m, d, mo })).length;
    if (n > 0) fires.push(epochs[k]!);
    if (n > 1) doubled.push(epochs[k]!);
  });
  return { fires, doubled };
}

const iso = (xs: number[]) => xs.map((e) => new Date(e * 1000).toISOString().slice(0, 16));

for (const fx of fixtures) {
  test(`${fx.file}: plistlib and plistutil read the LaunchAgent the contract describes`, () => {
    const { path, content, data, wrapper } = renderPlist(fx.spec);
    const label = `dev.hbgen.${fx.spec.name}`;
    const state = stateDirOf(fx.spec);
    assert.is(path, `host/${label}.plist`);
    assert.is(data.Label, label);
    // The entry that checks the wrapper's SHA-256 (the real sha256sum's) and runs it.
    assert.equal(data.ProgramArguments, expectedEntry(fx.spec.name, state, wrapper));
    for (const k of ['StandardOutPath', 'StandardErrorPath'] as const) {
      assert.type(data[k], 'string');
      assert.ok(data[k]!.startsWith(`${state}/`), `${k} inside the state dir`);
    }
    assert.not.ok('EnvironmentVariables' in data, 'no environment (secrets) in a world-readable plist');
    assert.not.ok('Program' in data, 'argv only, through ProgramArguments');
    // The first comment of the file says who generated it and that it is not to be edited.
    const comment = /<!--([\s\S]*?)-->/.exec(content);
    assert.ok(comment && comment.index < content.indexOf('<plist'), 'comment before <plist>');
    assert.match(comment![1]!, new RegExp(`hbgen.*"${fx.spec.name}"`));
    const sci = Array.isArray(data.StartCalendarInterval) ? data.StartCalendarInterval : [data.StartCalendarInterval];
    assert.ok(sci.length > 0);
    for (const i of sci) {
      for (const [k, v] of Object.entries(i)) {
        const r = RANGE[k as (typeof KEYS)[number]];
        assert.ok(r, `unknown StartCalendarInterval key ${k}`);
        assert.ok(Number.isInteger(v) && v >= r[0] && v <= r[1], `${k}=${v} out of range`);
      }
      assert.ok(i.Minute !== undefined, 'Minute always set (a missing Minute fires every minute)');
      assert.ok(i.Day === undefined && i.Month === undefined, 'no Day/Month: weekly pattern only');
    }
  });

  test(`${fx.file}: StartCalendarInterval fires at the expected wakes (host clock ${fx.spec.schedule.hostTimezone ?? fx.spec.schedule.hours.timezone})`, () => {
    const { data } = renderPlist(fx.spec);
    const sci = Array.isArray(data.StartCalendarInterval) ? data.StartCalendarInterval : [data.StartCalendarInterval];
    const host = fx.spec.schedule.hostTimezone ?? fx.spec.schedule.hours.timezone;
    const exact = host === fx.spec.schedule.hours.timezone;
    const minute = fx.spec.schedule.minute ?? fireMinute(fx.spec);
    // A winter and a summer week, and the EU spring-forward week.
    for (const week of ['2027-01-04', '2027-03-22', '2027-07-05']) {
      const { wakes, from, to } = expectedWakes(fx.spec, minute, week);
      const { fires, doubled } = launchdFires(sci, host, from, to);
      assert.equal(iso(doubled), [], `${week}: a minute matched by two dicts`);
      if (exact) {
        assert.equal(iso(fires), iso(wakes), `week of ${week}: launchd fires (UTC) vs expected`);
      } else {
        const set = new Set(fires);
        const missed = wakes.filter((w) => !set.has(w));
        assert.equal(iso(missed), [], `week of ${week}: expected wakes the widened host entries miss`);
        assert.ok(fires.length >= wakes.length);
      }
    }
  });
}

test('hostile.json: &, <, >, quotes, ]]> and unicode in repo and stateDir survive XML escaping', () => {
  const fx = fixtures.find((f) => f.file === 'hostile.json')!;
  const { content, data } = renderPlist(fx.spec);
  const wrapper = `${stateDirOf(fx.spec)}/heartbeat.sh`;
  for (const c of ['&', '<', '>', ']]>', '"', "'", 'ünï ✓ 🎉', '%d', '$HOME', '\\']) assert.ok(wrapper.includes(c), `fixture lacks ${c}`);
  assert.is(data.ProgramArguments[4], wrapper);
  assert.is(data.ProgramArguments.length, 5);
  assert.not.match(content, /]]>/, 'a raw "]]>" in character data is not well-formed XML');
  assert.not.match(content.replace(/<!--[\s\S]*?-->/g, ''), /&(?!(amp|lt|gt|quot|apos);)/, 'bare & outside entities');
});

// The wake's bounds (spec limits) as launchd sets them (rlimits of the job), read back by both parsers.
test('the plist carries the bounds: HardResourceLimits and SoftResourceLimits, NumberOfProcesses and (for a size) ResidentSetSize; none with "limits": false', () => {
  const base = fixtures[0]!.spec;
  const both = (d: Agent) => [d.HardResourceLimits, d.SoftResourceLimits];
  assert.equal(both(renderPlist({ ...base, limits: undefined }).data), [{ NumberOfProcesses: 4096 }, { NumberOfProcesses: 4096 }], 'the default: a share of RAM is no size a plist can hold');
  const sized = renderPlist({ ...base, limits: { tasks: 300, memory: '2G' } }).data;
  assert.equal(both(sized), [{ NumberOfProcesses: 300, ResidentSetSize: 2147483648 }, { NumberOfProcesses: 300, ResidentSetSize: 2147483648 }]);
  const off = renderPlist({ ...base, limits: false }).data;
  assert.not.ok('HardResourceLimits' in off || 'SoftResourceLimits' in off);
});

test.run();
