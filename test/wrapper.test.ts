// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// heartbeat.sh behaviour (one bounded wake of the agent) under every shell as /bin/sh, with a PATH that
// has flock/timeout/setsid and one that has none of them.
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JUNK_ENV, PATHS, agentShell, SHELLS, makeCase, parseStat, run, shell, shellcheck, sleep, survivors, waitFor, writeWrapper, lagProbe, pidIn, withinPromise } from './helpers/wrapper.ts';
import { renderNow } from './helpers/render.ts';
import { validateSpec } from '../src/spec.ts';

const TOOLSETS = [
  ['full', PATHS.full],
  ['bare', PATHS.bare],
] as const;

const HOSTILE_ARGS = [
  "it's",
  '"double"',
  '$HOME ${PATH} $(id) `id`',
  '%s %d %%',
  'back\\slash\\',
  'two  spaces ',
  '-n',
  '--',
  '-e',
  'ünï ✓ 日本',
  '',
  '*',
  '; rm -rf / &&',
];
const HOSTILE_PROMPT = "Read HEART.md.\nLine two with 'quotes' and \"dq\", $VAR, `cmd`, \\n, %s.\nEOF\n-last line-";

for (const sh of SHELLS) {
  for (const [tname, path] of TOOLSETS) {
    test(`${sh.name} / ${tname}: exact env, argv byte for byte, stdin, cwd, fds, context block, quiet`, async () => {
      const c = makeCase({
        path,
        env: { WEIRD: "a'b \"c\" $x `id` %s \\ ü", LANG: 'C.UTF-8' },
        spec: { agent: { args: HOSTILE_ARGS, prompt: HOSTILE_PROMPT } },
      });
      const before = Math.floor(Date.now() / 1000);
      const r = await run(c, sh);
      assert.is(r.code, 0, r.stderr + c.log());
      assert.is(r.stderr, '');
      assert.equal(c.outcomes(), ['start wake 1', 'quiet']);
      const argv = c.argv();
      assert.is(argv[0], c.bin);
      assert.equal(argv.slice(1, -1), HOSTILE_ARGS);
      const last = argv[argv.length - 1]!;
      assert.ok(last.startsWith(`${HOSTILE_PROMPT}\n\n---\nhbgen wake 1 of tst\nLocal time: `), JSON.stringify(last));
      const m = /\nLocal time: (\d{4}-\d\d-\d\d \d\d:\d\d) (CES?T) \(Europe\/Berlin\)\nDeadline: (\S+) \(2s from start\)\nWorking window: round the clock\nHEART.md: not found in the repo\nShared folder: no\nAllowance: 0 minutes left in this wake \(scale down as it tightens\)$/.exec(last);
      assert.ok(m, JSON.stringify(last));
      const env = c.env();
      const dl = env.find((e) => e.startsWith('HBGEN_DEADLINE='))!;
      const deadline = Number(dl.split('=')[1]);
      assert.ok(deadline >= before + 2 && deadline <= before + 4, `${deadline} vs ${before}`);
      assert.is(m![3], new Date(deadline * 1000).toISOString().replace(/\.\d+Z$/, 'Z'));
      assert.equal(
        env,
        [
          `HBGEN_DEADLINE=${deadline}`,
          'HBGEN_NAME=tst',
          `HBGEN_REPO=${c.repo}`,
          'HBGEN_WAKE=1',
          `HBTEST_DIR=${c.rec}`,
          `HOME=${c.dir}`,
          'LANG=C.UTF-8',
          `PATH=${path}`,
          "WEIRD=a'b \"c\" $x `id` %s \\ ü",
        ].sort(),
      );
      assert.is(readFileSync(join(c.rec, 'stdin'), 'utf8').trim(), '/dev/null');
      assert.is(readFileSync(join(c.rec, 'pwd'), 'utf8').trim(), c.repo);
      const fds = readFileSync(join(c.rec, 'fds'), 'utf8');
      assert.not.match(fds, /heartbeat\.lock/);
      // The agent ran in a process group of its own (timeout/setsid/job control) or, where
      // the shell cannot make one, in the wrapper's group (whose other members the wrapper
      // then finds with ps). Never in the caller's.
      const st = parseStat(readFileSync(join(c.rec, 'stat'), 'utf8'));
      assert.ok(st.sid === r.pid || st.sid === st.pid || st.pgrp === r.pid, JSON.stringify(st));
    });
  }

  test(`${sh.name}: ok when a repo file changes, fail N, wake counter, helper killed`, async () => {
    for (const [, path] of TOOLSETS) {
      // A state folder inside the repo (allowed, not the default): change detection skips it.
      const c = makeCase({ path, spec: { stateDir: '.agent-platform' } });
      c.behave('printf x >>"$HBGEN_REPO/README"\n');
      let r = await run(c, sh);
      assert.is(r.code, 0, c.log());
      c.behave('mkdir "$HBGEN_REPO/sub"; rm "$HBGEN_REPO/README"\n');
      r = await run(c, sh);
      assert.is(r.code, 0, c.log());
      c.behave('exit 7\n');
      r = await run(c, sh);
      assert.is(r.code, 7);
      // A file written only inside the state folder is no work done.
      c.behave('printf x >"$HBGEN_REPO/.agent-platform/scratch"\nsleep 300 & printf "%s" $! >"$HBTEST_DIR/helper"\n');
      r = await run(c, sh);
      assert.is(r.code, 0, c.log());
      assert.equal(c.outcomes(), ['start wake 1', 'ok', 'start wake 2', 'ok', 'start wake 3', 'fail 7', 'start wake 4', 'quiet']);
      assert.is(readFileSync(join(c.state, 'wakes'), 'utf8').trim(), '4');
      const helper = await pidIn(join(c.rec, 'helper'));
      await waitFor(() => !existsSync(`/proc/${helper}`) || readFileSync(`/proc/${helper}/stat`, 'utf8').includes(') Z '), 3000, 'helper gone');
      assert.equal(survivors([r.pid]), []);
    }
  });

  test(`${sh.name}: setup faults exit 78 with one stderr line, agent not run`, async () => {
    const faults: [string, (c: ReturnType<typeof makeCase>) => void, RegExp, boolean][] = [
      ['repo missing', (c) => rmSync(c.repo, { recursive: true }), /repo .* is missing/, false],
      ['bin missing', (c) => rmSync(c.bin), /agent binary .* missing or not executable/, true],
      ['bin not executable', (c) => chmodSync(c.bin, 0o644), /agent binary .* missing or not executable/, true],
      ['log is a folder', (c) => mkdirSync(join(c.state, 'runtime.log')), /log .* is not a plain file/, false],
      ['log is a symlink', (c) => symlinkSync(join(c.dir, 'elsewhere'), join(c.state, 'runtime.log')), /log .* is a symbolic link/, false],
    ];
    for (const [what, breakIt, msg, logged] of faults) {
      const c = makeCase();
      const script = join(c.dir, 'heartbeat.sh');
      writeWrapper(script, c.files);
      breakIt(c);
      const r = await run(c, sh, { script });
      assert.is(r.code, 78, `${what}: ${r.stderr}`);
      const lines = r.stderr.split('\n').filter(Boolean);
      assert.is(lines.length, 1, `${what}: ${r.stderr}`);
      assert.match(lines[0]!, msg);
      assert.match(lines[0]!, /^hbgen tst: /);
      assert.equal(c.runs(), [], what);
      if (logged) assert.match(c.log(), /hbgen tst error agent binary/);
      if (what === 'log is a symlink') assert.not.ok(existsSync(join(c.dir, 'elsewhere')));
    }
    // state folder that cannot be created (its parent is a file), and one that is a link
    const c1 = makeCase({ install: false, spec: { stateDir: 'file/state' } });
    writeFileSync(join(c1.repo, 'file'), '');
    const state2 = join(c1.dir, 'outside');
    mkdirSync(state2);
    writeWrapper(join(state2, 'heartbeat.sh'), c1.files);
    const r1 = await run(c1, sh, { script: join(state2, 'heartbeat.sh') });
    assert.is(r1.code, 78);
    assert.is(r1.stderr.trim().split('\n').length, 1);
    assert.match(r1.stderr, /cannot create the state folder/);
    const c2 = makeCase({ install: false, spec: { stateDir: 'st' } });
    const real = join(c2.dir, 'real');
    mkdirSync(real);
    symlinkSync(real, join(c2.repo, 'st'));
    writeWrapper(join(real, 'heartbeat.sh'), c2.files);
    const r2 = await run(c2, sh, { script: join(real, 'heartbeat.sh') });
    assert.is(r2.code, 78);
    assert.match(r2.stderr, /is a symbolic link/);
    assert.equal(c2.runs(), []);
  });

  test(`${sh.name}: gates: window closed, window fault, gate argv; skips never counted`, async () => {
    // Closed: a one-minute window twelve hours away.
    const h = (new Date().getUTCHours() + 12) % 24;
    const hh = String(h).padStart(2, '0');
    const h2 = String(h + 1).padStart(2, '0');
    const closed = makeCase({ spec: { schedule: { hours: { start: `${hh}:00`, end: `${h2}:00`, timezone: 'UTC' } } } });
    let r = await run(closed, sh);
    assert.is(r.code, 0);
    assert.equal(closed.outcomes(), ['skip-window']);
    assert.equal(closed.runs(), []);
    assert.not.ok(existsSync(join(closed.state, 'wakes')));
    // Fault: the zone file cannot be found (TZDIR of the spec env points to an empty folder).
    const fault = makeCase({ env: { TZDIR: tmpdir() + '/hbgen-no-zones' } });
    r = await run(fault, sh);
    assert.is(r.code, 78);
    assert.match(fault.outcomes()[0]!, /^error window\.sh failed \(exit 2\)/);
    assert.equal(fault.runs(), []);
    assert.match(r.stderr, /time zone Europe\/Berlin not found/);
    // Gate argv: runs in the clean env, stdin /dev/null; non-zero skips, uncounted.
    const gateDir = join(tmpdir(), `hbgen-gate-${process.pid}-${sh.name.replace(/\W/g, '')}`);
    mkdirSync(gateDir, { recursive: true });
    const gate = join(gateDir, 'gate=x');
    writeFileSync(gate, `#!${agentShell}\ncat /proc/$$/environ >"$HBTEST_DIR/gate-env"\nprintf "%s\\000" "$@" >"$HBTEST_DIR/gate-argv"\nexit "$(cat "$HBTEST_DIR/gate-rc" 2>/dev/null || echo 0)"\n`, { mode: 0o755 });
    const g = makeCase({ spec: { gate: [gate, "it's", '$x'] } });
    writeFileSync(join(g.rec, 'gate-rc'), '3');
    r = await run(g, sh);
    assert.is(r.code, 0);
    assert.equal(g.outcomes(), ['skip-gate exit 3']);
    assert.equal(readFileSync(join(g.rec, 'gate-argv'), 'utf8').split('\0').slice(0, -1), ["it's", '$x']);
    const genv = readFileSync(join(g.rec, 'gate-env'), 'utf8').split('\0').filter(Boolean).sort();
    assert.equal(genv, [`HBGEN_NAME=tst`, `HBGEN_REPO=${g.repo}`, `HBTEST_DIR=${g.rec}`, `HOME=${g.dir}`, `PATH=${PATHS.full}`]);
    writeFileSync(join(g.rec, 'gate-rc'), '0');
    r = await run(g, sh);
    assert.is(r.code, 0);
    assert.equal(g.outcomes(), ['skip-gate exit 3', 'start wake 1', 'quiet']);
    rmSync(gateDir, { recursive: true, force: true });
  });

  test(`${sh.name}: --now skips only the working hours; --smoke runs no agent and shows the lock`, async () => {
    const h = (new Date().getUTCHours() + 12) % 24;
    const hh = String(h).padStart(2, '0');
    const h2 = String(h + 1).padStart(2, '0');
    const hours = { start: `${hh}:00`, end: `${h2}:00`, timezone: 'UTC' };
    const c = makeCase({ spec: { schedule: { hours }, cap: 5 } });
    let r = await run(c, sh, { args: ['--now'] });
    assert.is(r.code, 0, r.stderr);
    assert.equal(c.outcomes(), ['start wake 1 by hand', 'quiet']);
    assert.is(c.runs().length, 1);
    // Smoke: window closed and a failing gate are ignored; no wake counted, no agent run.
    const gateDir = join(tmpdir(), `hbgen-smoke-${process.pid}-${sh.name.replace(/\W/g, '')}`);
    mkdirSync(gateDir, { recursive: true });
    const s = makeCase({ spec: { schedule: { hours }, gate: ['/bin/false'] } });
    const [a, b] = await Promise.all([run(s, sh, { args: ['--smoke'] }), sleep(300).then(() => run(s, sh, { args: ['--smoke'] }))]);
    assert.is(a.code, 0, a.stderr);
    assert.is(b.code, 0, b.stderr);
    assert.equal(s.outcomes().sort(), ['quiet smoke', 'skip-locked smoke', 'start smoke']);
    assert.equal(s.runs(), []);
    assert.not.ok(existsSync(join(s.state, 'wakes')));
    r = await run(s, sh, { args: ['--bogus'] });
    assert.is(r.code, 64);
    assert.is(r.stderr, 'heartbeat.sh: unknown arguments; run it with no argument, --now or --smoke\n');
    rmSync(gateDir, { recursive: true, force: true });
  });

  test(`${sh.name}: cap counts only wakes that ran`, async () => {
    const c = makeCase({ spec: { cap: 2 } });
    for (let i = 0; i < 3; i++) assert.is((await run(c, sh)).code, 0);
    assert.equal(c.outcomes(), ['start wake 1', 'quiet', 'start wake 2', 'quiet', 'skip-cap 2 of 2 wakes done']);
    assert.is(c.runs().length, 2);
  });

  test(`${sh.name}: no temporary file is written through a link planted in the state folder`, async () => {
    const c = makeCase();
    const victim = join(c.dir, 'victim');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, join(c.state, 'wakes.tmp'));
    writeFileSync(join(c.repo, 'HEART.md'), 'plan\n');
    symlinkSync(victim, join(c.state, 'heart.sum.tmp'));
    const r = await run(c, sh);
    assert.is(r.code, 0, r.stderr + c.log());
    assert.is(readFileSync(victim, 'utf8'), 'precious\n');
    assert.is(readFileSync(join(c.state, 'wakes'), 'utf8'), '1\n');
    assert.equal(c.outcomes(), ['start wake 1', 'quiet']);
  });

  // Run as root, so chmod 000 would still read: a folder, a FIFO, an empty file and garbage
  // stand for a counter that exists but cannot be read. Each is an error, never a reset.
  test(`${sh.name}: an unreadable or corrupt wake counter is an error, never a reset`, async () => {
    const kinds: [string, (p: string) => void][] = [
      ['folder', (p) => mkdirSync(p)],
      ['fifo', (p) => spawnSync('mkfifo', [p])],
      ['empty', (p) => writeFileSync(p, '')],
      ['garbage', (p) => writeFileSync(p, '3x\n')],
    ];
    for (const [kind, plant] of kinds) {
      const c = makeCase({ spec: { cap: 5 } });
      const wakes = join(c.state, 'wakes');
      plant(wakes);
      const r = await run(c, sh);
      assert.is(r.code, 78, `${kind}: ${r.stderr}${c.log()}`);
      assert.equal(c.outcomes(), [`error the wake counter ${wakes} is unreadable or does not hold a number; delete it to start counting again`], kind);
      assert.equal(c.runs(), [], kind);
      assert.not.ok(existsSync(`${wakes}.tmp`), kind);
    }
  });
}

// Signals to the wrapper mid-run: the agent's group gets TERM, the lock is released, one
// `fail 128+n signal NAME` line, exit 128+n. One signal per shell and tool set, rotating.
const SIGS: [NodeJS.Signals, number][] = [
  ['SIGTERM', 143],
  ['SIGINT', 130],
  ['SIGHUP', 129],
];
SHELLS.forEach((sh, i) => {
  for (const [tname, path] of [...TOOLSETS, ['setsid', PATHS.setsid] as const]) {
    const [sig, code] = SIGS[(i + tname.length) % 3]!;
    test(`${sh.name} / ${tname}: ${sig} to the wrapper mid-run`, async () => {
      const c = makeCase({ path, spec: { timeout: '20s', killAfter: '2s' } });
      c.behave('sleep 300 & printf "%s" $! >"$HBTEST_DIR/helper"\nsleep 30\n');
      const started = Date.now();
      const probe = lagProbe();
      let pid = 0;
      const p = run(c, sh, { onSpawn: (x) => (pid = x) });
      await pidIn(join(c.rec, 'helper'));
      process.kill(pid, sig);
      const r = await p;
      assert.is(r.code, code, c.log());
      withinPromise(Date.now() - started, 5000, await probe.stop(), `${sig} to the wrapper until its exit`);
      const name = sig.slice(3);
      assert.equal(c.outcomes(), ['start wake 1', `fail ${code} signal ${name}`]);
      const agent = await pidIn(join(c.rec, 'started'));
      const helper = await pidIn(join(c.rec, 'helper'));
      await sleep(100);
      if (sh.name === 'yash') {
        // Known limit: under yash a watchdog timer started a moment before the agent died
        // can miss its TERM and end by itself within killAfter (it holds no lock fd and no
        // stdout). The agent and its helpers must be gone at once all the same.
        assert.equal(survivors([agent, helper]).filter((p) => p.pgrp !== r.pid), []);
        await waitFor(() => survivors([r.pid, agent, helper]).length === 0, 3000, 'yash timer gone within killAfter');
      } else {
        assert.equal(survivors([r.pid, agent, helper]), []);
      }
      // lock released: the next wake runs
      c.behave('');
      const r2 = await run(c, sh);
      assert.is(r2.code, 0);
      assert.equal(c.outcomes().slice(2), ['start wake 2', 'quiet']);
    });
  }
});

// The context block's run-time lines: minutes left in the working window (local wall
// clock, window crossing midnight or not, a wake by hand outside it), HEART.md changes
// (missing, first seen, unchanged, changed with the same size), and the model tiers.
const lastArg = (c: ReturnType<typeof makeCase>) => c.argv().at(-1)!;
const line = (c: ReturnType<typeof makeCase>, key: string) => lastArg(c).split('\n').find((l) => l.startsWith(`${key}: `))?.slice(key.length + 2);
for (const sh of SHELLS) {
  test(`${sh.name} / bare: context block: window minutes left, HEART.md changes, model tiers`, async () => {
    const hhmm = (m: number) => `${String(Math.floor(m / 60) % 24).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
    const nowMin = () => {
      const d = new Date();
      return d.getUTCHours() * 60 + d.getUTCMinutes();
    };
    const h = new Date().getUTCHours();
    // Start an hour before the current hour; end two hours after it (crossing midnight or
    // not, depending on the hour), or two hours before it (a 23-hour window).
    for (const endOffset of [2, -2]) {
      const start = ((h + 23) % 24) * 60;
      const end = (((h + endOffset) % 24) + 24) % 24 * 60;
      const c = makeCase({
        path: PATHS.bare,
        spec: { schedule: { hours: { start: hhmm(start), end: hhmm(end), timezone: 'UTC' } }, agent: { models: { fast: 'haiku', general: 'sonnet', strong: "opus 'x' $y" } } },
      });
      const before = nowMin();
      const r = await run(c, sh);
      const after = nowMin();
      assert.is(r.code, 0, r.stderr + c.log());
      const left = /^(\d+) minutes left \(it ends at (\d\d:\d\d)\)$/.exec(line(c, 'Working window') ?? '');
      assert.ok(left, lastArg(c));
      assert.is(left![2], hhmm(end));
      const expect = [before, after].map((n) => (((end - n) % 1440) + 1440) % 1440 || 1440);
      assert.ok(expect.includes(Number(left![1])), `${left![1]} not in ${expect} (window ${hhmm(start)}-${hhmm(end)})`);
      assert.ok(lastArg(c).endsWith("\nShared folder: no\nModel tiers: fast=haiku, general=sonnet, strong=opus 'x' $y (route each subagent to the cheapest tier that can do its job)\nAllowance: 0 minutes left in this wake (scale down as it tightens)"), lastArg(c));
    }
    // A wake by hand outside the window; HEART.md over four wakes.
    const closed = makeCase({ path: PATHS.bare, spec: { schedule: { hours: { start: hhmm(((h + 12) % 24) * 60), end: hhmm(((h + 13) % 24) * 60), timezone: 'UTC' } } } });
    const heart = join(closed.repo, 'HEART.md');
    const seen: (string | undefined)[] = [];
    for (const step of [() => {}, () => writeFileSync(heart, '# Mission\nabc\n'), () => {}, () => writeFileSync(heart, '# Mission\nabd\n')]) {
      step();
      const r = await run(closed, sh, { args: ['--now'] });
      assert.is(r.code, 0, r.stderr + closed.log());
      assert.is(line(closed, 'Working window'), 'outside it now (a wake by hand)');
      assert.not.match(lastArg(closed), /Model tiers/);
      seen.push(line(closed, 'HEART.md'));
    }
    assert.equal(seen, ['not found in the repo', 'changed since the previous wake', 'unchanged since the previous wake', 'changed since the previous wake']);
    // The first wake that finds HEART.md with no earlier record says so.
    const fresh = makeCase({ path: PATHS.bare });
    writeFileSync(join(fresh.repo, 'HEART.md'), 'x\n');
    assert.is((await run(fresh, sh)).code, 0);
    assert.is(line(fresh, 'HEART.md'), 'no earlier wake to compare with');
    assert.is(readFileSync(join(fresh.state, 'heart.sum'), 'utf8'), `${createHash('sha256').update('x\n').digest('hex')}\n`);
  });
}

test('an agent path with "=" is started as a program, not read as an assignment', async () => {
  for (const sh of [shell('dash'), shell('posh'), shell('bash --posix')]) {
    const c = makeCase({ binName: 'a=b/agent' });
    const r = await run(c, sh);
    assert.is(r.code, 0, c.log());
    assert.is(c.argv()[0], c.bin);
    assert.equal(c.outcomes(), ['start wake 1', 'quiet']);
  }
});

test('shared folder: the prompt names claim.sh by absolute path', async () => {
  const c = makeCase({ spec: { shared: true } });
  const r = await run(c, shell('dash'));
  assert.is(r.code, 0);
  assert.ok(c.argv().at(-1)!.endsWith(`\nShared folder: yes; claim chunks with ${c.state}/claim.sh take NAME\nAllowance: 0 minutes left in this wake (scale down as it tightens)`));
});

test('caller env cannot skip the re-exec into the clean env', async () => {
  const c = makeCase();
  const r = await run(c, shell('dash'), { env: { ...JUNK_ENV, HBGEN_REEXEC: '0' } });
  assert.is(r.code, 0);
  assert.not.ok(c.env().some((e) => e.startsWith('ANTHROPIC') || e.startsWith('JUNK') || e.startsWith('HBGEN_REEXEC')));
});

test('shellcheck -s sh is clean on every rendered script', () => {
  const dir = join(tmpdir(), `hbgen-sc-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const variants: Record<string, unknown>[] = [
    {},
    { shared: true, gate: ['/usr/bin/on=ac', '-x'], lock: 'mkdir', cap: 3, stateDir: '/var/tmp/st[1]*' },
    { agent: { harness: 'claude-code', bin: '/opt/a=b/claude', model: 'sonnet', prompt: "it's\n$x" }, lock: 'flock' },
    { schedule: { scheduler: 'cron', every: '1h', hours: { start: '22:00', end: '02:00', timezone: 'America/Argentina/Buenos_Aires', days: ['fri', 'sat'] } } },
  ];
  let n = 0;
  for (const v of variants) {
    const base = JSON.parse(readFileSync('fixtures/specs/example.json', 'utf8'));
    const spec = validateSpec(deepMerge(base, v));
    assert.ok(spec.spec, JSON.stringify(spec.errors));
    for (const f of renderNow(spec.spec!).files) {
      if (!f.path.endsWith('.sh')) continue;
      const p = join(dir, `${n++}-${f.path}`);
      writeFileSync(p, f.content);
      const sc = shellcheck(p);
      assert.ok(sc.ok, `${f.path}: ${sc.out}`);
      assert.not.match(f.content, /[^\n\t\x20-\x7e]/, `${f.path} has a non-ASCII byte (yash in the C locale refuses them)`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const cur = out[k];
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && cur && typeof cur === 'object' ? deepMerge(cur as Record<string, unknown>, v as Record<string, unknown>) : v;
  }
  return out;
}

test.run();
