// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// Told when it stops working. A notify stand-in records each call and its
// environment; a local HTTP server on 127.0.0.1 (in this process) records the pings. The
// wrapper runs under every shell, on a full PATH and on one without curl, wget, timeout,
// flock and setsid (as on a bare macOS).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { PATHS, SHELLS, type Case, type Shell, agentShell, join, killPending, makeCase, run, shell, sleep, survivors, waitFor } from './helpers/wrapper.ts';

const dash = shell('dash');

// --- The ping server -----------------------------------------------------------------
// /hc/ID, /hc/ID/start, /hc/ID/fail answer 200 and are recorded by ID; /hang/... never answers.
const pings = new Map<string, string[]>();
// /g/...: every request recorded whole, with the header a client's config file would add.
const raw: { url: string; rc: string | undefined }[] = [];
const server = createServer((req, res) => {
  const url = req.url ?? '';
  if (url.startsWith('/g/')) {
    raw.push({ url, rc: req.headers['x-from-config'] as string | undefined });
    res.end('OK');
    return;
  }
  const m = /^\/hc\/([a-z0-9-]+)(\/start|\/fail)?$/.exec(url);
  if (m) {
    const list = pings.get(m[1]!) ?? [];
    list.push(m[2] ?? '/');
    pings.set(m[1]!, list);
    res.end('OK');
    return;
  }
  if (url.startsWith('/hang/')) return; // held open: the client's own timeout must end it
  res.statusCode = 404;
  res.end();
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
const port = (server.address() as AddressInfo).port;
server.unref();

// A PATH with wget but no curl (GNU wget, the one Debian ships).
const wgetPath = (() => {
  const dir = join(PATHS.bare, '..', 'wget-path');
  if (!existsSync(dir)) {
    mkdirSync(dir);
    for (const t of readdirSync(PATHS.bare)) symlinkSync(join(PATHS.bare, t), join(dir, t));
    symlinkSync('/usr/bin/wget', join(dir, 'wget'));
  }
  return dir;
})();

// --- The notify stand-in ---------------------------------------------------------------
// Appends "EVENT STREAK" to calls, keeps the environ of the last call, then runs
// $HBTEST_DIR/notify-behave when there is one.
function notifier(c: Case): string {
  const f = join(c.dir, 'bin', 'notify');
  writeFileSync(
    f,
    `#!${agentShell}
d=$HBTEST_DIR
printf '%s %s\\n' "$HBGEN_EVENT" "$HBGEN_STREAK" >>"$d/calls"
cat /proc/$$/environ >"$d/notify-env"
printf '%s\\n' "$@" >"$d/notify-argv"
if [ -f "$d/notify-behave" ]; then . "$d/notify-behave"; fi
exit 0
`,
    { mode: 0o755 },
  );
  return f;
}

let ids = 0;
interface TellCase extends Case {
  id: string;
  calls(): string[];
  pings(): string[];
  /** The session of the last wake's wrapper. */
  lastPid?: number;
  /** The wrapper's exit status for one wake whose agent runs `behave`. */
  wake(behave: string, sh?: Shell, args?: string[]): Promise<number | null>;
}

function tellCase(o: { path?: string; spec?: Record<string, unknown>; ping?: string | null; notify?: boolean; env?: Record<string, string> } = {}): TellCase {
  const id = `c${++ids}`;
  // The notify program's path is known only once the case's folder is: render twice.
  const first = makeCase({ path: o.path, install: false });
  const bin = notifier(first);
  const ping = o.ping === undefined ? `http://127.0.0.1:${port}/hc/${id}` : o.ping;
  const c = makeCase({
    path: o.path,
    spec: {
      ...(o.notify === false ? {} : { notify: [bin, 'hbgen says', 'it $HOME'] }),
      ...(ping === null ? {} : { ping }),
      // The gate is closed while rec/closed exists: a skip.
      gate: ['/usr/bin/test', '!', '-e', join(first.rec, 'closed')],
      env: { HBTEST_DIR: first.rec, ...(o.env ?? {}) },
      ...(o.spec ?? {}),
    },
  });
  const t = c as TellCase;
  t.rec = first.rec;
  t.id = id;
  t.calls = () => (existsSync(join(first.rec, 'calls')) ? readFileSync(join(first.rec, 'calls'), 'utf8').split('\n').filter(Boolean) : []);
  t.pings = () => pings.get(id) ?? [];
  t.wake = async (behave, sh = dash, args = []) => {
    writeFileSync(join(first.rec, 'behave'), behave);
    const r = await run(c, sh, { args, onSpawn: (p) => (t.lastPid = p) });
    return r.code;
  };
  return t;
}

const FAIL = 'exit 1\n';
const QUIET = 'exit 0\n';
const OK = 'echo done >"$PWD/work"\nexit 0\n';
const notes = (c: Case) => c.log().split('\n').filter((l) => / note /.test(l)).map((l) => l.replace(/^\S+ hbgen \S+ note /, ''));

for (const path of ['full', 'bare'] as const) {
  for (const sh of SHELLS) {
    test(`${sh.name}, ${path} PATH: the 3rd failing wake in a row notifies once, skips do not count, the success after notifies "recovered" once; pings ${path === 'full' ? 'start, fail, success' : 'skipped with a note'}`, async () => {
      const c = tellCase({ path: PATHS[path] });
      assert.is(await c.wake(FAIL, sh), 1);
      assert.is(await c.wake(FAIL, sh), 1);
      writeFileSync(join(c.rec, 'closed'), '');
      assert.is(await c.wake(FAIL, sh), 0, 'a skip');
      rmSync(join(c.rec, 'closed'));
      assert.equal(c.calls(), [], 'two failures and a skip: no notify yet');
      assert.is(await c.wake(FAIL, sh), 1, 'the exit status is the agent\'s');
      assert.equal(c.calls(), ['failing 3']);
      // The watcher sleeps a second at a time: it is gone a second after the wake.
      await sleep(1200);
      assert.equal(survivors([c.lastPid!]), [], 'the bound\'s watcher and its sleep are gone with the wake');
      assert.is(readFileSync(join(c.state, 'streak'), 'utf8'), '3\n');
      assert.is(await c.wake(FAIL, sh), 1);
      assert.equal(c.calls(), ['failing 3'], 'not again at the 4th');
      assert.is(await c.wake(OK, sh), 0);
      assert.equal(c.calls(), ['failing 3', 'recovered 4']);
      assert.not.ok(existsSync(join(c.state, 'streak')), 'a success sets the streak back');
      assert.is(await c.wake(QUIET, sh), 0);
      assert.equal(c.calls(), ['failing 3', 'recovered 4'], 'once');
      const outs = c.outcomes().filter((o) => !o.startsWith('note '));
      assert.equal(outs.filter((o) => !o.startsWith('start ')), ['fail 1', 'fail 1', 'skip-gate exit 1', 'fail 1', 'fail 1', 'ok', 'quiet']);
      if (path === 'full') {
        const want = ['/start', '/fail', '/start', '/fail', '/start', '/fail', '/start', '/fail', '/start', '/', '/start', '/'];
        assert.equal(c.pings(), want, 'no ping for the skip');
        assert.equal(notes(c), ['notify failing 3: exit 0', 'notify recovered 4: exit 0']);
      } else {
        assert.equal(c.pings(), []);
        // One note per wake that would ping (the skip would not).
        assert.equal(notes(c).filter((n) => n.startsWith('ping')).length, 6);
        assert.ok(notes(c).every((n) => n === 'ping skipped: no curl or wget on PATH' || n.startsWith('notify ')), notes(c).join('\n'));
      }
    });
  }
}

// The lost /start ping under posh: posh 0.14 starts `wait`'s getopt(3) parse at optind 1,
// so glibc resumes the last builtin's parse inside its freed words (after `command -v`);
// once that memory is reused, `wait` fails at once ("invalid option", exit 1) and the
// bound's clean-up ended curl before it sent anything. MALLOC_PERTURB_ makes glibc fill
// freed memory, so the reuse happens every time instead of now and then.
test('posh with freed memory overwritten (MALLOC_PERTURB_): ping, notify and the agent are each waited for to their end', async () => {
  const sh = shell('posh');
  for (const path of [PATHS.full, PATHS.bare]) {
    const c = tellCase({ path, spec: { notifyAfter: 1, timeout: '20s' }, env: { MALLOC_PERTURB_: '165' } });
    writeFileSync(join(c.rec, 'notify-behave'), 'sleep 1\nexit 5\n');
    assert.is(await c.wake('sleep 1\nexit 3\n', sh), 3, c.log());
    assert.equal(c.pings(), path === PATHS.full ? ['/start', '/fail'] : []);
    assert.equal(notes(c).filter((n) => !n.startsWith('ping skipped')), ['notify failing 1: exit 5'], c.log());
    assert.equal(c.calls(), ['failing 1']);
  }
});

test('the notify program gets exactly the spec env plus HBGEN_NAME, REPO, EVENT, STREAK, LOG and OUTCOME, its argv as written, its output in runtime.log', async () => {
  const c = tellCase({ spec: { notifyAfter: 1 } });
  writeFileSync(join(c.rec, 'notify-behave'), 'echo "told: $HBGEN_EVENT"\n');
  assert.is(await c.wake('exit 7\n'), 7);
  const env = readFileSync(join(c.rec, 'notify-env'), 'utf8').split('\0').filter(Boolean).sort();
  const specEnv = Object.entries(c.spec.env).map(([k, v]) => `${k}=${v}`);
  assert.equal(env, [...specEnv, `HBGEN_EVENT=failing`, `HBGEN_LOG=${join(c.state, 'runtime.log')}`, 'HBGEN_NAME=tst', 'HBGEN_OUTCOME=fail 7', `HBGEN_REPO=${c.repo}`, 'HBGEN_STREAK=1'].sort());
  assert.is(readFileSync(join(c.rec, 'notify-argv'), 'utf8'), 'hbgen says\nit $HOME\n');
  assert.match(c.log(), /\ntold: failing\n/);
});

test('a fault (error) counts and notifies, and the success after it recovers; --smoke and the plan\'s limit neither count nor break the streak (a pause notifies on its own)', async () => {
  const c = tellCase({ spec: { notifyAfter: 2 } });
  assert.is(await c.wake(FAIL), 1);
  // The plan's limit: a `command` agent exits 75.
  assert.is(await c.wake('exit 75\n'), 0);
  assert.match(c.outcomes().at(-2)!, /^limit until /);
  assert.match(c.outcomes().at(-1)!, /^note notify limit 1: exit 0$/);
  rmSync(join(c.state, 'paused'));
  assert.is(await c.wake('', dash, ['--smoke']), 0);
  assert.equal(c.calls(), ['limit 1'], 'the pause told, the streak not');
  assert.is(readFileSync(join(c.state, 'streak'), 'utf8'), '1\n');
  // The agent's binary is gone: a setup fault, exit 78.
  const keep = readFileSync(c.bin);
  rmSync(c.bin);
  assert.is(await c.wake(FAIL), 78);
  assert.equal(c.calls(), ['limit 1', 'failing 2']);
  assert.match(readFileSync(join(c.rec, 'notify-env'), 'utf8'), /\0HBGEN_OUTCOME=error agent binary \S+ is missing or not executable; install it or fix agent.bin\0/);
  writeFileSync(c.bin, keep, { mode: 0o755 });
  assert.is(await c.wake(QUIET), 0);
  assert.equal(c.calls(), ['limit 1', 'failing 2', 'recovered 2']);
  assert.equal(c.pings(), ['/start', '/fail', '/start', '/fail', '/start', '/']);
});

test('a garbage, linked or folder streak file counts as 0 and is replaced, never written through', async () => {
  const c = tellCase({ spec: { notifyAfter: 2 } });
  const f = join(c.state, 'streak');
  writeFileSync(f, 'lots\n');
  assert.is(await c.wake(FAIL), 1);
  assert.is(readFileSync(f, 'utf8'), '1\n');
  const target = join(c.dir, 'target');
  writeFileSync(target, '1\n');
  rmSync(f);
  symlinkSync(target, f);
  assert.is(await c.wake(FAIL), 1);
  assert.is(readFileSync(target, 'utf8'), '1\n', 'the link\'s target is untouched');
  assert.not.ok(lstatSync(f).isSymbolicLink());
  assert.is(readFileSync(f, 'utf8'), '1\n', 'the link read as 0');
  rmSync(f);
  symlinkSync(target, `${f}.tmp`);
  writeFileSync(f, '99999999999999999999\n');
  assert.is(await c.wake(FAIL), 1);
  assert.is(readFileSync(f, 'utf8'), '1\n');
  assert.is(readFileSync(target, 'utf8'), '1\n');
  rmSync(f);
  mkdirSync(f);
  assert.is(await c.wake(FAIL), 1, 'a folder in its place does not break the wake');
  assert.match(notes(c).join('\n'), /cannot write the failing streak/);
});

test('a notify that hangs is stopped after 10 s, one that fails is noted; neither changes the exit status or leaves a process behind', async () => {
  for (const [sh, path] of [[dash, PATHS.full], [shell('posh'), PATHS.bare]] as const) {
    const c = tellCase({ spec: { notifyAfter: 1 }, path, ping: null });
    writeFileSync(join(c.rec, 'notify-behave'), 'trap "" TERM\nwhile :; do sleep 1; done\n');
    let pid = 0;
    const t0 = Date.now();
    writeFileSync(join(c.rec, 'behave'), FAIL);
    const r = await run(c, sh, { onSpawn: (p) => (pid = p), limitMs: 30000 });
    const ms = Date.now() - t0;
    assert.is(r.code, 1, `${sh.name}: ${r.stderr}\n${c.log()}`);
    assert.ok(ms >= 9500 && ms < 16000, `${sh.name}: ${ms} ms`);
    assert.equal(notes(c), ['notify failing 1: no exit within 10s, stopped']);
    await sleep(1200);
    assert.equal(survivors([pid]), [], `${sh.name}: nothing left behind`);
    writeFileSync(join(c.rec, 'notify-behave'), 'exit 3\n');
    rmSync(join(c.state, 'streak'));
    assert.is(await c.wake(FAIL, sh), 1);
    assert.equal(notes(c).at(-1), 'notify failing 1: exit 3');
  }
});

// Without timeout(1) the watcher counted the bound in turns of its one-second loop; on a
// loaded machine each turn takes longer, and a 10 s bound became 15 s and more (the flaky
// test above). Here every sleep(1) on PATH takes twice its time: the bound still holds by
// the clock.
test('without timeout(1), a notify that hangs is stopped by the clock even when each second of the watcher takes two', async () => {
  const dir = join(PATHS.bare, '..', 'slow-sleep-path');
  if (!existsSync(dir)) {
    mkdirSync(dir);
    for (const t of readdirSync(PATHS.bare)) if (t !== 'sleep') symlinkSync(join(PATHS.bare, t), join(dir, t));
    writeFileSync(join(dir, 'sleep'), `#!${agentShell}\nexec /usr/bin/sleep "$(/usr/bin/awk -v s="$1" 'BEGIN { print s * 2 }')"\n`, { mode: 0o755 });
  }
  const c = tellCase({ spec: { notifyAfter: 1 }, path: dir, ping: null });
  writeFileSync(join(c.rec, 'notify-behave'), 'trap "" TERM\nwhile :; do /usr/bin/sleep 1; done\n');
  writeFileSync(join(c.rec, 'behave'), FAIL);
  const t0 = Date.now();
  const r = await run(c, dash, { limitMs: 40000 });
  const ms = Date.now() - t0;
  assert.is(r.code, 1, c.log());
  assert.equal(notes(c), ['notify failing 1: no exit within 10s, stopped']);
  // TERM once more than 10 s have passed by the clock (a turn of 2 s late at most), KILL a turn later.
  assert.ok(ms < 17000, `${ms} ms`);
});

test('a ping server that never answers is bounded (curl -m 5, wget -T 5), noted, and the exit status stays the agent\'s', async () => {
  for (const path of [PATHS.full, wgetPath]) {
    const c = tellCase({ ping: `http://127.0.0.1:${port}/hang/x`, notify: false, path });
    const t0 = Date.now();
    assert.is(await c.wake('exit 4\n'), 4);
    const ms = Date.now() - t0;
    assert.ok(ms >= 9000 && ms < 16000, `${ms} ms`);
    const tool = path === wgetPath ? 'wget' : 'curl';
    assert.equal(notes(c).map((n) => n.replace(/exit \d+$/, 'exit N')), [`ping /start failed: ${tool} exit N`, `ping /fail failed: ${tool} exit N`]);
  }
});

test('wget pings as curl does; a refused connection is a note, not a failure', async () => {
  const c = tellCase({ notify: false, path: wgetPath });
  assert.is(await c.wake(QUIET), 0);
  assert.equal(c.pings(), ['/start', '/']);
  assert.equal(notes(c), []);
  const d = tellCase({ notify: false, ping: 'http://127.0.0.1:1/nothing-listens' });
  assert.is(await d.wake(QUIET), 0);
  assert.equal(notes(d), ['ping /start failed: curl exit 7', 'ping (success) failed: curl exit 7']);
});

// Only the notify program's PID was signalled; a child it forked lived on
// after the wake. Its tree is now a group of its own (setsid(1), or bash/mksh job control)
// or, without either, found with ps; what is left when it exits is ended too.
// A zombie, or one the wrapper has sent SIGKILL that the kernel has yet to end, is gone.
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8')) && !killPending(pid);
  } catch {
    return false;
  }
};
const pidsIn = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8').split(/\s+/).filter(Boolean).map(Number) : []);

for (const [name, path] of [['dash', 'full'], ['dash', 'bare'], ['bash', 'bare'], ['mksh', 'bare'], ['posh', 'bare'], ['yash', 'bare'], ['busybox sh', 'bare']] as const) {
  test(`${name}, ${path} PATH: children the notify program forks (one that ignores TERM) do not outlive the wake, when it exits at once${name === 'dash' || name === 'bash' ? ' and when it runs into its bound' : ''}`, async () => {
    const sh = shell(name);
    // Running into the bound takes 10 s: once for each way the tree is found.
    for (const hang of name === 'dash' || name === 'bash' ? [false, true] : [false]) {
      const c = tellCase({ spec: { notifyAfter: 1 }, path: PATHS[path], ping: null });
      // A child that sleeps, one that ignores TERM, and a grandchild whose parent exits
      // at once (re-parented away from the tree).
      writeFileSync(
        join(c.rec, 'notify-behave'),
        `sleep 300 & echo $! >>"$d/kids"
(trap '' TERM; exec sleep 301) & echo $! >>"$d/kids"
${agentShell} -c 'sleep 302 & echo $! >>"$1/kids"' - "$d"
${hang ? 'while :; do sleep 1; done' : 'exit 0'}
`,
      );
      let pid = 0;
      writeFileSync(join(c.rec, 'behave'), FAIL);
      const r = await run(c, sh, { onSpawn: (p) => (pid = p), limitMs: 30000 });
      assert.is(r.code, 1, `${r.stderr}\n${c.log()}`);
      const kids = pidsIn(join(c.rec, 'kids'));
      assert.is(kids.length, 3, c.log());
      assert.equal(notes(c), [hang ? 'notify failing 1: no exit within 10s, stopped' : 'notify failing 1: exit 0']);
      assert.equal(kids.filter(alive), [], `${name}, hang ${hang}: the notify program's children are gone with the wake`);
      await sleep(1200);
      assert.equal(survivors([pid]), [], 'nothing else left behind');
    }
  });
}

// A notify program that hangs outlived a wrapper killed meanwhile (seen 43 minutes after its
// test): with setsid on PATH it ran in a session of its own, out of reach of the kill of
// the wrapper's group, and its watcher died with the wrapper. Now timeout(1) keeps the
// bound by itself, and without it the program stays in the wrapper's group.
for (const [name, path] of [['dash', 'full'], ['posh', 'full'], ['dash', 'setsid'], ['dash', 'bare']] as const) {
  test(`${name}, ${path} PATH: a notify program that hangs does not outlive a wrapper killed (its whole group, KILL) while it runs`, async () => {
    const c = tellCase({ spec: { notifyAfter: 1 }, path: PATHS[path], ping: null });
    writeFileSync(join(c.rec, 'notify-behave'), 'echo $$ >"$d/notify-pid"\ntrap "" TERM\nwhile :; do sleep 1; done\n');
    writeFileSync(join(c.rec, 'behave'), FAIL);
    let pid = 0;
    const r = run(c, shell(name), { onSpawn: (p) => (pid = p), limitMs: 30000 });
    const f = join(c.rec, 'notify-pid');
    await waitFor(() => existsSync(f) && readFileSync(f, 'utf8').endsWith('\n'), 15000, 'the notify program started');
    const n = Number(readFileSync(f, 'utf8'));
    process.kill(-pid, 'SIGKILL');
    await r;
    // The bound is 10 s from the program's start, KILL a second later.
    await waitFor(() => !alive(n), 16000, `notify ${n} gone`).catch(() => {});
    const left = alive(n);
    if (left) process.kill(n, 'SIGKILL');
    assert.not.ok(left, `${name}, ${path}: the notify program outlived the killed wrapper`);
  });
}

// The ping URL went to curl without --globoff: "x[1-5]" made 5 requests.
test('a ping URL with [] and {} is requested once, as written, by curl and by wget; neither reads a config file in HOME', async () => {
  for (const path of [PATHS.full, wgetPath]) {
    const tag = `p${ids}`;
    const c = tellCase({ notify: false, path, ping: `http://127.0.0.1:${port}/g/${tag}x[1-5]{a,b}` });
    // The spec's HOME holds a config file that would add a header (and, for curl, options).
    writeFileSync(join(c.dir, '.curlrc'), 'header = "X-From-Config: curlrc"\n');
    writeFileSync(join(c.dir, '.wgetrc'), 'header = X-From-Config: wgetrc\n');
    raw.length = 0;
    assert.is(await c.wake(QUIET), 0);
    const base = `/g/${tag}x[1-5]{a,b}`;
    assert.equal(raw.map((x) => decodeURI(x.url)), [`${base}/start`, base], `${path === wgetPath ? 'wget' : 'curl'}: ${JSON.stringify(raw)}`);
    assert.equal(raw.map((x) => x.rc), [undefined, undefined], 'no config file was read');
    assert.equal(notes(c), []);
  }
});

// A pause at the plan's limit told nobody.
test('every pause at the plan\'s limit runs notify (HBGEN_EVENT=limit, HBGEN_STREAK the pauses in a row); a second far one is cut and says so', async () => {
  const c = tellCase({ ping: null });
  const far = 'echo "retry-after: 691200"\nexit 75\n';
  assert.is(await c.wake(far), 0);
  assert.match(c.outcomes().at(-2)!, /^limit until \S+$/);
  assert.equal(c.calls(), ['limit 1']);
  assert.match(readFileSync(join(c.rec, 'notify-env'), 'utf8'), /\0HBGEN_OUTCOME=limit until \S+\0/);
  rmSync(join(c.state, 'paused'));
  assert.is(await c.wake(far), 0);
  assert.match(c.outcomes().at(-2)!, /^limit until \S+ \(a second far reset in a row with no ok or quiet wake between: not believed, paused for 1h\)$/);
  assert.equal(c.calls(), ['limit 1', 'limit 2']);
  assert.is(c.outcomes().at(-1), 'note notify limit 2: exit 0');
});

test('without notify and ping heartbeat.sh switches neither on (the runtime calls them only when on)', () => {
  const c = makeCase({ install: false });
  assert.not.match(c.files['heartbeat.sh']!, /hb_notify_\d|hb_ping_url/);
  const n = tellCase({ ping: null });
  assert.match(n.files['heartbeat.sh']!, /\nhb_notify_1=/);
  assert.not.match(n.files['heartbeat.sh']!, /hb_ping_url/);
  const rt = Object.entries(c.files).find(([k]) => k.startsWith('runtime-'))![1];
  assert.match(rt, /\[ -z "\$hb_tellon" \] \|\| hb_tell "\$hb_outcome_code"/);
});

test.after(() => {
  server.close();
});
test.run();
