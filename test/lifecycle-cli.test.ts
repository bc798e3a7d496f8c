// needs root: it bind-mounts yash as /bin/sh (unshare -m)
// The lifecycle commands through the built CLI, as a user meets them: refusals (no
// terminal, billing guard, alias binary, #! interpreter, unsafe state folder, no user bus
// with the REAL systemctl of this host), --dry-run, the consent prompt on a real terminal
// (script(1)), and the prompt function itself with injected streams. Scheduler tools are
// STAND-INS first on PATH unless a test says otherwise; the HOME is temporary.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HostIO } from '../src/host/io.ts';
import { credential } from '../src/credentials.ts';
import { billingRefusal } from '../src/host/install/facts.ts';
import { subscriptionAnswers } from './helpers/clients.ts';
import { hostZone } from '../src/host/audit/clock.ts';
import { askConsent } from '../src/host/install/prompt.ts';
import { names } from '../src/names.ts';
import { ROOT, hbgen } from './helpers/cli.ts';
import { makeHost, rewriteSpec, tree, type Host } from './helpers/lifecycle.ts';

const snap = (h: Host) => ({ home: tree(h.home), repo: tree(h.repo), standins: tree(join(h.tools.bin, 'state')) });
const cli = (h: Host, args: string[], env: Record<string, string> = {}) => hbgen(args, { cwd: h.root, env: { ...h.env, ...env } });

test('CLI install without a terminal and without --yes: exit 1, the panel, one refusal line, nothing changed', () => {
  const h = makeHost('systemd-user');
  const before = snap(h);
  const r = cli(h, ['install', 'hbgen.json']);
  assert.is(r.code, 1);
  assert.match(r.stdout, /^hbgen install: "docs" from /);
  assert.is(r.stderr, 'hbgen: there is no terminal to ask for consent, so nothing was changed on this host; read the panel above, then run `hbgen install hbgen.json --yes` to go ahead (or --dry-run to only show it)\n');
  assert.equal(snap(h), before);
});

test('CLI install --dry-run: exit 0, the same panel, nothing changed; SPEC defaults to ./hbgen.json', () => {
  const h = makeHost('systemd-user');
  const before = snap(h);
  const r = cli(h, ['install', '--dry-run']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /commands it will run:\n {2}systemctl --user daemon-reload\n/);
  assert.match(r.stdout, /--dry-run: nothing was changed on this host\n$/);
  assert.equal(snap(h), before);
});

test('CLI billing guard: a metered key for the harness in the invoking shell is refused with the reason; other harnesses\' keys are not', () => {
  for (const [harness, key, refused] of [
    ['claude-code', 'ANTHROPIC_API_KEY', true],
    ['claude-code', 'ANTHROPIC_AUTH_TOKEN', true],
    ['codex', 'OPENAI_API_KEY', true],
    ['codex', 'CODEX_API_KEY', true],
    ['command', 'AWS_SECRET_ACCESS_KEY', true],
    ['command', 'OPENAI_API_KEY', true],
    ['claude-code', 'OPENAI_API_KEY', false],
    ['codex', 'ANTHROPIC_API_KEY', false],
  ] as const) {
    const h = makeHost('systemd-user');
    rewriteSpec(h, { agent: { harness, bin: h.bin, prompt: 'Do one chunk.' } });
    const before = snap(h);
    const r = cli(h, ['install', 'hbgen.json', '--yes'], { [key]: 'sk-test-123' });
    if (refused) {
      assert.is(r.code, 1, `${harness} ${key}`);
      assert.is(
        r.stderr,
        `hbgen: ${billingRefusal(credential(key)!)}\nhbgen: nothing was changed on this host\n`,
      );
      assert.equal(snap(h), before);
      const empty = cli(h, ['install', 'hbgen.json', '--dry-run'], { [key]: '' });
      assert.is(empty.code, 0, 'an empty variable is no key');
    } else {
      const d = cli(h, ['install', 'hbgen.json', '--dry-run'], { [key]: 'sk-test-123' });
      assert.is(d.code, 0, `${harness} ${key}: ${d.stderr}`);
    }
  }
});

test('CLI host facts: a missing binary (alias), a #!/usr/bin/env interpreter missing from env.PATH, a symlinked or group-writable state folder are refused', () => {
  const h = makeHost('systemd-user');
  rewriteSpec(h, { agent: { harness: 'claude-code', bin: join(h.root, 'claude'), prompt: 'x' } });
  let r = cli(h, ['install', 'hbgen.json', '--dry-run']);
  assert.is(r.code, 1);
  assert.match(r.stderr, new RegExp(`^hbgen: agent\\.bin: ${h.root}/claude does not exist; if you start the agent through a shell alias or function, set agent\\.bin to the absolute path of the real file that \`type -a claude\` or \`command -v claude\` shows`));

  const nodeDir = join(h.root, 'nodebin');
  mkdirSync(nodeDir);
  // The interpreter gets the script's path first; then it answers as a subscription login.
  writeFileSync(join(nodeDir, 'mynode'), `#!/bin/sh\nshift\n${subscriptionAnswers()}exit 0\n`);
  chmodSync(join(nodeDir, 'mynode'), 0o755);
  writeFileSync(join(h.root, 'claude'), '#!/usr/bin/env mynode\nconsole.log(1)\n');
  chmodSync(join(h.root, 'claude'), 0o755);
  r = cli(h, ['install', 'hbgen.json', '--dry-run'], { PATH: `${h.tools.bin}:${nodeDir}:/usr/bin:/bin` });
  assert.is(r.code, 1);
  assert.match(r.stderr, new RegExp(`agent\\.bin: ${h.root}/claude starts with "#!/usr/bin/env mynode", so it needs mynode on the agent's PATH, but no folder of env\\.PATH \\(/usr/bin:/bin\\) holds mynode; add ${nodeDir} \\(where your shell finds mynode\\) to env\\.PATH in the spec`));
  rewriteSpec(h, { env: { HOME: h.home, PATH: `${nodeDir}:/usr/bin:/bin` } });
  r = cli(h, ['install', 'hbgen.json', '--dry-run']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`claude-code: ${h.root}/claude \\(run by ${nodeDir}/mynode\\); permission mode acceptEdits`));

  rewriteSpec(h, { repo: join(h.root, 'unmounted') });
  r = cli(h, ['install', 'hbgen.json', '--dry-run']);
  assert.is(r.code, 1);
  assert.match(r.stderr, new RegExp(`hbgen: repo: ${h.root}/unmounted does not exist or is not a folder; create or mount it, or fix "repo" in the spec`));
  rewriteSpec(h, { repo: h.repo });

  const sd = names(h.spec).stateDir;
  mkdirSync(join(h.root, 'elsewhere'));
  mkdirSync(dirname(sd), { recursive: true });
  symlinkSync(join(h.root, 'elsewhere'), sd);
  r = cli(h, ['install', 'hbgen.json', '--dry-run']);
  assert.is(r.code, 1);
  assert.match(r.stderr, /stateDir: .* is a symbolic link; hbgen writes the wrapper only into a real folder/);
});

test('CLI --dry-run panel warns about a repo .env with a metered key', () => {
  // The CLI reads this machine's /etc/localtime: the cron entries are planned for its zone.
  const h = makeHost('cron', { schedule: { scheduler: 'cron', every: '30m', minute: 7, hours: { start: '08:00', end: '23:00', timezone: 'Europe/Berlin' }, hostTimezone: hostZone() ?? 'UTC' } });
  writeFileSync(join(h.repo, '.env.local'), '# keys\nexport ANTHROPIC_API_KEY=sk-ant-xyz\nOTHER=1\n');
  writeFileSync(join(h.repo, '.env'), 'OPENAI_API_KEY=\n');
  const stub = join(h.root, 'crontab-standin');
  mkdirSync(stub);
  writeFileSync(join(stub, 'crontab'), '#!/bin/sh\necho "no crontab for stand-in" >&2; exit 1\n');
  chmodSync(join(stub, 'crontab'), 0o755);
  const r = cli(h, ['install', '--dry-run'], { PATH: `${stub}:/usr/bin:/bin` });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`  - ${h.repo}/\\.env\\.local sets ANTHROPIC_API_KEY: an agent that loads the repo's \\.env \\(Claude Code has\\) would bill per token`));
  assert.not.match(r.stdout, /\/\.env sets/, 'an empty assignment is no key');
});

test('REAL systemctl with no user bus (an empty XDG_RUNTIME_DIR, no session bus): install is refused before anything is written', () => {
  const h = makeHost('systemd-user');
  const before = snap(h);
  // systemctl --user finds the bus at $XDG_RUNTIME_DIR/bus: an empty folder has none,
  // whatever this machine runs.
  const run = join(h.root, 'no-bus');
  mkdirSync(run, { mode: 0o700 });
  assert.ok(existsSync('/usr/bin/systemctl') || existsSync('/bin/systemctl'), 'systemd (Debian\'s systemd package) is installed');
  const r = cli(h, ['install', 'hbgen.json', '--yes'], { PATH: '/usr/bin:/bin', XDG_RUNTIME_DIR: run, DBUS_SESSION_BUS_ADDRESS: '' });
  assert.is(r.code, 1);
  assert.match(r.stderr, /^hbgen: `systemctl --user` cannot reach your systemd user manager \(Failed to connect to bus: [^)]+\); run hbgen from a login session of \S+ \(not su or sudo/);
  assert.match(r.stderr, /hbgen: nothing was changed on this host\n$/);
  assert.equal(snap(h), before);
});

test('CLI status / wake / stop when nothing is installed: clear lines, status exit 1, stop exit 0', () => {
  const h = makeHost('systemd-user');
  const s = cli(h, ['status']);
  assert.is(s.code, 1);
  assert.match(s.stdout, /^hbgen status: "docs" is not installed \(no .*\/state\.json\); install it with `hbgen install`\n$/);
  const w = cli(h, ['wake']);
  assert.is(w.code, 1);
  assert.match(w.stderr, /^hbgen: "docs" is not installed \(no .*state\.json\); install it with `hbgen install` first\n$/);
  const st = cli(h, ['stop']);
  assert.is(st.code, 0);
  assert.match(st.stdout, /no install of "docs" is recorded in .*; nothing to stop/);
  const rs = cli(h, ['resume']);
  assert.is(rs.code, 1);
  assert.match(rs.stderr, /nothing to resume; install it with `hbgen install hbgen\.json`|nothing to resume; install it with `hbgen install \.\/hbgen\.json`/);
});

test('CLI consent on a real terminal (script(1)): the question defaults to No', () => {
  const h = makeHost('systemd-user');
  const before = snap(h);
  const cmd = `${process.execPath} ${join(ROOT, 'bin/hbgen.cjs')} install hbgen.json`;
  for (const answer of ['n\n', '\n']) {
    const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { cwd: h.root, env: { ...h.env, TERM: 'dumb' }, input: answer, encoding: 'utf8', timeout: 30_000 });
    assert.is(r.status, 1, r.stdout);
    assert.match(r.stdout, /Install "docs" on this host with these settings\?\r?\n {2}1\) install as shown\r?\n[\s\S]* {2}5\) cancel\r?\n\[1-5, y\/N\] /);
    assert.match(r.stdout, /hbgen: you did not confirm, so nothing was changed on this host/);
  }
  assert.equal(snap(h), before);
});

function io(stdin: PassThrough & { isTTY?: boolean }): { io: HostIO; said: () => string } {
  let err = '';
  return {
    io: { env: {}, uid: 0, user: 'x', cwd: '/', stdin, out: () => {}, err: (s) => (err += s), now: () => new Date() },
    said: () => err,
  };
}

test('askConsent with injected streams: y/yes (any case) is yes; n, empty, other text and end of input are no; no terminal is no-tty', async () => {
  for (const [input, want] of [['y\n', 'yes'], ['YES\n', 'yes'], [' Yes \n', 'yes'], ['n\n', 'no'], ['\n', 'no'], ['sure\n', 'no'], ['', 'no']] as const) {
    const s = new PassThrough() as PassThrough & { isTTY?: boolean };
    s.isTTY = true;
    s.end(input);
    const t = io(s);
    assert.is(await askConsent(t.io, 'Go?'), want, JSON.stringify(input));
    assert.match(t.said(), /^Go\? \[y\/N\] /);
  }
  const s = new PassThrough() as PassThrough & { isTTY?: boolean };
  const t = io(s);
  assert.is(await askConsent(t.io, 'Go?'), 'no-tty');
  assert.is(t.said(), '', 'no question without a terminal');
});

test('CLI end to end with the REAL heartbeat.sh and stand-in systemctl, the default state folder (~/.local/state/hbgen/NAME): install --yes, status, wake, stop', () => {
  const h = makeHost('systemd-user', { stateDir: undefined, schedule: { scheduler: 'systemd-user', every: '1h', minute: 7, hours: { start: '00:00', end: '24:00', timezone: 'UTC' } } });
  const homeBefore = tree(h.home);
  const r = cli(h, ['install', '--yes']);
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /ok {4}lock: the second run found the lock held and logged skip-locked smoke/);
  const s = cli(h, ['status']);
  assert.is(s.code, 0, s.stdout);
  const w = cli(h, ['wake']);
  assert.is(w.code, 0, w.stderr);
  const l = cli(h, ['list']);
  assert.is(l.code, 0, l.stderr);
  assert.match(l.stdout, new RegExp(`^docs +systemd-user +active +0\\.2\\.0 +quiet at \\S+Z +${h.repo} +${names(h.spec).stateDir}$`, 'm'));
  const st = cli(h, ['stop']);
  assert.is(st.code, 0, st.stderr);
  assert.match(cli(h, ['stop', '--all']).stdout, /already stopped/);
  const j = cli(h, ['list', '--json']);
  assert.is(j.code, 0, j.stderr);
  assert.equal(
    (JSON.parse(j.stdout) as { name: string; state: string; entries: string[] }[]).filter((x) => x.name === 'docs').map((x) => [x.state, x.entries]),
    [['stopped', []]],
  );
  // stop keeps the state folder (logs, counter) under HOME, and removes everything else it added.
  assert.is(names(h.spec).stateDir, join(h.home, '.local/state/hbgen/docs'));
  const state = relative(h.home, names(h.spec).stateDir);
  const kept = Object.keys(tree(h.home)).filter((k) => k.startsWith(`${state}/`) || `${state}/`.startsWith(k));
  assert.ok(kept.includes(`${state}/runtime.log`), 'the log is kept');
  const after = tree(h.home);
  for (const k of kept) delete after[k];
  assert.equal(after, homeBefore);
});


// The premise, shown with the real yash: in the C locale a non-ASCII script path reaches the
// script as an empty $0, so a wrapper there could not even re-run itself.
const YASH_AS_SH = ['unshare', '-m', 'sh', '-c', 'mount --bind "$0" /usr/bin/dash && exec "$@"', '/usr/bin/yash'];
test('yash as /bin/sh (bind-mounted over dash): install refuses a non-ASCII state folder, accepts an ASCII one; dash takes both', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-yash-'));
  mkdirSync(join(dir, 'é'));
  writeFileSync(join(dir, 'é', 's.sh'), 'printf "[%s]" "$0"\n');
  const premise = spawnSync('/usr/bin/yash', [join(dir, 'é', 's.sh')], { env: { PATH: '/usr/bin:/bin' }, encoding: 'utf8' });
  assert.is(premise.stdout, '[]', 'yash in the C locale loses a non-ASCII $0');
  assert.match(premise.stderr, /cannot convert the argument/);
  rmSync(dir, { recursive: true });

  const sdir = mkdtempSync(join(tmpdir(), 'hbgen-yash-sd-'));
  const h = makeHost('systemd-user', { stateDir: join(sdir, 'état') });
  const refusal = /stateDir: .*état holds non-ASCII characters and \/bin\/sh here is yash, which cannot read such a path in the C locale the scheduler starts it in; choose a state folder whose path is plain ASCII \(set "stateDir"\)/;
  let r = hbgen(['install', 'hbgen.json', '--dry-run'], { cwd: h.root, env: h.env, prefix: YASH_AS_SH });
  assert.is(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, refusal);
  r = cli(h, ['install', 'hbgen.json', '--dry-run']);
  assert.is(r.code, 0, `dash as /bin/sh reads the path: ${r.stderr}`);
  rewriteSpec(h, { stateDir: join(h.root, 'etat') });
  r = hbgen(['install', 'hbgen.json', '--dry-run'], { cwd: h.root, env: h.env, prefix: YASH_AS_SH });
  assert.is(r.code, 0, r.stderr);
  assert.not.match(r.stderr + r.stdout, /yash/);
  rmSync(sdir, { recursive: true });
});

test('hbgen wake says in one line what happened (ok, quiet, fail N, timeout) and exits with the wrapper status', () => {
  const h = makeHost('systemd-user', { timeout: '2s', killAfter: '1s', schedule: { scheduler: 'systemd-user', every: '1h', minute: 7, hours: { start: '00:00', end: '24:00', timezone: 'UTC' } } });
  assert.is(cli(h, ['install', '--yes']).code, 0);
  const log = names(h.spec).log.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // After a fail or a timeout the line also names agent.log, where the agent's own words are.
  const out = `${log}; the agent's output is in ${names(h.spec).agentLog.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
  const cases: [string, number, RegExp][] = [
    // The agent works a moment first: file times advance by the kernel's clock tick (a few
    // ms), so a write within the tick of the wake's marker is not newer than it (README).
    [`#!/bin/sh\nsleep 0.1\necho work >> ${h.repo}/README\n`, 0, new RegExp(`^wake 1: ok after \\d+ s \\(see ${log}\\)\\n$`)],
    ['#!/bin/sh\necho nothing\n', 0, new RegExp(`^wake 2: quiet after \\d+ s \\(see ${log}\\)\\n$`)],
    ['#!/bin/sh\necho Not logged in >&2\nexit 3\n', 3, new RegExp(`^wake 3: fail 3 after \\d+ s \\(see ${out}\\)\\n$`)],
    ['#!/bin/sh\nsleep 30\n', 124, new RegExp(`^wake 4: timeout after 2s \\(see ${out}\\)\\n$`)],
  ];
  for (const [agent, code, line] of cases) {
    writeFileSync(h.bin, agent);
    const w = cli(h, ['wake']);
    assert.is(w.code, code, w.stdout + w.stderr);
    assert.match(w.stdout, line, w.stdout);
  }
});

test.run();
