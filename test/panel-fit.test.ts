// The consent panel of the README's example spec (fixtures/specs/example.json) fits one
// 80-column screen, every fact to consent to still on it: what runs, when, who pays, what
// the jail lets out, which files it adds, the commands and the undo. On a re-install the
// changed fields come first. Through `install --dry-run` (the STAND-IN systemctl, the real
// srt found on env.PATH), with the example's paths under a temporary HOME.
import { chmodSync, copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type Host, hb, makeHost, rewriteSpec } from './helpers/lifecycle.ts';

const ROOT = join(import.meta.dirname, '..');
const SRT = join(ROOT, 'node_modules', '.bin', 'srt');

/** Lines a terminal of `cols` columns shows for the text (a longer line wraps onto more). */
const screenLines = (text: string, cols: number): number => text.split('\n').reduce((n, l) => n + Math.max(1, Math.ceil([...l].length / cols)), 0);

/** The example spec on a test host: the agent at ~/.local/bin/claude, srt at ~/.local/bin/srt, the repo at ~/src/docs. */
function exampleHost(): Host {
  const h = makeHost('systemd-user');
  const ex = JSON.parse(readFileSync(join(ROOT, 'fixtures/specs/example.json'), 'utf8'));
  delete ex.$schema;
  const bin = join(h.home, '.local', 'bin');
  mkdirSync(bin, { recursive: true });
  copyFileSync(h.bin, join(bin, 'claude'));
  chmodSync(join(bin, 'claude'), 0o755);
  symlinkSync(SRT, join(bin, 'srt'));
  const repo = join(h.home, 'src', 'docs');
  mkdirSync(repo, { recursive: true });
  writeFileSync(join(repo, 'HEART.md'), '# Mission\nKeep the docs true.\n');
  rewriteSpec(h, { ...ex, repo, agent: { ...ex.agent, bin: join(bin, 'claude') }, env: { HOME: h.home, PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin` }, stateDir: undefined, sandbox: undefined });
  return h;
}

/** The panel alone: install's output before the dry run's closing line. */
const panelOf = (out: string): string => out.slice(0, out.indexOf('--dry-run: nothing was changed'));

test('the example spec: the panel fits 40 lines at 80 columns and still says what runs, when, who pays, the jail, the files, the commands and the undo', async () => {
  const h = exampleHost();
  const r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 0, r.err + r.out);
  const p = panelOf(r.out);
  assert.ok(p.length > 0, r.out);
  const n = screenLines(p.replace(/\n$/, ''), 80);
  assert.ok(n <= 40, `${n} lines at 80 columns:\n${p}`);
  for (const want of [
    '  agent      command: ~/.local/bin/claude',
    '  args       -p --model sonnet --permission-mode acceptEdits',
    '  billing    custom command: not checked, no API key reaches it; check your plan',
    '  interval   every 30m: fires at :07 and :37 past each hour, in the window 08:00–23:00 America/Santiago, Mon–Fri',
    '  timeout    25m, then TERM, and KILL 30s later',
    '  jail       on: ~/.local/bin/srt (bubblewrap, seccomp and a proxy; jail.json)',
    '             write: the repo, ~/.cache/hbgen/docs/tmp; never: HEART.md, hbgen.json,',
    '             network: none; nothing else',
    '  limits     tasks 4096, memory 50% of RAM, at most 8G, no swap, disk unbounded',
    '  new in ~/.local/state/hbgen/docs/: heartbeat.sh, jail.json, runtime-',
    "state.json (this install's record), host/{hbgen-docs.service,hbgen-docs.timer}",
    '  new in ~/.config/systemd/user/: hbgen-docs.service, hbgen-docs.timer',
    '  systemctl --user enable --now hbgen-docs.timer',
    '  loginctl enable-linger ada   (lingering is off: the timer would stop at logout)',
    '  env -i /bin/sh ~/.local/state/hbgen/docs/heartbeat.sh --smoke   (at the same time: it must skip on the lock)',
    `undo it later with: hbgen stop ${h.specFile}`,
  ]) assert.ok(p.includes(want), `panel lacks ${JSON.stringify(want)}:\n${p}`);
  // The fields left out, and the rows that would only say "none", on one line.
  assert.match(p, /\n {2}none {7}model, instructions, budget, cap, gate, notify, ping \(docs\/spec\.md\)\n/);
  assert.not.match(p, /\n {2}(hours|state|models|agent budget) /, p);
});

test('a re-install: the changed fields come first, the one that widens the reach marked, and the panel still fits 40 lines', async () => {
  const h = exampleHost();
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  rewriteSpec(h, { timeout: '20m', sandbox: { allowHosts: ['github.com'] }, stateDir: undefined });
  const r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 0, r.err + r.out);
  const p = panelOf(r.out);
  const lines = p.split('\n');
  assert.match(lines[1], /^changed in the spec since the install of .* \(! = chooses what runs outside the jail or what the agent reaches/);
  assert.ok(lines.slice(2, 4).includes('  ! sandbox.allowHosts: (not set) → ["github.com"]') || lines.slice(2, 4).some((l) => /^ {2}! sandbox\.allowHosts: /.test(l)), p);
  assert.ok(lines.slice(2, 4).some((l) => /^ {4}timeout: "25m" → "20m"$/.test(l)), p);
  const n = screenLines(p.replace(/\n$/, ''), 80);
  assert.ok(n <= 40, `${n} lines at 80 columns:\n${p}`);
});

test.run();
