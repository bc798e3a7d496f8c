// Real-tool oracles for the scheduler tests (escape, systemd, launchd, cron): every
// helper here asks an installed program (sh, systemd, crontab, date, plistutil, Python's
// plistlib) rather than re-implementing it. The only hand-written model is the
// expected-wake calculator at the bottom, which is deliberately independent of
// src/schedule.ts: it walks wall-clock minutes the way docs/spec.md "Working hours, per scheduler" words the rule.
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { accessSync, chmodSync, constants, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateSpec, type Spec } from '../../src/spec.ts';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout as bytes. */
  out: Buffer;
}

/** Run a program without a shell; never throws on a non-zero exit. */
export function run(cmd: string, args: readonly string[], opts: SpawnSyncOptions & { input?: string | Buffer } = {}): RunResult {
  const input = typeof opts.input === 'string' ? Buffer.from(opts.input) : opts.input;
  const r = spawnSync(cmd, args, { timeout: 60_000, maxBuffer: 64 << 20, ...opts, input, encoding: 'buffer' });
  if (r.error) throw r.error;
  const out = r.stdout as Buffer;
  return { code: r.status, stdout: out.toString('utf8'), stderr: (r.stderr as Buffer).toString('utf8'), out };
}

const made: string[] = [];
process.on('exit', () => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A fresh temporary folder, readable by other users (the scratch cron user, nobody), removed at exit. */
export function tmp(prefix = 'hbgen-t'): string {
  const d = mkdtempSync(join(tmpdir(), `${prefix}.`));
  chmodSync(d, 0o755);
  made.push(d);
  return d;
}

/** The shells the wrapper promises to run under (docs/files.md, "What the wrapper guarantees"). */
export const SHELLS: { name: string; argv: string[] }[] = [
  { name: 'dash', argv: ['dash'] },
  { name: 'bash --posix', argv: ['bash', '--posix'] },
  { name: 'busybox sh', argv: ['busybox', 'sh'] },
  { name: 'mksh', argv: ['mksh'] },
  { name: 'posh', argv: ['posh'] },
  { name: 'yash', argv: ['yash'] },
];

let shellcheckBin = '';

/**
 * The system's shellcheck, which every lint in the tests runs: the first one on PATH
 * outside node_modules, else /usr/bin/shellcheck. npm scripts put node_modules/.bin first
 * on PATH, and an npm package named shellcheck there would try to download a binary.
 * Without one, the test fails with one line saying what to install.
 */
export function shellcheckPath(): string {
  if (shellcheckBin) return shellcheckBin;
  const dirs = (process.env.PATH ?? '').split(':').filter((d) => d.startsWith('/') && !d.split('/').includes('node_modules'));
  for (const d of [...dirs, '/usr/bin']) {
    const p = join(d, 'shellcheck');
    try {
      if (!statSync(p).isFile()) continue;
      accessSync(p, constants.X_OK);
      return (shellcheckBin = p);
    } catch {}
  }
  throw new Error('shellcheck not found on PATH (outside node_modules) nor in /usr/bin: install it (Debian/Ubuntu: apt-get install shellcheck; macOS: brew install shellcheck)');
}

/** Bytes split on NUL, the last (empty) field after the final NUL dropped. */
export function splitNul(b: Buffer): string[] {
  const parts = b.toString('utf8').split('\0');
  parts.pop();
  return parts;
}

// ---------------------------------------------------------------- hostile strings

/**
 * Printable strings that each break some target language when escaped naively.
 * Control characters are left out on purpose: validation refuses them (src/spec.ts).
 */
export const HOSTILE: string[] = [
  "'", "''", '"', '$HOME', '${X}', '`id`', '$(id)', '\\', 'trail\\', '\\\\', '\\\\\\',
  '%', '%d', '%%', '\\%', '\\\\%', '-n', '--', ';', '&&', '#', '*', '~',
  'a b', ' lead', 'trail ', 'ünï ✓ 🎉', '',
  // more: printf and crontab % forms, sh escapes, XML and comment closers, option look-alikes
  '$$', '$', '%%d', '%z', '\\"', '\\x41', '\\s', '\\n', "it's", "'\"'\"'", '!', '<&>', ']]>', '-->', '--x', 'a--b-',
  "100%d \"q\" it's back\\slash \\s ünï ; x", "\\\\\\ tail\\", '%s%%', ';&|<>*?~ #hash', 'C:\\path',
];

// ---------------------------------------------------------------- fixtures

export interface Fixture {
  file: string;
  raw: Record<string, unknown>;
  spec: Spec;
}

/** Every fixtures/specs/*.json, validated by the product's own validateSpec. */
export function loadFixtures(): Fixture[] {
  const dir = join(ROOT, 'fixtures', 'specs');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const raw = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
      const v = validateSpec(raw);
      if (!v.spec) throw new Error(`fixtures/specs/${file} does not validate:\n${v.errors.join('\n')}`);
      return { file, raw, spec: v.spec };
    });
}

/** The spec moved under `root`: repo and an absolute stateDir get `root` as a prefix. */
export function rebase(spec: Spec, root: string): Spec {
  return {
    ...spec,
    repo: root + spec.repo,
    stateDir: spec.stateDir.startsWith('/') ? root + spec.stateDir : spec.stateDir,
  };
}

/** The state folder a spec installs into (docs/files.md, "The rendered tree"), computed here, not by src/names.ts. */
export function stateDirOf(spec: Spec): string {
  return spec.stateDir.startsWith('/') ? spec.stateDir : `${spec.repo}/${spec.stateDir}`;
}

export function writeFiles(dir: string, files: { path: string; content: string }[]): void {
  for (const f of files) {
    mkdirSync(dirname(join(dir, f.path)), { recursive: true });
    writeFileSync(join(dir, f.path), f.content);
  }
}

// ---------------------------------------------------------------- systemd

/**
 * `systemd-analyze verify --user` on unit files, with a private XDG_RUNTIME_DIR
 * (systemd's own parser is the oracle for what a unit file means). It exits 0 on warnings, so callers assert
 * that the returned output is empty.
 */
export function sdVerify(files: string[], cwd?: string): string {
  const rt = tmp('hbgen-rt');
  const r = run('systemd-analyze', ['verify', '--user', ...files], {
    cwd,
    env: { ...process.env, XDG_RUNTIME_DIR: rt, SYSTEMD_LOG_COLOR: '0', SYSTEMD_PAGER: 'cat', LC_ALL: 'C' },
  });
  return `${r.stdout}${r.stderr}${r.code === 0 ? '' : `(exit ${r.code})`}`;
}

/**
 * The argv systemd itself decodes from each ExecStart= line: `systemd --test --user`
 * (systemd(1): "Determine initial transaction, dump it and exit") loads the units from
 * `unitDir` and dumps "Command Line:" after unquoting, C-unescaping and specifier
 * expansion. It refuses to run as root ("Don't run test mode as root"), so root runs it
 * as nobody. The dump re-quotes each word the way systemd's shell_maybe_quote() does
 * (see sdDumpWords). What it cannot show is the exec-time `$` step; see execDollar().
 */
export function sdDecodedExecStart(unitDir: string, unit: string): Map<string, string[][]> {
  const rt = tmp('hbgen-rt');
  chmodSync(rt, 0o777);
  const argv = ['env', '-i', `XDG_RUNTIME_DIR=${rt}`, `SYSTEMD_UNIT_PATH=${unitDir}:`, 'LC_ALL=C.UTF-8', 'PATH=/usr/bin:/bin',
    '/lib/systemd/systemd', '--test', '--user', `--unit=${unit}`, '--no-pager'];
  const r = process.getuid?.() === 0 ? run('runuser', ['-u', 'nobody', '--', ...argv]) : run(argv[0]!, argv.slice(1));
  if (r.code !== 0) throw new Error(`systemd --test failed (${r.code}): ${r.stderr}`);
  const byUnit = new Map<string, string[][]>();
  let current = '';
  let inExecStart = false;
  for (const line of r.stdout.split('\n')) {
    const u = /^\t-> Unit (.+):$/.exec(line);
    if (u) {
      current = u[1]!;
      inExecStart = false;
      continue;
    }
    if (/^\t\t-> (\w+):$/.test(line)) {
      inExecStart = line.trim() === '-> ExecStart:';
      continue;
    }
    const c = /^\t\t\tCommand Line: (.*)$/.exec(line);
    if (c && inExecStart) {
      const words = sdDumpWords(c[1]!);
      byUnit.set(current, [...(byUnit.get(current) ?? []), words]);
    }
  }
  return byUnit;
}

/**
 * Split a "Command Line:" of the systemd --test dump into words. systemd 252 writes each
 * word with shell_maybe_quote(word, SHELL_ESCAPE_EMPTY) (src/basic/escape.c): bare when it
 * has no blank, control, non-ASCII or one of "\`$*?['()<>|&;!, else in double quotes with
 * a backslash before each of "\`$; "" for the empty word. A shell cannot decode it (a
 * bare "#" or "*" means something to sh), so this reads exactly that format and
 * nothing else.
 */
export function sdDumpWords(line: string): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < line.length) {
    if (line[i] === ' ') {
      i++;
      continue;
    }
    let w = '';
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) throw new Error(`unterminated quote in dump line ${JSON.stringify(line)}`);
        const ch = line[i]!;
        if (ch === '"') {
          i++;
          break;
        }
        if (ch === '\\') {
          const next = line[i + 1];
          if (next === undefined || !'"\\`$'.includes(next)) throw new Error(`unexpected escape in dump line ${JSON.stringify(line)}`);
          w += next;
          i += 2;
        } else {
          w += ch;
          i++;
        }
      }
      if (i < line.length && line[i] !== ' ') throw new Error(`text after a closing quote in ${JSON.stringify(line)}`);
    } else {
      while (i < line.length && line[i] !== ' ') w += line[i++];
    }
    words.push(w);
  }
  return words;
}

/**
 * The one step of ExecStart= decoding that happens at exec time, not at load time, so no
 * offline tool shows it: systemd.service(5), "Command lines": "$FOO" and "${FOO}" are
 * replaced by environment variables, "Use "$$" to pass a literal dollar sign." Returns
 * null when the word would still expand a variable (which is a bug for hbgen's words).
 */
export function execDollar(word: string): string | null {
  let out = '';
  for (let i = 0; i < word.length; i++) {
    const ch = word[i]!;
    if (ch !== '$') {
      out += ch;
      continue;
    }
    const next = word[i + 1];
    if (next === '$') {
      out += '$';
      i++;
    } else if (next === '{' || (next !== undefined && /[A-Za-z_]/.test(next))) {
      return null;
    } else {
      out += '$';
    }
  }
  return out;
}

/** Fire times (epoch seconds) of one OnCalendar= value after `after`, by `systemd-analyze calendar`. */
export function sdCalendar(expr: string, after: number, iterations: number): number[] {
  const r = run('systemd-analyze', ['calendar', `--base-time=@${after}`, `--iterations=${iterations}`, expr], {
    env: { ...process.env, TZ: 'UTC', LC_ALL: 'C', SYSTEMD_LOG_COLOR: '0' },
  });
  if (r.code !== 0) throw new Error(`systemd-analyze calendar '${expr}' failed: ${r.stderr}`);
  const stamps = [...r.stdout.matchAll(/^\s*(?:Next elapse|Iter\. #\d+): \w{3} (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC$/gm)].map((m) => m[1]!);
  return stamps.map((s) => Date.parse(`${s.replace(' ', 'T')}Z`) / 1000);
}

// ---------------------------------------------------------------- time, by date(1)

/**
 * Wall-clock "YYYY-MM-DD HH:MM" in `zone` → epoch seconds, by GNU date -f; null for a
 * wall time that does not exist there (skipped by a DST change: date says "invalid
 * date" and prints nothing for that line, so each output line carries its own input).
 */
export function localToEpoch(zone: string, locals: string[]): (number | null)[] {
  if (locals.length === 0) return [];
  const r = run('date', ['-f', '-', '+%Y-%m-%d %H:%M|%s'], { input: `${locals.join('\n')}\n`, env: { ...process.env, TZ: zone, LC_ALL: 'C' } });
  const got = new Map<string, number>();
  for (const line of r.stdout.split('\n').filter(Boolean)) {
    const [local, epoch] = line.split('|') as [string, string];
    if (!got.has(local)) got.set(local, Number(epoch));
  }
  const bad = r.stderr.split('\n').filter((l) => l && !/^date: invalid date '/.test(l));
  if (bad.length) throw new Error(`date -f in ${zone} failed: ${r.stderr}`);
  return locals.map((l) => got.get(l) ?? null);
}

/** Epoch seconds → strings in `zone` with a date(1) format, by GNU date -f. */
export function epochToLocal(zone: string, epochs: number[], fmt: string): string[] {
  if (epochs.length === 0) return [];
  const r = run('date', ['-f', '-', `+${fmt}`], { input: `${epochs.map((e) => `@${e}`).join('\n')}\n`, env: { ...process.env, TZ: zone, LC_ALL: 'C' } });
  if (r.code !== 0) throw new Error(`date -f in ${zone} failed: ${r.stderr}`);
  return r.stdout.replace(/\n$/, '').split('\n');
}

// ---------------------------------------------------------------- expected wakes

const DAY = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/**
 * The wakes a spec asks for, in the working zone's wall clock, for `days` days from the
 * local midnight starting `weekStart` ("YYYY-MM-DD"), as "YYYY-MM-DD HH:MM" strings.
 * Straight from the contract: a window opens at `start` on each listed day and closes at
 * `end` (the next day when end <= start); every <= 60m fires at each minute of the window
 * that is `minute` mod `every`; every = k hours fires at the first :minute at or after
 * the opening and every k hours after, while inside the window.
 */
export function expectedLocalWakes(
  h: { start: string; end: string; days?: readonly string[] | undefined },
  every: string,
  minute: number,
  weekStart: string,
  days = 7,
): string[] {
  const everyMin = Number(every.slice(0, -1)) * (every.endsWith('h') ? 60 : 1);
  const hm = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3));
  const [y, mo, d] = weekStart.split('-').map(Number) as [number, number, number];
  const base = Date.UTC(y, mo - 1, d) / 60_000; // minutes, used as a naive wall-clock calendar
  const from = base;
  const to = base + days * 1440;
  const start = hm(h.start);
  const end = hm(h.end);
  const out = new Set<number>();
  for (let off = -1; off < days; off++) {
    const dayStart = base + off * 1440;
    const weekday = DAY[new Date(dayStart * 60_000).getUTCDay()]!;
    if (h.days && !h.days.includes(weekday)) continue;
    const open = dayStart + start;
    const close = end > start ? dayStart + end : dayStart + 1440 + end;
    if (everyMin <= 60) {
      for (let t = open; t < close; t++) if ((((t % 60) - minute) % everyMin + everyMin) % everyMin === 0) out.add(t);
    } else {
      let t = open;
      while (t % 60 !== minute) t++;
      for (; t < close; t += everyMin) out.add(t);
    }
  }
  return [...out]
    .filter((t) => t >= from && t < to)
    .sort((a, b) => a - b)
    .map((t) => new Date(t * 60_000).toISOString().slice(0, 16).replace('T', ' '));
}

/** Expected wakes as epoch seconds, plus the [from, to) epoch range of the week, by date(1). */
export function expectedWakes(spec: Spec, minute: number, weekStart: string, days = 7): { wakes: number[]; from: number; to: number } {
  const zone = spec.schedule.hours.timezone;
  const locals = expectedLocalWakes(spec.schedule.hours, spec.schedule.every, minute, weekStart, days);
  const [y, mo, d] = weekStart.split('-').map(Number) as [number, number, number];
  const endDay = new Date(Date.UTC(y, mo - 1, d + days)).toISOString().slice(0, 10);
  const [from, to] = localToEpoch(zone, [`${weekStart} 00:00`, `${endDay} 00:00`]) as [number, number];
  // A wall time that a DST change skips never comes, so no scheduler can fire at it
  // (a window inside a DST gap never opens).
  const wakes = localToEpoch(zone, locals).filter((e): e is number => e !== null);
  return { wakes, from, to };
}

// ---------------------------------------------------------------- plist

/**
 * Two independent plist readers: Python's plistlib on the XML (expat), and libplist's
 * plistutil converting the XML to binary, read back by plistlib's binary reader.
 * plistutil exits 0 even when it fails ("ERROR: Failed to convert input file."), so its
 * output file and stderr are checked too. One python3 process reads every file.
 */
export function plistOracles(files: string[]): { file: string; plistlib: unknown; plistutil: unknown; error?: string }[] {
  const bins: string[] = [];
  const errors = new Map<string, string>();
  for (const file of files) {
    const bin = `${file}.bin`;
    rmSync(bin, { force: true });
    const p = run('plistutil', ['-i', file, '-f', 'bin', '-o', bin]);
    if (p.code !== 0 || p.stdout.trim() || p.stderr.trim()) errors.set(file, `plistutil: ${p.stdout}${p.stderr}`.trim());
    bins.push(bin);
  }
  const py = run('python3', [
    '-c',
    [
      'import json,plistlib,sys',
      'out=[]',
      'for f in sys.argv[1:]:',
      '  try:',
      '    with open(f,"rb") as fh: out.append({"ok": plistlib.load(fh)})',
      '  except Exception as e: out.append({"err": type(e).__name__ + ": " + str(e)})',
      'print(json.dumps(out))',
    ].join('\n'),
    ...files.flatMap((f, i) => [f, bins[i]!]),
  ]);
  if (py.code !== 0) throw new Error(`python3 plistlib failed: ${py.stderr}`);
  const res = JSON.parse(py.stdout) as { ok?: unknown; err?: string }[];
  return files.map((file, i) => {
    const x = res[2 * i]!;
    const b = res[2 * i + 1]!;
    const errs = [errors.get(file), x.err && `plistlib(xml): ${x.err}`, !errors.has(file) && b.err && `plistlib(bin from plistutil): ${b.err}`].filter(Boolean);
    return { file, plistlib: x.ok, plistutil: b.ok, ...(errs.length ? { error: errs.join('; ') } : {}) };
  });
}

// ---------------------------------------------------------------- cron

export interface ScratchUser {
  name: string;
  home: string;
  remove(): void;
}

/**
 * A throwaway login for crontab(1) and the cron daemon, so that no real user's crontab is
 * ever touched. Removed (crontab and account) by remove() and, as a net, at exit.
 */
export function scratchUser(tag: string): ScratchUser {
  const name = `hbgt${tag}${process.pid}`.slice(0, 31);
  const home = tmp(`hbgen-${tag}-home`);
  const r = run('useradd', ['-M', '-d', home, '-s', '/bin/sh', name]);
  if (r.code !== 0) throw new Error(`useradd ${name} failed: ${r.stderr}`);
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    run('crontab', ['-u', name, '-r']);
    run('userdel', [name]);
  };
  process.on('exit', remove);
  return { name, home, remove };
}

/** Install `bytes` as the user's crontab with the real crontab(1); returns its diagnostics. */
export function crontabInstall(user: string, bytes: string): RunResult {
  return run('crontab', ['-u', user, '-'], { input: bytes, env: { ...process.env, LC_ALL: 'C' } });
}

export function crontabList(user: string): RunResult {
  return run('crontab', ['-u', user, '-l'], { env: { ...process.env, LC_ALL: 'C' } });
}
