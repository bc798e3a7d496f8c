// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// The scheduler entry checks the wrapper before it runs it (generators/entry.ts):
// - why a SHA-256 and not POSIX cksum: test/helpers/cksum.ts computes what the real
//   cksum(1) prints (coreutils, toybox, and busybox where its cksum applet is built in)
//   on random bytes, empty to 16 MiB, and a wrapper forged to the installed one's length
//   and cksum (test/helpers/forge.ts; the real cksum agrees) runs its own command when
//   run directly, but never through the entry;
// - the hex SHA-256 of the pipeline is what sha256sum, shasum -a 256 and busybox print;
// - the entry, decoded from each rendered host file the way its scheduler reads it (the
//   crontab line as Debian cron unescapes `\%` and hands it to `/bin/sh -c`; ExecStart= as
//   systemd decodes it; ProgramArguments as plistlib reads it), run for real with each
//   shell of the matrix as /bin/sh: the installed wrapper runs, as exactly `/bin/sh
//   <stateDir>/heartbeat.sh`; a wrapper with one byte appended, or with a line that would
//   create a file, never runs: `error wrapper changed` in runtime.log, one line on stderr,
//   exit 78. A sha256sum (or a shell function) that the scheduler's environment puts first
//   says "match" in vain: the entry sets its own PATH and runs /usr/bin/sha256sum, else
//   /usr/bin/shasum -a 256, else /bin/busybox sha256sum; with none it refuses. A missing
//   wrapper is refused the same way, and the refusal never writes through a runtime.log
//   planted as a link.
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { entryScript } from '../generators/entry.ts';
import { parseLogLine } from '../src/formats.ts';
import { cksumLine } from './helpers/cksum.ts';
import { expectedEntry } from './helpers/entry.ts';
import { forgeSameCksum } from './helpers/forge.ts';
import { execDollar, plistOracles, run as runTool, sdDecodedExecStart, sdVerify, tmp } from './helpers/tools.ts';
import { type Case, JUNK_ENV, SHELLS, makeCase, run, shell, shellcheck } from './helpers/wrapper.ts';

// ---------------------------------------------------------------- checksums

/** Does this argv run here (the tool and its applet exist)? */
const works = (argv: string[]) => {
  try {
    return runTool(argv[0]!, argv.slice(1), { input: '' }).code === 0;
  } catch {
    return false;
  }
};

/**
 * The real cksum implementations on this host: coreutils always; toybox and busybox when
 * present with a cksum applet (Debian's busybox is built without one, Alpine's has it;
 * Debian's toybox has it: apt-get install toybox).
 */
function cksums(): { name: string; argv: string[] }[] {
  const out = [{ name: 'coreutils cksum', argv: ['cksum'] }];
  for (const argv of [['toybox', 'cksum'], ['busybox', 'cksum']]) if (works(argv)) out.push({ name: argv.join(' '), argv });
  return out;
}

/** Each implementation's line for each file, read from standard input. */
function linesOf(argv: string[], files: string[]): string[] {
  const r = runTool('sh', ['-c', `for f; do ${argv.join(' ')} <"$f" || exit; done`, 'sh', ...files]);
  assert.is(r.code, 0, `${argv.join(' ')}: ${r.stderr}`);
  return r.stdout.split('\n').slice(0, -1);
}

function randomFiles(): { sizes: number[]; files: string[] } {
  const dir = tmp('hbgen-ck');
  const sizes = [0, 1, 2, 3, 4, 7, 8, 255, 256, 257, 65535, 65536, 65537, 16777215, 16777216, 16777217];
  for (let i = 0; i < 150; i++) sizes.push(Math.floor(Math.random() * 5000));
  const files = sizes.map((n, i) => {
    const f = join(dir, `s${i}`);
    writeFileSync(f, randomBytes(n));
    return f;
  });
  return { sizes, files };
}

test('test/helpers/cksum.ts prints what the real cksum prints, on random bytes from empty to 16 MiB', () => {
  const { sizes, files } = randomFiles();
  const ours = files.map((f) => cksumLine(readFileSync(f)));
  const impls = cksums();
  for (const impl of impls) {
    const theirs = linesOf(impl.argv, files);
    assert.is(theirs.length, files.length, impl.name);
    sizes.forEach((n, i) => assert.is(ours[i], theirs[i], `${impl.name}, ${n} bytes (${files[i]})`));
  }
  assert.is(cksumLine(''), '4294967295 0');
  assert.is(cksumLine('hello'), '3287646509 5');
});

test('the SHA-256 the entry carries is what sha256sum, shasum -a 256 and busybox sha256sum print', async () => {
  const { renderNow } = await import('./helpers/render.ts');
  const { createHash } = await import('node:crypto');
  const c = makeCase({ install: false });
  const r = renderNow(c.spec);
  const service = r.files.find((f) => f.path.endsWith('.service'))!.content;
  const wrapper = join(tmp('hbgen-sha'), 'heartbeat.sh');
  writeFileSync(wrapper, r.files.find((f) => f.path === 'heartbeat.sh')!.content);
  const { files } = randomFiles();
  for (const argv of [['shasum', '-a', '256'], ['busybox', 'sha256sum'], ['toybox', 'sha256sum']].filter((a) => a[0] !== 'toybox' || works(a))) {
    assert.equal(linesOf(argv, files), linesOf(['sha256sum'], files), argv.join(' '));
  }
  const hex = linesOf(['sha256sum'], [wrapper])[0]!.slice(0, 64);
  assert.is(createHash('sha256').update(readFileSync(wrapper)).digest('hex'), hex);
  assert.ok(service.includes(` = ${hex} ] && HBGEN_SUMS=`), 'the unit carries the wrapper\'s SHA-256');
});

test('the entry\'s script is shellcheck-clean (-s sh)', () => {
  const f = join(tmp('hbgen-entry-sc'), 'entry.sh');
  writeFileSync(f, `#!/bin/sh\n${entryScript('tst', 'a'.repeat(64))}\n`);
  const r = shellcheck(f);
  assert.ok(r.ok, r.out);
});

// ---------------------------------------------------------------- decoding the entry

/**
 * What Debian cron does to a job line's command before it hands it to `/bin/sh -c`
 * (do_command.c): `\%` becomes `%`, any other backslash stays, and an unescaped `%`
 * ends the command (the rest is stdin). Returns null for a command with such a `%`.
 * https://manpages.debian.org/bookworm/cron/crontab.5.en.html
 */
function cronUnescape(cmd: string): string | null {
  let out = '';
  let escaped = false;
  for (const ch of cmd) {
    if (escaped) {
      out = ch === '%' ? `${out.slice(0, -1)}%` : out + ch;
      escaped = false;
      continue;
    }
    if (ch === '%') return null;
    if (ch === '\\') escaped = true;
    out += ch;
  }
  return out;
}

type Target = 'cron' | 'systemd-user' | 'launchd';

/** The argv each scheduler runs, read from the rendered host file by the scheduler's own rules. */
function decodedEntry(target: Target, c: Case): string[] {
  if (target === 'cron') {
    const job = c.files['host/crontab']!.split('\n').find((l) => /^[\d*]/.test(l))!;
    const cmd = /^(?:\S+ ){5}(.*)$/.exec(job)![1]!;
    const unescaped = cronUnescape(cmd);
    assert.ok(unescaped !== null, `an unescaped % in the cron command: ${cmd}`);
    return ['/bin/sh', '-c', unescaped!];
  }
  const units = tmp('hbgen-entry-units');
  if (target === 'systemd-user') {
    const paths = ['service', 'timer'].map((k) => {
      const p = join(units, `hbgen-${c.spec.name}.${k}`);
      writeFileSync(p, c.files[`host/hbgen-${c.spec.name}.${k}`]!, { mode: 0o644 });
      return p;
    });
    assert.is(sdVerify(paths), '', 'systemd-analyze verify --user says nothing');
    const cmds = sdDecodedExecStart(units, `hbgen-${c.spec.name}.timer`).get(`hbgen-${c.spec.name}.service`)!;
    assert.is(cmds.length, 1);
    const argv = cmds[0]!.map(execDollar);
    assert.ok(argv.every((w) => w !== null), 'no word expands a variable at exec time');
    return argv as string[];
  }
  const plist = join(units, 'agent.plist');
  writeFileSync(plist, c.files[`host/dev.hbgen.${c.spec.name}.plist`]!);
  const [o] = plistOracles([plist]);
  assert.not.ok(o!.error, o!.error);
  assert.equal(o!.plistutil, o!.plistlib, 'plistutil and plistlib read the same dict');
  return (o!.plistlib as { ProgramArguments: string[] }).ProgramArguments;
}

// The agent writes the command lines of its ancestors: the wrapper must be among them as
// exactly `/bin/sh <wrapper>`, and no entry shell may be left (it exec'd the wrapper).
const ANCESTORS = `p=$PPID
while [ "$p" -gt 1 ]; do
  tr '\\000' '\\n' </proc/$p/cmdline >"$HBTEST_DIR/anc.$p" 2>/dev/null
  printf '%s\\n' "$p" >>"$HBTEST_DIR/ancestors"
  p=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f2)
done
`;

function ancestors(c: Case): string[][] {
  const pids = readFileSync(join(c.rec, 'ancestors'), 'utf8').split('\n').filter(Boolean);
  return pids.map((p) => readFileSync(join(c.rec, `anc.${p}`), 'utf8').split('\n').slice(0, -1));
}

/** Run the decoded entry with `sh` as /bin/sh: cron's and the others' argv alike start with /bin/sh. */
function runEntry(c: Case, sh: (typeof SHELLS)[number], argv: string[]) {
  assert.is(argv[0], '/bin/sh');
  return run(c, sh, { script: argv[1], args: argv.slice(2) });
}

const REFUSAL = /^hbgen tst: (.*) differs from the wrapper hbgen installed \(or cannot be read\), so it did not run; see hbgen status, then reinstall it with hbgen install$/;

function assertRefused(c: Case, r: { code: number | null; stderr: string }, what: string, logged = true) {
  assert.is(r.code, 78, `${what}: exit status (stderr: ${r.stderr})`);
  const lines = r.stderr.split('\n').filter(Boolean);
  assert.is(lines.length, 1, `${what}: one line on stderr: ${r.stderr}`);
  assert.is(REFUSAL.exec(lines[0]!)?.[1], join(c.state, 'heartbeat.sh'), `${what}: the stderr line names the wrapper`);
  if (!logged) return;
  const last = parseLogLine(c.logLines().at(-1) ?? '');
  assert.equal(last && { name: last.name, outcome: last.outcome, detail: last.detail }, { name: 'tst', outcome: 'error', detail: 'wrapper changed' }, `${what}: the log line`);
  assert.ok(Math.abs(Date.parse(last!.time) - Date.now()) < 60_000, `${what}: logged now, in UTC`);
}

// A state folder whose path every target escapes differently: sh quotes, systemd's
// specifiers and variables, cron's %, XML's < & >, and blanks.
const HOSTILE_STATE = `.hb %d $X 'q' "dq" \\ <&> 100%`;

for (const target of ['cron', 'systemd-user', 'launchd'] as const) {
  for (const sh of SHELLS.filter((s) => s.name !== 'bash')) {
    test(`${target}, /bin/sh = ${sh.name}: the entry runs the installed wrapper; an edited one never runs, is logged, exit 78`, async () => {
      const c = makeCase({ spec: { schedule: { scheduler: target }, stateDir: HOSTILE_STATE } });
      const wrapper = join(c.state, 'heartbeat.sh');
      const argv = target === 'cron' ? null : decodedEntry(target, c);
      if (argv) assert.equal(argv, expectedEntry('tst', c.state, c.files['heartbeat.sh']!), 'the decoded argv is the entry, with the real cksum');
      const entry = argv ?? decodedEntry(target, c);
      c.behave(ANCESTORS);

      const ok = await runEntry(c, sh, entry);
      assert.is(ok.code, 0, `unmodified: exit status (stderr: ${ok.stderr})`);
      assert.is(ok.stderr, '', 'unmodified: nothing on stderr');
      assert.is(c.runs().length, 1, 'unmodified: the agent ran once');
      assert.ok(!c.outcomes().some((o) => o.startsWith('error')), c.outcomes().join('\n'));
      const anc = ancestors(c);
      assert.ok(anc.some((a) => a.join(' ') === `/bin/sh ${wrapper}` && a.length === 2), `the wrapper runs as exactly /bin/sh <wrapper>: ${JSON.stringify(anc)}`);
      assert.ok(!anc.some((a) => a.includes('-c') && a.includes(wrapper)), `no entry shell is left above the wrapper: ${JSON.stringify(anc)}`);

      // One byte appended.
      appendFileSync(wrapper, '\n');
      assertRefused(c, await runEntry(c, sh, entry), 'one byte appended');
      assert.is(c.runs().length, 1, 'the edited wrapper did not start the agent');

      // A line that would create a file, right after the shebang.
      const pwned = join(c.rec, 'PWNED');
      const original = c.files['heartbeat.sh']!;
      writeFileSync(wrapper, original.replace('\n', `\ntouch '${pwned}'\n`));
      assertRefused(c, await runEntry(c, sh, entry), 'a line inserted');
      assert.not.ok(existsSync(pwned), 'the edit did not run');
      // Control: the old entry (`/bin/sh <wrapper>`) would have run that edit.
      if (sh.name === 'dash') {
        await run(c, sh, {});
        assert.ok(existsSync(pwned), 'control: run directly, the edit runs');
      }
    });
  }
}

test('a missing wrapper is refused the same way; a runtime.log planted as a link is not written through', async () => {
  const c = makeCase({ spec: { schedule: { scheduler: 'cron' } } });
  const entry = decodedEntry('cron', c);
  const wrapper = join(c.state, 'heartbeat.sh');
  rmSync(wrapper);
  writeFileSync(join(c.state, 'runtime.log'), '');
  assertRefused(c, await runEntry(c, shell('dash'), entry), 'missing wrapper');

  writeFileSync(wrapper, `${c.files['heartbeat.sh']!}#\n`);
  const victim = join(c.dir, 'victim');
  writeFileSync(victim, 'keep\n');
  rmSync(join(c.state, 'runtime.log'));
  symlinkSync(victim, join(c.state, 'runtime.log'));
  assertRefused(c, await runEntry(c, shell('dash'), entry), 'planted log link', false);
  assert.is(readFileSync(victim, 'utf8'), 'keep\n', 'nothing appended through the link');
  assert.is(c.runs().length, 0);
});

test('a wrapper forged to the installed one\'s length and cksum never runs through the entry (it would under a cksum check)', async () => {
  const c = makeCase({ spec: { schedule: { scheduler: 'cron' } } });
  const entry = decodedEntry('cron', c);
  const wrapper = join(c.state, 'heartbeat.sh');
  const pwned = join(c.rec, 'PWNED');
  const original = readFileSync(wrapper);
  writeFileSync(wrapper, forgeSameCksum(original, `touch '${pwned}'`));
  writeFileSync(join(c.state, 'runtime.log'), '');
  assert.is(runTool('cksum', [wrapper]).stdout.split(' ').slice(0, 2).join(' '), runTool('cksum', [], { input: original }).stdout.trim(), 'the real cksum cannot tell them apart');
  assertRefused(c, await runEntry(c, shell('dash'), entry), 'forged wrapper');
  assert.not.ok(existsSync(pwned), 'the forgery did not run');
  await run(c, shell('dash'), {});
  assert.ok(existsSync(pwned), 'control: run directly, the forgery runs');
});

/**
 * What an attacker who can change the scheduler's environment (a PATH= line above hbgen's
 * crontab block, `systemctl --user set-environment PATH=…`, a drop-in's Environment=) puts
 * first on that PATH: a sha256sum, shasum and busybox that print the expected sum for any
 * input, and a date, that would each make an edited wrapper look installed.
 */
function liarsOnPath(c: Case, sum: string): string {
  const d = join(tmp('hbgen-entry-liars'), 'bin');
  mkdirSync(d);
  for (const t of ['sha256sum', 'shasum', 'busybox', 'date', 'printf', 'env']) {
    writeFileSync(join(d, t), `#!/bin/sh\necho liar ran >>'${join(c.rec, 'LIAR')}'\nprintf '%s  -\\n' ${sum}\n`, { mode: 0o755 });
  }
  return d;
}

test('a sha256sum (or shasum, busybox) earlier on the scheduler\'s PATH that says "match" never makes an edited wrapper run; the entry uses its own PATH and tools at absolute paths', async () => {
  const { createHash } = await import('node:crypto');
  for (const target of ['cron', 'systemd-user', 'launchd'] as const) {
    const c = makeCase({ spec: { schedule: { scheduler: target } } });
    const entry = decodedEntry(target, c);
    const sum = createHash('sha256').update(c.files['heartbeat.sh']!).digest('hex');
    const liars = liarsOnPath(c, sum);
    const env = { ...JUNK_ENV, PATH: `${liars}:/usr/bin:/bin` };
    // Control: the PATH's sha256sum does say the installed sum.
    assert.is(runTool(join(liars, 'sha256sum'), []).stdout.trim(), `${sum}  -`);
    rmSync(join(c.rec, 'LIAR'));
    const ok = await run(c, shell('dash'), { script: entry[1], args: entry.slice(2), env });
    assert.is(ok.code, 0, `${target}, unmodified: ${ok.stderr}`);
    assert.is(c.runs().length, 1, `${target}: the installed wrapper ran`);
    const pwned = join(c.rec, 'PWNED');
    writeFileSync(join(c.state, 'heartbeat.sh'), c.files['heartbeat.sh']!.replace('\n', `\ntouch '${pwned}'\n`));
    assertRefused(c, await run(c, shell('dash'), { script: entry[1], args: entry.slice(2), env }), `${target}, edited, liars on PATH`);
    assert.not.ok(existsSync(pwned), `${target}: the edited wrapper did not run`);
    assert.not.ok(existsSync(join(c.rec, 'LIAR')), `${target}: no program of the scheduler's PATH ran`);
    assert.is(c.runs().length, 1, target);
  }
});

test('bash as /bin/sh: functions in the scheduler\'s environment named sha256sum, test or printf do not make an edited wrapper run', async () => {
  const c = makeCase({ spec: { schedule: { scheduler: 'launchd' } } });
  const entry = decodedEntry('launchd', c);
  const sum = (await import('node:crypto')).createHash('sha256').update(c.files['heartbeat.sh']!).digest('hex');
  const pwned = join(c.rec, 'PWNED');
  const liar = join(c.rec, 'LIAR');
  writeFileSync(join(c.state, 'heartbeat.sh'), c.files['heartbeat.sh']!.replace('\n', `\ntouch '${pwned}'\n`));
  const env = {
    PATH: JUNK_ENV.PATH!,
    'BASH_FUNC_sha256sum%%': `() { echo ${sum}  -; }`,
    'BASH_FUNC_test%%': `() { touch '${liar}'; return 0; }`,
    'BASH_FUNC_printf%%': `() { touch '${liar}'; }`,
  };
  // bash started as `sh` (macOS, Fedora): run directly, since dash, which starts the matrix's
  // runs, drops variables whose names are not names.
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync('/usr/bin/bash', entry.slice(1), { argv0: 'sh', env, encoding: 'utf8' });
  assert.is(r.status, 78, r.stderr);
  assert.match(r.stderr, /differs from the wrapper hbgen installed/);
  assert.not.ok(existsSync(pwned), 'the edited wrapper did not run');
  assert.not.ok(existsSync(liar), 'no function of the environment ran');
});

/** `mount --bind` a file that cannot run over each of these tools, in the run's own mount namespace. */
const without = (tools: string[], c: Case) => {
  const dud = join(c.dir, 'dud');
  writeFileSync(dud, 'not a program\n', { mode: 0o644 });
  return { before: tools.map((t) => `mount --bind '${dud}' ${t} || exit 99`).join('\n'), after: '' };
};

test('without /usr/bin/sha256sum (macOS) the entry checks with /usr/bin/shasum -a 256, then /bin/busybox sha256sum; with none it refuses', async () => {
  const c = makeCase({ spec: { schedule: { scheduler: 'systemd-user' } } });
  const entry = decodedEntry('systemd-user', c);
  const go = (tools: string[]) => run(c, shell('dash'), { script: entry[1], args: entry.slice(2), wrap: without(tools, c) });
  const shasum = await go(['/usr/bin/sha256sum', '/bin/busybox']);
  assert.is(shasum.code, 0, shasum.stderr);
  assert.is(c.runs().length, 1, 'shasum checked, the wrapper ran');
  const busybox = await go(['/usr/bin/sha256sum', '/usr/bin/shasum']);
  assert.is(busybox.code, 0, busybox.stderr);
  assert.is(c.runs().length, 2, 'busybox checked, the wrapper ran');
  appendFileSync(join(c.state, 'heartbeat.sh'), '\n');
  assertRefused(c, await go(['/usr/bin/sha256sum', '/bin/busybox']), 'edited, shasum');
  writeFileSync(join(c.state, 'heartbeat.sh'), c.files['heartbeat.sh']!);
  assertRefused(c, await go(['/usr/bin/sha256sum', '/usr/bin/shasum', '/bin/busybox']), 'no sha256 tool');
  assert.is(c.runs().length, 2, 'without a tool to check, nothing ran');
});

test('yash as /bin/sh in the C locale with a non-ASCII state path: the entry fails closed (exit 78, the wrapper does not run)', async () => {
  // yash replaces an argument it cannot decode in the C locale with an empty string
  // ("cannot convert the argument ... into a wide character string"), so the entry's $1
  // is empty: nothing to check, nothing runs. Under dash the same entry runs the wrapper.
  const c = makeCase({ spec: { schedule: { scheduler: 'launchd' }, stateDir: '.hb-ünï' } });
  const entry = decodedEntry('launchd', c);
  const y = await runEntry(c, shell('yash'), entry);
  assert.is(y.code, 78, y.stderr);
  assert.match(y.stderr, /wide character/);
  assert.is(c.runs().length, 0);
  const d = await runEntry(c, shell('dash'), entry);
  assert.is(d.code, 0, d.stderr);
  assert.is(c.runs().length, 1);
});

test('hbgen wake refuses (exit 78, one line) a wrapper edited together with state.json\'s record of it, and install\'s smoke test runs only the rendered wrapper', async () => {
  const { hb, makeHost } = await import('./helpers/lifecycle.ts');
  const { createHash } = await import('node:crypto');
  const { smokeTest } = await import('../src/host/install/smoke.ts');
  const { names } = await import('../src/names.ts');
  const h = makeHost('systemd-user');
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const n = names(h.spec);
  const rendered = readFileSync(n.wrapper, 'utf8');
  const pwned = join(h.root, 'PWNED');
  // What an agent that can write the state folder would do: edit the wrapper and the record.
  const edited = rendered.replace('\n', `\ntouch '${pwned}'\n`);
  writeFileSync(n.wrapper, edited);
  const statePath = join(n.stateDir, 'state.json');
  const st = JSON.parse(readFileSync(statePath, 'utf8')) as { files: { path: string; sha256: string }[] };
  st.files.find((f) => f.path === n.wrapper)!.sha256 = createHash('sha256').update(edited).digest('hex');
  writeFileSync(statePath, JSON.stringify(st, null, 2));
  const r = await hb(h, 'wake');
  assert.is(r.code, 78, r.err);
  assert.is(r.err.split('\n').filter(Boolean).length, 1, r.err);
  assert.match(r.err, /heartbeat\.sh differs from the wrapper hbgen renders from .*, so hbgen will not run it; see `hbgen status`, then reinstall it with `hbgen install`/);
  assert.not.ok(existsSync(pwned), 'wake did not run the edit');
  // The smoke test checks the same before it runs anything.
  const checks = await smokeTest(n, h.spec.name, rendered, h.specFile);
  assert.equal(checks.map((c) => [c.ok, c.what]), [[false, 'wrapper']]);
  assert.match(checks[0]!.observed, /differs from the wrapper hbgen renders/);
  assert.not.ok(existsSync(pwned), 'the smoke test did not run the edit');
  // Restored, wake runs it again.
  writeFileSync(n.wrapper, rendered);
  st.files.find((f) => f.path === n.wrapper)!.sha256 = createHash('sha256').update(rendered).digest('hex');
  writeFileSync(statePath, JSON.stringify(st, null, 2));
  assert.is((await hb(h, 'wake')).code, 0);
});

test.run();
