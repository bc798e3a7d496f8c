#!/usr/bin/env node
// npm run bench — what hbgen costs, measured side by side in one run.
// Every group runs its commands in interleaved rounds (each round runs every command once,
// in a shuffled order) and reports medians and the median of per-round ratios to the
// group's baseline, so that machine noise hits both sides alike. Node commands are also
// measured in CPU time (user + system of the whole process, read by a preload at exit),
// which other load on the machine moves far less than the wall clock. One wake of the
// wrapper is also counted in processes (forks, with strace -f where it is installed).
// Not a test: it prints figures and the goals next to them, and never
// fails on a slow machine; test/wake-processes.test.ts holds the process bounds.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const HBGEN = join(root, 'bin', 'hbgen.cjs');
const rounds = Number(process.env.BENCH_ROUNDS ?? 30);
const env = { ...process.env };
// On Node 20 this variable alone triples every start (it makes Node load the CA file).
delete env.NODE_EXTRA_CA_CERTS;

function time(argv, opts = {}) {
  const t = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), { stdio: 'ignore', env: opts.env ?? env, cwd: opts.cwd ?? root });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== (opts.status ?? 0)) throw new Error(`${argv.join(' ')} exited ${r.status}`);
  return ms;
}

// CPU time of one node command: a preload writes process.cpuUsage() (the whole process,
// every thread) when it exits. The preload costs the baseline and the commands alike.
const cpuPreload = join(tmpdir(), `hbgen-bench-cpu-${process.pid}.cjs`);
const cpuOut = `${cpuPreload}.out`;
writeFileSync(cpuPreload, `process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').writeFileSync(${JSON.stringify(cpuOut)}, String((u.user + u.system) / 1000)); });\n`);
process.on('exit', () => rmSync(cpuPreload, { force: true }) || rmSync(cpuOut, { force: true }));
function cpu(argv) {
  time([argv[0], '--require', cpuPreload, ...argv.slice(1)]);
  return Number(readFileSync(cpuOut, 'utf8'));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** cmds[0] is the baseline. Returns rows {label, median, ratio, added}. `unit` names what run() returns. */
function group(title, cmds, n = rounds, unit = 'ms', warmups = 3) {
  const times = cmds.map(() => []);
  for (let w = 0; w < warmups; w++) cmds.forEach((c) => c.run());
  for (let r = 0; r < n; r++) {
    const order = cmds.map((_, i) => i).sort(() => Math.random() - 0.5);
    for (const i of order) times[i].push(cmds[i].run());
  }
  const base = times[0];
  const u = unit === 'M instructions' ? 'M' : 'ms';
  console.log(`\n## ${title}  (${n} interleaved rounds${unit === 'ms' ? '' : `, ${unit}`})`);
  console.log(`${'command'.padEnd(58)} ${'median'.padStart(9)} ${'ratio'.padStart(7)} ${'added'.padStart(9)}  goal`);
  cmds.forEach((c, i) => {
    const med = median(times[i]);
    const ratio = median(times[i].map((t, k) => t / base[k]));
    const added = median(times[i].map((t, k) => t - base[k]));
    console.log(
      `${c.label.padEnd(58)} ${`${med.toFixed(1)} ${u}`.padStart(9)} ${i ? `${ratio.toFixed(2)}×`.padStart(7) : ''.padStart(7)} ${i ? `${added.toFixed(1)} ${u}`.padStart(9) : ''.padStart(9)}  ${c.goal ?? ''}`,
    );
  });
}

const tmp = mkdtempSync(join(tmpdir(), 'hbgen-bench-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

console.log(`hbgen bench — node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, NODE_EXTRA_CA_CERTS unset`);

// 1–2. Cold start of the CLI against the Node floor, in wall time and in CPU time.
const spec = join(root, 'fixtures/specs/example.json');
const out = join(tmp, 'tree');
const node = process.execPath;
time([node, HBGEN, 'render', spec, '--out', out]);
const cliCases = [
  { label: "node -e ''", argv: [node, '-e', ''] },
  { label: 'hbgen --version', argv: [node, HBGEN, '--version'], goal: '≤ 1.3×' },
  { label: 'hbgen render example.json --out DIR (systemd)', argv: [node, HBGEN, 'render', spec, '--out', out], goal: '≤ 2.5×' },
  { label: 'hbgen render launchd.json (stdout, plist)', argv: [node, HBGEN, 'render', join(root, 'fixtures/specs/launchd.json')], goal: '≤ 2.5×' },
  { label: 'hbgen render cron.json --out DIR (crontab)', argv: [node, HBGEN, 'render', join(root, 'fixtures/specs/cron.json'), '--out', join(tmp, 'cron')], goal: '≤ 2.5×' },
  { label: 'hbgen render kubernetes.json (stdout, manifests)', argv: [node, HBGEN, 'render', join(root, 'fixtures/specs/kubernetes.json')], goal: '≤ 2.5×' },
  { label: 'hbgen check example.json DIR', argv: [node, HBGEN, 'check', spec, out], goal: '≤ 3×' },
].filter((c) => c.argv.every((a) => !a.endsWith('.json') || existsSync(a)));
group('CLI cold start vs node -e "" (wall)', cliCases.map((c) => ({ ...c, run: () => time(c.argv) })));
group('CLI cold start vs node -e "" (CPU: user + system)', cliCases.map((c) => ({ ...c, run: () => cpu(c.argv) })), rounds, 'CPU ms');

// 2b. The same in instructions, counted by valgrind's callgrind (every thread, the kernel's
// work left out): the same count for the same binary and input whatever else the machine
// runs, within about 3 % (the GC threads' timing), so it shows a change on a busy machine.
// Each run takes some 10 s, hence off unless BENCH_INSTRUCTIONS=N asks for N rounds. The
// ratio runs higher than the CPU-time one: `node -e ''` spends relatively more of its time
// in the kernel (docs/SPEED.md).
const valgrind = ['/usr/bin/valgrind', '/bin/valgrind'].find((p) => existsSync(p));
const instructionRounds = Number(process.env.BENCH_INSTRUCTIONS ?? 0);
function instructions(argv) {
  const o = join(tmp, 'callgrind.out');
  // --smc-check: V8 writes and runs machine code at run time.
  const r = spawnSync(valgrind, ['--tool=callgrind', '--smc-check=all-non-file', `--callgrind-out-file=${o}`, ...argv], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', env, cwd: root });
  const m = /Collected : (\d+)/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`valgrind ${argv.join(' ')} exited ${r.status}: ${r.stderr.slice(-500)}`);
  return Number(m[1]) / 1e6;
}
if (instructionRounds > 0 && valgrind) {
  group('CLI cold start vs node -e "" (instructions, valgrind --tool=callgrind)', cliCases.map((c) => ({ ...c, run: () => instructions(c.argv) })), instructionRounds, 'M instructions', 0);
} else if (instructionRounds > 0) {
  console.log('\n## instructions: not counted, valgrind is not installed');
}

// 3. One wake of the rendered wrapper, agent /bin/true, against /bin/true itself.
function wrapperCase(name, pathDirs, hours) {
  const dir = join(tmp, name);
  const repo = join(dir, 'repo');
  mkdirSync(repo, { recursive: true });
  writeFileSync(join(repo, 'README'), 'x\n');
  const s = {
    version: 1,
    name: 'bench',
    repo,
    agent: { harness: 'command', bin: '/bin/true', prompt: 'Do one chunk.' },
    schedule: { scheduler: 'cron', every: '5m', hours },
    timeout: '4m',
    env: { HOME: dir, PATH: pathDirs },
    // The wrapper's own cost: the OS jail (on by default) is measured by its suite.
    sandbox: false,
  };
  writeFileSync(join(dir, 'spec.json'), JSON.stringify(s));
  // The default state folder, outside the repo.
  const state = join(dir, '.local/state/hbgen/bench');
  const r = spawnSync(node, [HBGEN, 'render', join(dir, 'spec.json'), '--out', state], { env });
  if (r.status !== 0) throw new Error(String(r.stderr));
  return { state, argv: cronEntry(state) };
}

/**
 * The wake as cron starts it: the rendered crontab line's command, with cron's `\%` made `%`
 * again (an unescaped % ends the command: https://man7.org/linux/man-pages/man5/crontab.5.html),
 * run by /bin/sh -c as cron runs it. The entry checks the wrapper's and the runtime's SHA-256
 * and hands the sums on, so the wake runs no checksum of its own: what a scheduled fire
 * costs, not a wake by hand.
 */
function cronEntry(state) {
  const line = readFileSync(join(state, 'host', 'crontab'), 'utf8').split('\n').find((l) => l && !l.startsWith('#'));
  if (!line) throw new Error(`${state}/host/crontab holds no entry line`);
  // `exec`: the shell that reads the line becomes the entry, so the count below is the
  // entry's and the wake's, as test/wake-processes.test.ts counts them (dash forks for the
  // last command of a -c string it was given).
  return ['/bin/sh', '-c', `exec ${line.split(' ').slice(5).join(' ').replaceAll('\\%', '%')}`];
}
/** What the entry itself creates before it becomes the wrapper: its command substitution and one sha256sum. */
const ENTRY_PROCESSES = 2;
const bare = join(tmp, 'bare-bin');
mkdirSync(bare);
for (const t of ['env', 'date', 'sleep', 'mkdir', 'rmdir', 'rm', 'mv', 'find', 'head', 'ps', 'awk', 'cat', 'nice', 'kill', 'true']) {
  const src = ['/usr/bin', '/bin'].map((d) => join(d, t)).find((p) => existsSync(p));
  if (src) symlinkSync(src, join(bare, t));
}
const always = { start: '00:00', end: '24:00', timezone: 'UTC' };
const h = (new Date().getUTCHours() + 12) % 24;
const never = { start: `${String(h).padStart(2, '0')}:00`, end: `${String(h + 1).padStart(2, '0')}:00`, timezone: 'UTC' };
const full = wrapperCase('full', '/usr/local/bin:/usr/bin:/bin', always);
const closed = wrapperCase('closed', '/usr/local/bin:/usr/bin:/bin', never);
const noTools = wrapperCase('bare', bare, always);
// Paused by the plan's limit: a pause a day long in the state folder.
const paused = wrapperCase('paused', '/usr/local/bin:/usr/bin:/bin', always);
const pausedAt = Math.floor(Date.now() / 1000);
writeFileSync(join(paused.state, 'paused'), `${pausedAt + 86400} ${pausedAt}\nYou've hit your session limit\n`);
// The entry's own share: the same line, for a wrapper that is `exit 0` beside a copy of the
// runtime (the entry sums both), with that wrapper's SHA-256 in place of the real one's.
const entryOnly = (() => {
  const dir = join(tmp, 'entry-only');
  mkdirSync(dir);
  const sha = (text) => createHash('sha256').update(text).digest('hex');
  const rt = readdirSync(closed.state).find((f) => /^runtime-.*\.sh$/.test(f));
  writeFileSync(join(dir, rt), readFileSync(join(closed.state, rt)));
  writeFileSync(join(dir, 'heartbeat.sh'), 'exit 0\n');
  const was = sha(readFileSync(join(closed.state, 'heartbeat.sh')));
  const cmd = closed.argv[2];
  if (!cmd.includes(was)) throw new Error("the crontab line does not hold the wrapper's SHA-256");
  return [...closed.argv.slice(0, 2), cmd.replaceAll(closed.state, dir).replace(was, sha('exit 0\n'))];
})();
group('one wake of heartbeat.sh as cron starts it (its entry included; /bin/sh = dash, agent /bin/true) vs /bin/true', [
  { label: '/bin/true', run: () => time(['/bin/true']) },
  { label: 'the entry alone (its checksum, a wrapper that exits at once)', run: () => time(entryOnly) },
  { label: 'wake, window open, flock + timeout on PATH', run: () => time(full.argv), goal: '≤ entry + 12 ms' },
  { label: 'wake outside working hours', run: () => time(closed.argv), goal: '≤ entry + 5 ms' },
  { label: "wake paused by the plan's limit (skip-limit)", run: () => time(paused.argv), goal: '≤ entry + 5 ms' },
  { label: 'wake, PATH without flock/timeout (mkdir lock, sh watchdog)', run: () => time(noTools.argv), goal: '≤ entry + 25 ms' },
]);

// 3a. Processes one wake creates (forks and clones: each tool run, each subshell), counted
// with strace -f over a few wakes (the median: every fifth wake also checks the log's size).
const strace = ['/usr/bin/strace', '/bin/strace'].find((p) => existsSync(p));
function forks(argv) {
  const o = join(tmp, 'strace.out');
  // trace=process: every process shows at least its exit_group, so each PID is one process.
  const r = spawnSync(strace, ['-f', '-qq', '-e', 'trace=process', '-o', o, ...argv], { stdio: 'ignore', env });
  if (r.status !== 0) throw new Error(`strace ${argv.join(' ')} exited ${r.status}`);
  const text = readFileSync(o, 'utf8');
  const top = text.split(' ', 1)[0];
  return new Set(text.split('\n').filter(Boolean).map((l) => l.split(' ', 1)[0]).filter((p) => p !== top)).size - ENTRY_PROCESSES;
}
if (strace) {
  console.log(`\n## processes one wake creates after its entry's ${ENTRY_PROCESSES} (strace -f, /bin/sh = dash, median of 5 wakes; as test/wake-processes.test.ts counts them)`);
  for (const [label, script, goal] of [
    ['wake, window open, flock + timeout on PATH', full, '≤ 9'],
    // date, and the find that proves the log has one name before the skip line.
    ['wake outside working hours', closed, '≤ 2 (as before)'],
    ["wake paused by the plan's limit (skip-limit)", paused, '≤ 2 (as before)'],
    ['wake, PATH without flock/timeout', noTools, '≤ 12'],
  ]) {
    const n = median(Array.from({ length: 5 }, () => forks(script.argv)));
    console.log(`${label.padEnd(58)} ${String(n).padStart(9)}            ${goal}`);
  }
} else {
  console.log('\n## processes one wake creates: not counted, strace is not installed');
}

// 3b. The billing check before a wake (claude-code and codex presets): the real client's own
// status command, logged in on the plan from credential files made here (fake tokens; the
// agent itself is a stand-in that exits 0). Needs the clients the tests install.
const clients = join(process.env.HBTEST_AGENT_CLIENTS ?? join(tmpdir(), 'hbgen-agent-clients'), 'node_modules', '.bin');
if (existsSync(join(clients, 'claude')) && existsSync(join(clients, 'codex'))) {
  const billed = (name, harness, realBin, login) => {
    const dir = join(tmp, name);
    const repo = join(dir, 'repo');
    mkdirSync(repo, { recursive: true });
    writeFileSync(join(repo, 'README'), 'x\n');
    login(dir);
    const shim = join(dir, 'client');
    writeFileSync(shim, `#!/bin/sh\ncase "$1 \${2-}" in 'auth status' | 'login status') exec '${realBin}' "$@" ;; esac\nexit 0\n`, { mode: 0o755 });
    const s = {
      version: 1,
      name: 'bench',
      repo,
      agent: { harness, bin: shim, prompt: 'Do one chunk.' },
      schedule: { scheduler: 'cron', every: '5m', hours: always },
      timeout: '4m',
      env: { HOME: dir, PATH: `${dirname(node)}:/usr/local/bin:/usr/bin:/bin` },
      sandbox: false,
    };
    writeFileSync(join(dir, 'spec.json'), JSON.stringify(s));
    const state = join(dir, '.local/state/hbgen/bench');
    const r = spawnSync(node, [HBGEN, 'render', join(dir, 'spec.json'), '--out', state], { env });
    if (r.status !== 0) throw new Error(String(r.stderr));
    return cronEntry(state);
  };
  const claudeLogin = (home) => {
    mkdirSync(join(home, '.claude'), { recursive: true });
    const expiresAt = Date.now() + 30 * 86_400_000;
    writeFileSync(join(home, '.claude', '.credentials.json'), JSON.stringify({ claudeAiOauth: { accessToken: 'sk-ant-oat01-bench', refreshToken: 'r', expiresAt, scopes: ['user:inference'], subscriptionType: 'max' } }));
  };
  const codexLogin = (home) => {
    mkdirSync(join(home, '.codex'), { recursive: true });
    const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const jwt = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ email: 'ada@example.com', 'https://api.openai.com/auth': { chatgpt_plan_type: 'plus', chatgpt_account_id: 'a' }, exp: 4102444800 })}.c2ln`;
    writeFileSync(join(home, '.codex', 'auth.json'), JSON.stringify({ OPENAI_API_KEY: null, tokens: { id_token: jwt, access_token: jwt, refresh_token: 'r', account_id: 'a' }, last_refresh: '2026-12-01T00:00:00Z' }));
  };
  const claudeWake = billed('claude', 'claude-code', realpathSync(join(clients, 'claude')), claudeLogin);
  const codexWake = billed('codex', 'codex', realpathSync(join(clients, 'codex')), codexLogin);
  group('what the billing check adds to a wake (real client, logged in on the plan; goal < 1 s)', [
    { label: 'wake, harness command (no check)', run: () => time(full.argv) },
    { label: 'wake, claude-code: `claude auth status` first', run: () => time(claudeWake), goal: '< 1000 ms added' },
    { label: 'wake, codex: `codex login status` first', run: () => time(codexWake), goal: '< 1000 ms added' },
  ], Math.min(rounds, 15));
} else {
  console.log(`\n## the billing check: not measured, the real clients are not in ${clients} (the agents and billing tests install them)`);
}

// 4. Scale: many specs rendered in one process.
const script = `
import { renderSpec } from ${JSON.stringify(join(root, 'src/pipeline.ts'))};
import { validateSpec } from ${JSON.stringify(join(root, 'src/spec.ts'))};
import { readFileSync } from 'node:fs';
const base = JSON.parse(readFileSync(${JSON.stringify(spec)}, 'utf8'));
const specs = Array.from({ length: 100 }, (_, i) => validateSpec({ ...base, name: 'spec-' + i, schedule: { ...base.schedule, minute: undefined, scheduler: ['cron', 'launchd', 'systemd-user'][i % 3] } }).spec);
for (const s of specs.slice(0, 3)) await renderSpec(s);
for (const n of [1, 10, 100]) {
  const t = performance.now();
  for (let i = 0; i < n; i++) await renderSpec(specs[i]);
  const ms = performance.now() - t;
  console.log(String(n).padStart(4) + ' specs: ' + ms.toFixed(1).padStart(7) + ' ms, ' + (ms / n).toFixed(2) + ' ms per spec');
}
`;
writeFileSync(join(tmp, 'scale.mjs'), script);
console.log('\n## rendering many specs in one process (renderSpec, warm; goal: linear)');
const r = spawnSync(node, ['--import', 'tsx', join(tmp, 'scale.mjs')], { env, cwd: root, encoding: 'utf8' });
process.stdout.write(r.stdout + r.stderr);
