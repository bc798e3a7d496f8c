// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// heartbeat.sh's step 5d, the wake's bounds (spec limits), in every shell of the matrix:
// - where the wake's control group holds the bounds (pids.max, memory.max), a bound the
//   agent reached is named in the outcome, read from the cgroup's own counters
//   (pids.events max, memory.events oom_kill) before and after the agent. This machine's
//   cgroup v2 has no pids or memory controller, so the cgroup files are a stand-in folder
//   bind-mounted over /sys/fs/cgroup in the run's private mount namespace, and the agent
//   plays the kernel: it raises a counter the way the kernel does when a fork is refused or
//   the OOM killer ends a process. What this proves is the wrapper's reading, not the kernel's
//   enforcement (test/lifecycle-bounds-real.test.ts runs real fork bombs and memory eaters);
// - where no cgroup holds them, the agent runs under RLIMIT_DATA (ulimit -d) and, except
//   as root, RLIMIT_NPROC (prlimit), and rlimits are not asked where a cgroup holds them;
// - cron with a user manager: the agent runs in a transient scope (a stand-in systemd-run)
//   asked for with the bounds' properties, and the scope's counters after the agent are read;
// - the real node binary and the real Claude Code client start under the bounds;
// - "limits": false renders no bounds at all.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PATHS, SHELLS, makeCase, run, shell } from './helpers/wrapper.ts';
import { realClients } from './helpers/clients.ts';

/** The data size limit this test process has (and passes on): what an agent without rlimits keeps. */
const inherited = () => /^Max data size\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))![1];

const LIMITS = { limits: { tasks: 64, memory: '64M' } };
const TASKS = 'limits.tasks reached (64 tasks); raise limits.tasks in the spec';
const MEMORY = 'limits.memory reached (64M, killed out of memory); raise limits.memory in the spec';

/** The agent's copy of the bounds record (<stateDir>/bounds lives from the bounds step to the reap). */
const KEEP = (c: { state: string }) => `cat '${c.state}/bounds' >"$HBTEST_DIR/bounds"`;
const kept = (c: { rec: string }) => readFileSync(join(c.rec, 'bounds'), 'utf8');

/** This process's cgroup v2 path ("/" in a container's root), as the wrapper reads it. */
const ownCgroup = () => readFileSync('/proc/self/cgroup', 'utf8').split('\n').find((l) => l.startsWith('0::'))!.slice(3).replace(/(.)\/$/, '$1');

/** A stand-in of the cgroup files, and the `wrap` that mounts it over /sys/fs/cgroup for one run. */
function fakeCgroup(files: Record<string, string> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'hbgen-cg-'));
  const dir = join(root, ownCgroup());
  mkdirSync(dir, { recursive: true });
  const all = { 'cgroup.procs': '', 'pids.max': '64\n', 'memory.max': '67108864\n', 'pids.events': 'max 0\n', 'memory.events': 'low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n', ...files };
  for (const [f, v] of Object.entries(all)) writeFileSync(join(dir, f), v);
  return {
    /** Where the agent sees the files (inside the run's mount namespace). */
    seen: join('/sys/fs/cgroup', ownCgroup()),
    wrap: { before: `mount --bind '${root}' /sys/fs/cgroup || exit 99`, after: '' },
    done: () => rmSync(root, { recursive: true, force: true }),
  };
}

for (const sh of SHELLS) {
  test(`${sh.name}: a cgroup's refused fork (pids.events max) ends the wake fail N with limits.tasks named`, async () => {
    const cg = fakeCgroup();
    const c = makeCase({ spec: LIMITS, env: { HBTEST_CG: cg.seen } });
    c.behave('echo "max 3" >"$HBTEST_CG/pids.events"; exit 1\n');
    const r = await run(c, sh, { args: ['--now'], wrap: cg.wrap });
    cg.done();
    assert.is(r.code, 1, r.stderr + c.log());
    assert.is(c.outcomes().at(-1), `fail 1 ${TASKS}`, c.log());
  });
}

test('dash: an OOM kill in the cgroup (memory.events oom_kill) ends the wake fail 137 with limits.memory named', async () => {
  const cg = fakeCgroup();
  const c = makeCase({ spec: LIMITS, env: { HBTEST_CG: cg.seen } });
  c.behave('sed -i "s/^oom_kill 0$/oom_kill 1/" "$HBTEST_CG/memory.events"; kill -9 $$\n');
  const r = await run(c, shell('dash'), { args: ['--now'], wrap: cg.wrap });
  cg.done();
  assert.is(r.code, 137, r.stderr + c.log());
  assert.is(c.outcomes().at(-1), `fail 137 ${MEMORY}`, c.log());
});

test('dash: a failing agent whose cgroup counted nothing ends plain fail N; a cgroup that holds both bounds gets no rlimit', async () => {
  const cg = fakeCgroup({ 'pids.events': 'max 7\n' });
  const c = makeCase({ spec: LIMITS, env: { HBTEST_CG: cg.seen } });
  c.behave(`cat /proc/$$/limits >"$HBTEST_DIR/limits"; ${KEEP(c)}; exit 3\n`);
  const r = await run(c, shell('dash'), { args: ['--now'], wrap: cg.wrap });
  cg.done();
  assert.is(r.code, 3, r.stderr + c.log());
  assert.is(c.outcomes().at(-1), 'fail 3', c.log());
  const limits = readFileSync(join(c.rec, 'limits'), 'utf8');
  assert.match(limits, new RegExp(`^Max data size\\s+${inherited()}\\s`, 'm'));
  assert.match(kept(c), /^cgroup - 7 0 \/sys\/fs\/cgroup/);
  assert.not.ok(existsSync(join(c.state, 'bounds')), 'the reap removes the record');
});

test('dash: a cgroup whose pids.max is above limits.tasks does not hold it; the agent runs under rlimits then', async () => {
  const cg = fakeCgroup({ 'pids.max': '100000\n', 'memory.max': 'max\n' });
  const c = makeCase({ spec: LIMITS, env: { HBTEST_CG: cg.seen } });
  c.behave('cat /proc/$$/limits >"$HBTEST_DIR/limits"; echo "max 3" >"$HBTEST_CG/pids.events"; exit 1\n');
  const r = await run(c, shell('dash'), { args: ['--now'], wrap: cg.wrap });
  cg.done();
  assert.is(r.code, 1, r.stderr + c.log());
  // The cgroup's counter is not this bound's: no limits.tasks in the outcome.
  assert.is(c.outcomes().at(-1), 'fail 1', c.log());
  assert.match(readFileSync(join(c.rec, 'limits'), 'utf8'), /^Max data size\s+67108864\s+67108864\s+bytes/m);
});

test('dash: with no cgroup that holds them (this machine), the agent runs under RLIMIT_DATA; root gets no RLIMIT_NPROC (it would not hold)', async () => {
  const c = makeCase({ spec: LIMITS });
  c.behave(`cat /proc/$$/limits >"$HBTEST_DIR/limits"; ${KEEP(c)}\n`);
  const r = await run(c, shell('dash'), { args: ['--now'] });
  assert.is(r.code, 0, r.stderr + c.log());
  const limits = readFileSync(join(c.rec, 'limits'), 'utf8');
  assert.match(limits, /^Max data size\s+67108864\s+67108864\s+bytes/m);
  assert.not.match(limits, /^Max processes\s+64\s/m);
  assert.match(kept(c), /^rlimit data - - /);
});

for (const sh of SHELLS) {
  test(`${sh.name}: under RLIMIT_DATA a failing agent that says it ran out of memory ends fail N with limits.memory named, inferred; other words do not`, async () => {
    const c = makeCase({ spec: LIMITS });
    c.behave('echo "Traceback (most recent call last):" >&2; echo MemoryError >&2; exit 1\n');
    const r = await run(c, sh, { args: ['--now'] });
    assert.is(r.code, 1, r.stderr + c.log());
    assert.is(c.outcomes().at(-1), "fail 1 limits.memory reached (64M per process, inferred from the agent's out-of-memory message); raise limits.memory in the spec", c.log());
    c.behave('echo "no more work" >&2; exit 1\n');
    const r2 = await run(c, sh, { args: ['--now'] });
    assert.is(r2.code, 1, r2.stderr + c.log());
    assert.is(c.outcomes().at(-1), 'fail 1', c.log());
  });
}

// cron's transient scope: a STAND-IN systemd-run (first on the spec's PATH) records its argv
// and runs what follows `--`, as a scope would (without making one); a socket where the
// user manager's would be (/run/user/0/systemd/private, in the run's private mount
// namespace) makes the wrapper ask for it. With the cgroup stand-in above, the sh in the
// "scope" stays the agent's parent and adds the counters after it ("end"), which the
// outcome reads.
function scopeStandIn(cgroup = '') {
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-sdrun-'));
  writeFileSync(join(dir, 'systemd-run'), `#!/bin/sh
printf '%s\\n' "$*" >>'${dir}/calls'
while [ "$#" -gt 0 ] && [ "$1" != -- ]; do shift; done
[ "$#" -gt 0 ] || exec true
shift
"$@"
rc=$?
# The scope's cgroup ends with its last process: its counters are gone with it.
[ -z '${cgroup}' ] || echo "max 0" >'${cgroup}/pids.events'
exit "$rc"
`, { mode: 0o755 });
  const socket = `mkdir -p /run/user && mount -t tmpfs tmpfs /run/user && mkdir -p /run/user/0/systemd && python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("/run/user/0/systemd/private")' || exit 99`;
  return { path: `${dir}:${PATHS.full}`, calls: () => readFileSync(join(dir, 'calls'), 'utf8').trim().split('\n'), socket, done: () => rmSync(dir, { recursive: true, force: true }) };
}
const CRON = { schedule: { scheduler: 'cron', every: '5m', hours: { start: '00:00', end: '24:00', timezone: 'Europe/Berlin' } } };

for (const sh of SHELLS) {
  test(`${sh.name}: cron with a user manager: the agent runs in a transient scope with the bounds, and a refused fork its cgroup counted after the agent is named`, async () => {
    const cg = fakeCgroup();
    const sd = scopeStandIn(cg.seen);
    const c = makeCase({ spec: { ...CRON, ...LIMITS }, path: sd.path, env: { HBTEST_CG: cg.seen } });
    c.behave('echo "max 3" >"$HBTEST_CG/pids.events"; exit 1\n');
    const r = await run(c, sh, { args: ['--now'], wrap: { before: `${cg.wrap.before}; ${sd.socket}`, after: '' } });
    const calls = sd.calls();
    cg.done();
    sd.done();
    assert.is(r.code, 1, r.stderr + c.log());
    assert.is(c.outcomes().at(-1), `fail 1 ${TASKS}`, c.log());
    const props = '--user --scope --quiet --collect -p TasksMax=64 -p MemoryMax=64M -p MemorySwapMax=0';
    assert.is(calls[0], `${props} true`, 'the probe asks with the bounds\' properties');
    assert.ok(calls[1]!.startsWith(`${props} -- /bin/sh -c `), calls[1]);
    // Named from the line the sh in the scope added after the agent: the counters were gone by the outcome.
    assert.not.ok(existsSync(join(c.state, 'bounds')), 'the reap removes the record');
  });
}

test('dash: cron with a user manager: the default share of the RAM goes to the scope as a size when it is more than 8G', async () => {
  const sd = scopeStandIn();
  const c = makeCase({ spec: { ...CRON, limits: { tasks: 64 } }, path: sd.path });
  const r = await run(c, shell('dash'), { args: ['--now'], wrap: { before: sd.socket, after: '' } });
  const calls = sd.calls();
  sd.done();
  assert.is(r.code, 0, r.stderr + c.log());
  const kib = Number(/^MemTotal:\s+(\d+)/m.exec(readFileSync('/proc/meminfo', 'utf8'))![1]);
  const want = Math.floor(kib / 100) * 50 > 8 * 1024 * 1024 ? `${8 * 1024 * 1024}K` : '50%';
  assert.ok(calls[1]!.includes(` -p MemoryMax=${want} `), calls[1]);
});

// The Node clients (Claude Code) under RLIMIT_DATA: V8 reserves far more address space than
// it uses, which RLIMIT_AS would refuse; RLIMIT_DATA counts only what it writes.
for (const limits of [{}, { memory: '256M' }]) {
  test(`dash: the real node binary starts and allocates under the bounds ${JSON.stringify(limits)}`, async () => {
    const c = makeCase({ spec: { limits } });
    c.behave(`cat /proc/$$/limits >"$HBTEST_DIR/limits"; exec ${process.execPath} -e 'const a = []; for (let i = 0; i < 64; i++) a.push(Buffer.alloc(1 << 20, 1)); console.log("node ok", a.length)'\n`);
    const r = await run(c, shell('dash'), { args: ['--now'] });
    assert.is(r.code, 0, r.stderr + c.log());
    assert.match(c.agentLog(), /^node ok 64$/m);
    assert.match(readFileSync(join(c.rec, 'limits'), 'utf8'), /^Max data size\s+\d+\s/m);
    assert.not.match(readFileSync(join(c.rec, 'limits'), 'utf8'), /^Max data size\s+unlimited/m);
  });
}

// Claude Code's client is no node program but a Bun executable, which needs more: spec
// validation refuses a limits.memory below 1G for harness "claude-code" (it aborted at 512M
// when measured, and started at 576M). The real client, at that floor and at the default.
for (const limits of [{ memory: '1G' }, {}]) {
  test(`dash: the real Claude Code client starts under the bounds ${JSON.stringify(limits)}`, async () => {
    const found = realClients();
    if ('why' in found) throw new Error(`the real clients are not here, so Claude Code under the bounds is not proven: ${found.why}`);
    const c = makeCase({ spec: { limits } });
    c.behave(`cat /proc/$$/limits >"$HBTEST_DIR/limits"; exec ${found.claude} --version\n`);
    const r = await run(c, shell('dash'), { args: ['--now'] });
    assert.is(r.code, 0, r.stderr + c.log());
    assert.match(c.agentLog(), /^\S+ \(Claude Code\)$/m);
    assert.not.match(readFileSync(join(c.rec, 'limits'), 'utf8'), /^Max data size\s+unlimited/m);
  });
}

test('dash: the default memory bound is half the RAM, turned into KiB at run time from /proc/meminfo, at most 8G', async () => {
  const c = makeCase({ spec: { limits: { tasks: 64 } } });
  c.behave('cat /proc/$$/limits >"$HBTEST_DIR/limits"\n');
  const r = await run(c, shell('dash'), { args: ['--now'] });
  assert.is(r.code, 0, r.stderr + c.log());
  const kib = Number(/^MemTotal:\s+(\d+)/m.exec(readFileSync('/proc/meminfo', 'utf8'))![1]);
  const want = Math.min(Math.floor(kib / 100) * 50, 8 * 1024 * 1024) * 1024;
  assert.match(readFileSync(join(c.rec, 'limits'), 'utf8'), new RegExp(`^Max data size\\s+${want}\\s`, 'm'));
});

test('"limits": false renders no bounds: the agent runs without rlimits and a counted refusal is not named', async () => {
  const cg = fakeCgroup();
  const c = makeCase({ spec: { limits: false }, env: { HBTEST_CG: cg.seen } });
  assert.not.match(c.files['heartbeat.sh']!, /hbgen-bounds|hb_bnd/);
  c.behave('cat /proc/$$/limits >"$HBTEST_DIR/limits"; echo "max 3" >"$HBTEST_CG/pids.events"; exit 1\n');
  const r = await run(c, shell('dash'), { args: ['--now'], wrap: cg.wrap });
  cg.done();
  assert.is(r.code, 1, r.stderr + c.log());
  assert.is(c.outcomes().at(-1), 'fail 1', c.log());
  assert.match(readFileSync(join(c.rec, 'limits'), 'utf8'), new RegExp(`^Max data size\\s+${inherited()}\\s`, 'm'));
});

test.run();
