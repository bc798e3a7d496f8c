// `npm run clients:upgrade`: moves the tests' agent clients (test/clients.json) to the newest
// versions on npm, on purpose, and shows what changed before anything else runs on them:
// the versions, the options each --help adds or drops (those about permissions marked, see
// src/harness.ts PERMISSION_OPTIONS), and the shape of the status output the billing check
// reads (src/billing-rules.ts). `-- --check` shows the same and leaves the pin alone.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLIENT_PATH, PINS, PIN_FILE, type Pins, clientHelps, helpOptions, realClients, subscriptionLogin, touchesPermissions } from './helpers/clients.ts';

const check = process.argv.includes('--check');

function newest(pkg: string): string {
  const r = spawnSync('npm', ['view', pkg, 'version'], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`npm view ${pkg} version failed: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

/** The option names of every --help text of a client. */
function options(helps: string[]): Map<string, boolean> {
  const m = new Map<string, boolean>();
  for (const h of helps) for (const o of helpOptions(h)) m.set(`${o.names.join(', ')}${o.values.length ? ` (${[...new Set(o.values)].join('|')})` : ''}`, touchesPermissions(o));
  return m;
}

/** What the status commands print, by shape: JSON keys or the first line, logged out and on a test subscription login. */
function statusShapes(bins: { claude: string; codex: string }): string[] {
  const out: string[] = [];
  for (const login of [false, true]) {
    const home = mkdtempSync(join(tmpdir(), 'hbgen-upgrade-'));
    try {
      if (login) {
        subscriptionLogin(home, 'claude-code');
        subscriptionLogin(home, 'codex');
      }
      const run = (bin: string, args: string[]) => spawnSync(bin, args, { encoding: 'utf8', timeout: 30_000, env: { HOME: home, PATH: CLIENT_PATH }, cwd: home, stdio: ['ignore', 'pipe', 'pipe'] });
      const c = run(bins.claude, ['auth', 'status']);
      let shape: string;
      try {
        const j = JSON.parse(c.stdout) as Record<string, unknown>;
        shape = Object.entries(j).map(([k, v]) => (['authMethod', 'apiProvider', 'apiKeySource', 'subscriptionType', 'loggedIn'].includes(k) ? `${k}=${JSON.stringify(v)}` : k)).join(' ');
      } catch {
        shape = `not JSON: ${c.stdout.trim().split('\n')[0]}`;
      }
      out.push(`claude auth status (${login ? 'test login' : 'logged out'}, exit ${c.status}): ${shape}`);
      const t = run(bins.claude, ['auth', 'status', '--text']);
      out.push(`claude auth status --text (${login ? 'test login' : 'logged out'}): ${t.stdout.trim().split('\n').map((l) => l.replace(/:.*/, ':…')).join(' / ')}`);
      const x = run(bins.codex, ['login', 'status']);
      out.push(`codex login status (${login ? 'test login' : 'logged out'}, exit ${x.status}): ${(x.stderr + x.stdout).trim().split('\n').filter((l) => !l.startsWith('WARNING')).join(' / ')}`);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }
  return out;
}

function installed(pins: Pins) {
  const r = realClients(pins);
  if ('why' in r) throw new Error(r.why);
  return r;
}

const next: Pins = { '@anthropic-ai/claude-code': newest('@anthropic-ai/claude-code'), '@openai/codex': newest('@openai/codex') };
const changed = (Object.keys(PINS) as (keyof Pins)[]).filter((k) => PINS[k] !== next[k]);
for (const k of Object.keys(PINS) as (keyof Pins)[]) console.log(`${k}: ${PINS[k]}${PINS[k] === next[k] ? ' (the newest)' : ` -> ${next[k]}`}`);
if (changed.length === 0) {
  console.log('the pins are the newest versions; nothing to do');
  process.exit(0);
}
const before = installed(PINS);
const after = installed(next);
console.log(`\ninstalled: ${before.versions} -> ${after.versions}`);
const hb = clientHelps(before);
const ha = clientHelps(after);
for (const client of ['claude-code', 'codex'] as const) {
  const b = options(hb[client]);
  const a = options(ha[client]);
  const added = [...a.keys()].filter((k) => !b.has(k));
  const removed = [...b.keys()].filter((k) => !a.has(k));
  console.log(`\n${client} --help: ${added.length} added, ${removed.length} removed`);
  for (const k of added) console.log(`  + ${k}${a.get(k) ? '   <- about permissions: classify it in src/harness.ts PERMISSION_OPTIONS' : ''}`);
  for (const k of removed) console.log(`  - ${k}`);
}
const sb = statusShapes(before);
const sa = statusShapes(after);
console.log('\nstatus output (what src/billing-rules.ts reads):');
sa.forEach((line, i) => console.log(line === sb[i] ? `  = ${line}` : `  - ${sb[i]}\n  + ${line}`));
if (check) {
  console.log(`\n--check: ${PIN_FILE} left as it is`);
} else {
  writeFileSync(PIN_FILE, `${JSON.stringify(next, null, 2)}\n`);
  console.log(`\nwrote ${PIN_FILE}; now run the suites that use the real clients: node test/run.mjs agents stream billing jail-clients model-fallback seed-checks e2e-systemd-real`);
}
