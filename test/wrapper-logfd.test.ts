// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// runtime.log on one descriptor, and faults that are loud, in every shell as /bin/sh with
// a full PATH and a bare one (no flock, timeout, setsid):
// - the wrapper holds runtime.log on fd 3, the scheduler's stderr on fd 4 and agent.log on
//   fd 5 for the whole wake; no process it starts (agent, timeout, setsid, timer, sleep)
//   holds runtime.log or agent.log but as its stdout or stderr, nor the scheduler's stderr,
//   and the agent holds no runtime.log at all;
// - an agent that swaps runtime.log for a symbolic link cannot redirect the outcome line;
// - a state folder that is full before the wake, filled by the agent during its run, or
//   read-only: one line on the scheduler's stderr saying what failed, exit 78, nothing
//   counted, and whatever still fits in runtime.log. The disk is a real 64 KiB tmpfs,
//   mounted over the state folder in the run's own mount namespace and filled with dd
//   until ENOSPC (df is checked: 0 blocks available).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, readlinkSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLog } from '../src/formats.ts';
import { PATHS, SHELLS, type Case, killPending, makeCase, procs, run, sleep, waitFor, writeWrapper } from './helpers/wrapper.ts';

const TOOLSETS = [
  ['full', PATHS.full],
  ['bare', PATHS.bare],
] as const;

/** fd number -> link target of a live process ({} when it is gone). */
function fds(pid: number): Record<string, string> {
  const out: Record<string, string> = {};
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        out[fd] = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {}
    }
  } catch {}
  return out;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

function descendants(root: number): number[] {
  const all = procs();
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const p of all) {
      if (p.ppid === pid && p.state !== 'Z') {
        out.push(p.pid);
        walk(p.pid);
      }
    }
  };
  walk(root);
  return out;
}

for (const sh of SHELLS) {
  for (const [tname, path] of TOOLSETS) {
    test(`${sh.name} / ${tname}: runtime.log is one descriptor; no helper holds it or the scheduler's stderr`, async () => {
      const c = makeCase({ path, spec: { timeout: '6s', killAfter: '1s' } });
      c.behave('sleep 2\n');
      let pid = 0;
      const p = run(c, sh, { onSpawn: (x) => (pid = x) });
      await waitFor(() => existsSync(join(c.rec, 'started')), 5000, 'agent started');
      await sleep(300);
      const log = join(c.state, 'runtime.log');
      const agentLog = join(c.state, 'agent.log');
      const own = fds(pid);
      const comm = (k: number) => {
        try {
          return readFileSync(`/proc/${k}/comm`, 'utf8').trim();
        } catch {
          return '?';
        }
      };
      const kids = descendants(pid).map((k) => ({ pid: k, comm: comm(k), fds: fds(k) }));
      const r = await p;
      assert.is(r.code, 0, r.stderr + c.log());
      assert.is(r.stderr, '');
      assert.equal(c.outcomes(), ['start wake 1', 'quiet']);
      // (fd 2 is /dev/null while the wrapper waits: `wait ... 2>/dev/null`.)
      assert.is(own['3'], log, JSON.stringify(own));
      assert.is(own['1'], log, JSON.stringify(own));
      assert.is(own['5'], agentLog, JSON.stringify(own));
      assert.match(own['4'] ?? '', /^(pipe|socket):/, "fd 4 is the caller's stderr");
      const agent = kids.find((k) => k.comm === 'agent');
      assert.ok(agent, JSON.stringify(kids));
      assert.equal([agent!.fds['1'], agent!.fds['2']], [agentLog, agentLog], "the agent's stdout and stderr are agent.log");
      for (const k of kids) {
        for (const [fd, target] of Object.entries(k.fds)) {
          assert.ok(target !== own['4'], `${k.comm} (${k.pid}) holds the scheduler's stderr on fd ${fd}`);
          assert.ok(target !== log || fd === '1' || fd === '2', `${k.comm} (${k.pid}) holds runtime.log on fd ${fd}`);
          assert.ok(target !== log || k !== agent, `the agent holds runtime.log on fd ${fd}`);
          assert.ok(target !== agentLog || fd === '1' || fd === '2', `${k.comm} (${k.pid}) holds agent.log on fd ${fd}`);
          assert.not.match(target, /heartbeat\.lock/, `${k.comm} holds the lock`);
        }
      }
    });

    test(`${sh.name} / ${tname}: an agent that swaps runtime.log for a link cannot redirect the outcome`, async () => {
      const c = makeCase({ path });
      const victim = join(c.dir, 'victim');
      writeFileSync(victim, 'precious\n');
      const moved = join(c.dir, 'moved.log');
      // The agent's PATH may lack mv and ln (bare): both are on it, as the wrapper needs them.
      c.behave(`mv "${c.state}/runtime.log" "${moved}"\nln -s "${victim}" "${c.state}/runtime.log"\n`);
      const r = await run(c, sh);
      assert.is(r.code, 0, r.stderr);
      assert.is(readFileSync(victim, 'utf8'), 'precious\n');
      const lines = readFileSync(moved, 'utf8').split('\n').filter((l) => / hbgen tst /.test(l) && !/ hbgen tst took \d+ s$/.test(l)).map((l) => l.replace(/^\S+ hbgen tst /, ''));
      assert.equal(lines, ['start wake 1', 'quiet']);
      // The next wake refuses the link, loudly, and runs nothing.
      const r2 = await run(c, sh);
      assert.is(r2.code, 78);
      assert.match(r2.stderr, /^hbgen tst: log .*runtime\.log is a symbolic link; remove it/);
      assert.is(readFileSync(victim, 'utf8'), 'precious\n');
      assert.is(c.runs().length, 1);
    });
  }
}

for (const sh of SHELLS) {
  test(`${sh.name}: a caller that closed stderr: the wake runs, and a fault still reaches runtime.log`, async () => {
    const c = makeCase();
    const closed = { before: 'exec 2>&-', after: ':' };
    const r = await run(c, sh, { wrap: closed });
    assert.is(r.code, 0, c.log());
    assert.equal(c.outcomes(), ['start wake 1', 'quiet']);
    writeFileSync(join(c.state, 'wakes'), 'garbage\n');
    const r2 = await run(c, sh, { wrap: closed });
    assert.is(r2.code, 78, c.log());
    assert.match(c.outcomes().at(-1)!, /^error the wake counter .* is unreadable/);
    assert.is(r2.stderr, '');
  });
}

// ---------------------------------------------------------------- a real full disk

interface DiskRun {
  code: number | null;
  stderr: string[];
  /** runtime.log as the wrapper left it on the tmpfs ('' when there was none). */
  log: string;
  /** agent.log the same. */
  agentLog: string;
  /** 1K blocks available on the tmpfs before and after the wake. */
  availBefore: number;
  availAfter: number;
  /** What the tmpfs held after the wake. */
  files: string[];
}

/**
 * Run the wrapper (a copy outside the state folder) with a 64 KiB tmpfs mounted over the
 * state folder. `prepare` runs in it first (as root, cwd the state folder, $S its path),
 * then, unless `ro`, the disk is filled with dd until ENOSPC; `ro` remounts it read-only.
 */
async function diskRun(c: Case, sh: (typeof SHELLS)[number], prepare: string, how: 'full' | 'empty' | 'ro'): Promise<DiskRun> {
  const script = join(c.dir, 'heartbeat.sh');
  writeWrapper(script, c.files);
  const out = join(c.dir, 'disk');
  const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
  const before = [
    `S=${q(c.state)}; O=${q(out)}`,
    'mkdir -p "$O" && mount -t tmpfs -o size=64k,mode=700 tmpfs "$S" || exit 90',
    'cd "$S" || exit 91',
    prepare,
    how === 'full' ? 'dd if=/dev/zero of="$S/fill" bs=1k 2>/dev/null; : ' : ':',
    'df -k --output=avail "$S" | tail -n 1 >"$O/avail-before"',
    how === 'ro' ? 'mount -o remount,ro "$S" || exit 92' : ':',
    'cd /',
  ].join('\n');
  const after = ['df -k --output=avail "$S" | tail -n 1 >"$O/avail-after"', 'cp "$S/runtime.log" "$O/log" 2>/dev/null', 'cp "$S/agent.log" "$O/agentlog" 2>/dev/null', 'ls -A "$S" >"$O/files"'].join('\n');
  const r = await run(c, sh, { script, wrap: { before, after } });
  const read = (f: string) => (existsSync(join(out, f)) ? readFileSync(join(out, f), 'utf8') : '');
  assert.ok(r.code === null || r.code < 90 || r.code > 92, `the test's own setup failed (exit ${r.code}): ${r.stderr}`);
  return {
    code: r.code,
    stderr: r.stderr.split('\n').filter(Boolean),
    log: read('log'),
    agentLog: read('agentlog'),
    availBefore: Number(read('avail-before').trim()),
    availAfter: Number(read('avail-after').trim()),
    files: read('files').split('\n').filter(Boolean),
  };
}

// hbgen's own parser: a line torn by the full disk ends with the wrapper's next line.
// The boot clock's `took N s` is left out (test/log-clock.test.ts reads it).
const outcomesOf = (log: string) => parseLog(log, 'tst').filter((l) => l.outcome !== 'took').map((l) => `${l.outcome}${l.detail ? ` ${l.detail}` : ''}`);
/**
 * The log's last line but the note that may follow it: the fault counts in the failing
 * streak (the pause after failures reads it), and on a full disk the streak's own file
 * cannot be written either, which one note line after the fault says.
 */
function faultOf(o: string[]): string | undefined {
  const last = o.at(-1) ?? '';
  if (/^note cannot write the failing streak \S+streak; check the state folder$/.test(last)) return o.at(-2);
  return last;
}

const EARLIER = '2026-11-30T08:07:00Z hbgen tst start wake 1\n2026-11-30T08:07:05Z hbgen tst quiet\n';

for (const sh of SHELLS) {
  for (const [tname, path] of TOOLSETS) {
    test(`${sh.name} / ${tname}: state folder full before the wake: loud, exit 78, no agent, nothing counted`, async () => {
      // An empty log on a full disk: not a byte fits.
      const c = makeCase({ path });
      const d = await diskRun(c, sh, ': >runtime.log', 'full');
      assert.is(d.availBefore, 0, 'the disk is full');
      assert.is(d.code, 78, d.stderr.join('\n'));
      assert.is(d.stderr.length, 1, d.stderr.join('\n'));
      assert.match(d.stderr[0]!, /^hbgen tst: /);
      if (tname === 'full') assert.match(d.stderr[0]!, /^hbgen tst: cannot write "start wake 1" to the log \S+runtime\.log \(disk full, read-only or an I\/O error\); free space or make \S+ writable/);
      else assert.match(d.stderr[0]!, /cannot take the lock folder .*owner record.*runtime\.log could not be written either$/);
      assert.is(d.log, '');
      assert.equal(c.runs(), []);
      assert.not.ok(d.files.includes('wakes'), d.files.join(' '));
      assert.not.ok(d.files.includes('heartbeat.lock.d'), 'no lock folder left behind');

      // Logs whose last page still has room: the lines that fit are there, the fault too.
      const c2 = makeCase({ path });
      const d2 = await diskRun(c2, sh, `printf '%s' '${EARLIER}' >runtime.log; printf '%s' '${EARLIER}' >agent.log`, 'full');
      assert.is(d2.availBefore, 0, 'the disk is full');
      assert.is(d2.code, 78, d2.stderr.join('\n'));
      assert.is(d2.stderr.length, 1, d2.stderr.join('\n'));
      const fault = tname === 'full' ? /^cannot update the wake counter / : /^cannot take the lock folder /;
      assert.match(d2.stderr[0]!.replace(/^hbgen tst: /, ''), fault);
      const o = outcomesOf(d2.log);
      assert.equal(o.slice(0, 2), ['start wake 1', 'quiet']);
      assert.equal(o.slice(2, tname === 'full' ? 3 : 2), tname === 'full' ? ['start wake 1'] : []);
      assert.is(faultOf(o), `error ${d2.stderr[0]!.replace(/^hbgen tst: /, '')}`, 'the fault line in runtime.log is the one on stderr');
      assert.equal(c2.runs(), []);
      assert.not.ok(d2.files.includes('wakes'));
      if (tname === 'full') assert.is(d2.agentLog, `${EARLIER}${d2.log.split('\n')[2]}\n`, "agent.log got this wake's start line");

      // runtime.log has room, an empty agent.log none: the start line cannot be copied there, so no agent runs.
      const c3 = makeCase({ path });
      const d3 = await diskRun(c3, sh, `printf '%s' '${EARLIER}' >runtime.log; : >agent.log`, 'full');
      assert.is(d3.code, 78, d3.stderr.join('\n'));
      assert.is(d3.stderr.length, 1, d3.stderr.join('\n'));
      const fault3 = tname === 'full' ? `cannot write the agent's log ${c3.state}/agent.log (disk full, read-only or an I/O error); free space or make ${c3.state} writable` : /^cannot take the lock folder /;
      if (typeof fault3 === 'string') assert.is(d3.stderr[0]!.replace(/^hbgen tst: /, ''), fault3);
      else assert.match(d3.stderr[0]!.replace(/^hbgen tst: /, ''), fault3);
      assert.is(faultOf(outcomesOf(d3.log)), `error ${d3.stderr[0]!.replace(/^hbgen tst: /, '')}`);
      assert.is(d3.agentLog, '');
      assert.equal(c3.runs(), []);
    });

    test(`${sh.name} / ${tname}: the agent fills the disk: the outcome still fits in runtime.log; one that cannot be written goes to stderr, exit 78`, async () => {
      // The agent's stdout is agent.log: it writes until ENOSPC, then exits 0. The
      // wrapper removes its agent record and the bounds record (and empties a watchdog timer's file) before the
      // outcome, which frees a page: the outcome still fits, as any byte that fits is written.
      const fill = 'while printf "agent output line\\n"; do :; done 2>/dev/null\n';
      const c = makeCase({ path, spec: { timeout: '10s' } });
      c.behave(`${fill}exit 0\n`);
      const d = await diskRun(c, sh, ':', 'empty');
      assert.ok(d.availBefore > 0, 'the disk had room before');
      assert.is(d.code, 0, d.stderr.join('\n'));
      assert.equal(outcomesOf(d.log), ['start wake 1', 'quiet']);
      assert.match(d.agentLog, /^\S+ hbgen tst start wake 1\nagent output line\n/);
      assert.not.match(d.log, /agent output line/, "runtime.log holds none of the agent's output");
      // A hostile agent also removes the wrapper's files it could free first, and fills the
      // disk to the last byte through its output: the outcome still fits, in runtime.log's
      // own last page (the agent's output no longer shares it).
      const hostile = (c: Case, more = '') => c.behave(`sleep 1\nrm -f "${c.state}/agent" "${c.state}"/timer.* "${c.state}/bounds"\n${fill}${more}exit 0\n`);
      const c2 = makeCase({ path, spec: { timeout: '10s' } });
      hostile(c2);
      const d2 = await diskRun(c2, sh, ':', 'empty');
      assert.ok(d2.availBefore > 0, 'the disk had room before');
      // Full to the last block; on the bare PATH the mkdir lock's owner record (one page) is
      // freed when the lock is released, after the outcome was written.
      assert.is(d2.availAfter, tname === 'full' ? 0 : 4, 'the agent filled the disk');
      assert.is(d2.code, 0, d2.stderr.join('\n'));
      assert.equal(outcomesOf(d2.log), ['start wake 1', 'quiet']);
      // Unjailed, it can also open runtime.log by name and fill its last page: then the
      // outcome line cannot be written.
      const c3 = makeCase({ path, spec: { timeout: '10s' } });
      hostile(c3, `while printf x >>"${c3.state}/runtime.log"; do :; done 2>/dev/null\n`);
      const d3 = await diskRun(c3, sh, ':', 'empty');
      assert.is(d3.availAfter, tname === 'full' ? 0 : 4, 'the agent filled the disk');
      assert.is(d3.code, 78, d3.stderr.join('\n'));
      assert.is(d3.stderr.length, 1, d3.stderr.join('\n'));
      assert.match(d3.stderr[0]!, /^hbgen tst: cannot write "quiet" to the log \S+runtime\.log \(disk full, read-only or an I\/O error\)/);
      assert.equal(outcomesOf(d3.log), ['start wake 1']);
      assert.equal(c3.runs().length, 1);
      assert.ok(d3.files.includes('wakes'), 'the wake that ran is counted');
    });

    test(`${sh.name} / ${tname}: a read-only state folder: loud, exit 78, no agent, the log as it was`, async () => {
      const c = makeCase({ path });
      const d = await diskRun(c, sh, `printf '%s' '${EARLIER}' >runtime.log`, 'ro');
      assert.is(d.code, 78, d.stderr.join('\n'));
      // busybox's test -w answers yes for root on a read-only mount: the open of the log says it.
      const why =
        sh.name === 'busybox sh'
          ? `hbgen tst: cannot open the log ${c.state}/runtime.log for appending; check its permissions and that its file system is writable`
          : `hbgen tst: state folder ${c.state} is not a writable folder (no permission, or a read-only file system); make it writable (chmod u+rwx, or mount it read-write)`;
      assert.equal(d.stderr, [why]);
      assert.is(d.log, EARLIER);
      assert.equal(c.runs(), []);
      assert.not.ok(d.files.includes('wakes'));
    });
  }
}

// The sh watchdog (bare PATH) keeps the deadline when the agent has filled the disk and
// keeps grabbing every block that frees: the timer marks its file "fired" in place, taking
// no new block (a truncate-and-write could lose the block to the agent, and the wrapper
// would then drop the ALRM and wait for the agent for ever).
for (const sh of SHELLS) {
  test(`${sh.name} / bare: an agent that fills the disk and ignores TERM still ends at its deadline`, async () => {
    const T = 2;
    const K = 1;
    const c = makeCase({ path: PATHS.bare, spec: { timeout: `${T}s`, killAfter: `${K}s` } });
    const S = c.state;
    c.behave(
      [
        'trap "" TERM',
        'sleep 0.5',
        `(trap "" TERM; while [ ! -e "${c.rec}/stop" ]; do printf x >>"${S}/grab" 2>/dev/null; done) &`,
        `while printf "%s\\n" fill-fill-fill-fill >>"${S}/fill"; do :; done 2>/dev/null`,
        'sleep 30',
        '',
      ].join('\n'),
    );
    const t0 = Date.now();
    const d = await diskRun(c, sh, ':', 'empty');
    const took = Date.now() - t0;
    await sleep(100);
    // Gone: exited, a zombie, or killed with the KILL still pending (it cannot run again;
    // on a loaded machine the kernel may not have acted on it 100 ms later).
    const left = procs().filter((p) => p.state !== 'Z' && !killPending(p.pid) && cmdline(p.pid).includes(c.bin));
    writeFileSync(join(c.rec, 'stop'), ''); // a leaked writer loop ends here
    assert.equal(left.map((p) => p.pid), [], 'the agent and its writer loop are gone');
    assert.ok(d.code === 124 || d.code === 78, `exit ${d.code}: ${d.stderr.join('\n')}`);
    if (d.code === 78) assert.match(d.stderr.join('\n'), /cannot write "timeout after 2s" to the log/);
    else assert.equal(outcomesOf(d.log), ['start wake 1', 'timeout after 2s']);
    assert.ok(took <= (T + K + 1) * 1000 + 1500, `the wake took ${took} ms; timeout + killAfter + 1 s is ${(T + K + 1) * 1000} ms`);
  });
}

test.run();
