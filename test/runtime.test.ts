// needs root: it makes each shell /bin/sh by a bind mount (unshare -m)
// The thin runner: every spec's heartbeat.sh is its values and the pin of one runtime, the
// same bytes for every spec; a runtime that is missing, edited or another than the pinned
// one never runs (in every shell); and an hbgen change that touches only the runtime
// changes at most the pin lines of a per-spec tree.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderFixture, specNames, SPECS } from './helpers/fixtures.ts';
import { ROOT } from './helpers/cli.ts';
import { SHELLS, makeCase, run } from './helpers/wrapper.ts';
import { runtime } from '../generators/runtime.ts';
import { renderRuntime } from '../src/build/runtime.ts';
import { entryArgv } from '../generators/entry.ts';
import { names } from '../src/names.ts';
import { realSha256 } from './helpers/entry.ts';

const scratch = mkdtempSync(join(tmpdir(), 'hbgen-runtime-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

test('every fixture pins and ships the same runtime, and its heartbeat.sh is at most 150 lines', () => {
  const rt = runtime();
  for (const name of specNames()) {
    const files = renderFixture(name).files;
    const own = files.filter((f) => /^runtime-.*\.sh$/.test(f.path));
    assert.equal(own.map((f) => f.path), [rt.name], name);
    assert.ok(own[0]!.content === rt.text, `${name}: the runtime differs`);
    const hb = files.find((f) => f.path === 'heartbeat.sh')!.content;
    assert.ok(hb.split('\n').length - 1 <= 150, `${name}: heartbeat.sh has ${hb.split('\n').length - 1} lines`);
    assert.ok(hb.includes(`hb_rt_sha256='${rt.sha256}'`), `${name}: the pin`);
    assert.ok(!/hb_(wake|locked|start)\(\)/.test(hb), `${name}: heartbeat.sh holds no program`);
  }
});

test('the runtime holds no issue number and no path of hbgen\'s sources', () => {
  const t = runtime().text;
  assert.equal(t.match(/\bissues? \d+/gi), null);
  assert.equal(t.match(/\b(src|test|generators)\/[\w./-]+/g), null);
});

test('the runtime has one probe of kill\'s -- form and one group-kill helper', () => {
  const t = runtime().text;
  assert.is(t.split('kill -s 0 -- "$$"').length - 1, 1);
  assert.equal(t.match(/^hb_[a-z]*kill\(\)/gm), null);
  assert.is(t.split('\nhb_gsig() {').length - 1, 1);
});

test('the runtime\'s steps are numbered once each, increasing, and docs/wrapper.md lists the same', () => {
  const steps = [...runtime().text.matchAll(/^# --- (\d+[a-z]?)\. /gm)].map((m) => m[1]!);
  assert.ok(steps.length > 10, steps.join(' '));
  assert.equal([...new Set(steps)], steps, `a number used twice: ${steps.join(' ')}`);
  const key = (s: string) => Number.parseInt(s, 10) * 100 + (s.match(/[a-z]$/)?.[0].charCodeAt(0) ?? 0);
  for (let i = 1; i < steps.length; i++) assert.ok(key(steps[i]!) > key(steps[i - 1]!), `step ${steps[i]} after ${steps[i - 1]}`);
  const doc = readFileSync(join(ROOT, 'docs/wrapper.md'), 'utf8');
  assert.equal([...doc.matchAll(/^## (\d+[a-z]?)\. /gm)].map((m) => m[1]!), steps);
});

for (const sh of SHELLS) {
  test(`${sh.name}: a tampered, missing or swapped runtime never runs`, async () => {
    for (const [what, breakIt] of [
      ['tampered', (f: string) => writeFileSync(f, `${readFileSync(f, 'utf8')}touch "$HBTEST_DIR/pwned"\n`)],
      ['missing', (f: string) => rmSync(f)],
      ['swapped', (f: string) => writeFileSync(f, readFileSync(f, 'utf8').replace('# The spine:', '# The spine (another build):'))],
    ] as const) {
      const c = makeCase();
      // An installed state folder has its log.
      writeFileSync(join(c.state, 'runtime.log'), '');
      const f = join(c.state, runtime().name);
      chmodSync(f, 0o644);
      breakIt(f);
      const r = await run(c, sh);
      assert.is(r.code, 78, `${what}: ${r.stderr}`);
      assert.match(r.stderr, /is missing or not the runtime .* this heartbeat\.sh pins/, what);
      assert.equal(c.runs(), [], `${what}: the agent ran`);
      assert.ok(!existsSync(join(c.rec, 'pwned')), `${what}: the runtime ran`);
      assert.equal(c.outcomes(), ['error runtime changed'], what);
      // Through the scheduler's entry too: its sums are handed on, and they do not match.
      const argv = entryArgv({ spec: { name: 'tst' }, names: names(c.spec), wrapperSha256: realSha256(c.files['heartbeat.sh']!) });
      const e = await run(c, sh, { script: '-c', args: [argv[2]!, argv[3]!, argv[4]!] });
      assert.is(e.code, 78, `${what} (entry): ${e.stderr}`);
      assert.equal(c.runs(), [], `${what} (entry): the agent ran`);
    }
  });
}

test('the scheduler entry hands the runtime\'s sum on: a wake it starts runs', async () => {
  const c = makeCase();
  const argv = entryArgv({ spec: { name: 'tst' }, names: names(c.spec), wrapperSha256: realSha256(c.files['heartbeat.sh']!) });
  const r = await run(c, SHELLS[0]!, { script: '-c', args: [argv[2]!, argv[3]!, argv[4]!] });
  assert.is(r.code, 0, r.stderr + c.log());
  assert.equal(c.outcomes(), ['start wake 1', 'quiet']);
});

test('a change to one comment of the runtime changes at most 4 lines of every per-spec tree', () => {
  const copy = join(scratch, 'tree');
  for (const d of ['bin', 'src', 'generators', 'templates', 'fixtures/specs', 'package.json', 'tsconfig.json']) cpSync(join(ROOT, d), join(copy, d), { recursive: true, filter: (p) => !p.includes('/src/gen/') });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  const part = join(copy, 'templates/partials/heartbeat/40-lock.hbs');
  writeFileSync(part, readFileSync(part, 'utf8').replace(/^(# --- \d+\. Lock) /m, '$1 (a comment changed) '));
  const b = spawnSync(process.execPath, ['bin/build.mjs'], { cwd: copy, encoding: 'utf8' });
  assert.is(b.status, 0, b.stderr);
  // Kubernetes too: its runtime is in a ConfigMap of its own (host/hbgen-runtime-*.configmap.yaml,
  // left out like runtime-*.sh), and the spec's manifest carries only the pins, in its copies
  // of heartbeat.sh and window.sh (the CronJobs name the runtime's ConfigMap by version).
  for (const name of specNames()) {
    const out = (root: string) => {
      const dir = join(scratch, `${name}-${root === ROOT ? 'a' : 'b'}`);
      const r = spawnSync(process.execPath, [join(root, 'bin/hbgen.cjs'), 'render', join(SPECS, `${name}.json`), '--out', dir], { encoding: 'utf8' });
      assert.is(r.status, 0, r.stderr);
      return dir;
    };
    const a = out(ROOT);
    const bDir = out(copy);
    const d = spawnSync('diff', ['-r', '--exclude=runtime-*.sh', '--exclude=hbgen-runtime-*.configmap.yaml', a, bDir], { encoding: 'utf8' });
    const changed = d.stdout.split('\n').filter((l) => l.startsWith('> '));
    // The pins of heartbeat.sh and window.sh, and each scheduler line that carries
    // heartbeat.sh's SHA-256: one, except a crontab whose window needs several lines.
    const entries = changed.filter((l) => l.includes('HBGEN_SUMS=$h')).length;
    assert.ok(changed.length >= 1 && changed.length <= Math.max(4, 2 + entries), `${name}: ${changed.length} lines changed\n${d.stdout}`);
    if (name !== 'midnight') assert.ok(changed.length <= 4, `${name}: ${changed.length} lines changed`);
    if (name === 'kubernetes') {
      // Only the pins: in heartbeat.sh and window.sh, and in the manifest's copies of them.
      assert.equal(changed.map((l) => l.slice(2).trim().replace(/='[0-9a-f]{64}'$/, '')), ['hb_rt_sha256', 'hb_rt_sha256', 'hb_rt_sha256', 'hb_rt_sha256'], d.stdout);
      // The runtime's ConfigMap left out above is there, and is what changed.
      const rtFile = (dir: string) => readFileSync(join(dir, 'host/hbgen-runtime-0.2.0.configmap.yaml'), 'utf8');
      assert.is.not(rtFile(a), rtFile(bDir));
    }
    assert.ok(!/^only in/im.test(d.stdout), d.stdout);
    // `hbgen check` of the committed tree with the new hbgen: one line, not a diff.
    const ck = spawnSync(process.execPath, [join(copy, 'bin/hbgen.cjs'), 'check', join(SPECS, `${name}.json`), a], { encoding: 'utf8' });
    assert.is(ck.status, 1, ck.stderr);
    assert.is(ck.stdout, '', `${name}: no diff printed`);
    assert.match(ck.stderr, /runtime 0\.2\.0 sha256 [0-9a-f]{4}… → 0\.2\.0 sha256 [0-9a-f]{4}…; nothing else changed/);
  }
});

test('hbgen runtime prints the runtime this hbgen ships; --sha256 its version, SHA-256 and name', () => {
  const rt = runtime();
  const t = spawnSync(process.execPath, [join(ROOT, 'bin/hbgen.cjs'), 'runtime'], { encoding: 'utf8' });
  assert.is(t.status, 0, t.stderr);
  assert.ok(t.stdout === rt.text);
  const s = spawnSync(process.execPath, [join(ROOT, 'bin/hbgen.cjs'), 'runtime', '--sha256'], { encoding: 'utf8' });
  assert.is(s.stdout, `${rt.version} ${realSha256(rt.text)} ${rt.name}\n`);
});

test('the runtime the build made (src/gen/runtime.ts) is what its templates render now, with its SHA-256', () => {
  const rt = runtime();
  assert.ok(rt.text === renderRuntime(), 'src/gen/runtime.ts is older than templates/ or generators/: run npm run build');
  assert.is(rt.sha256, realSha256(rt.text));
});

test.run();
