// needs root: it creates scratch users (useradd); it starts the real cron daemon
// Each escaper of src/escape.ts against the real consumer of its language, over a table
// of hostile strings (test/helpers/tools.ts HOSTILE):
//   sh         -> dash, bash --posix, busybox sh, mksh, posh, yash parse it back to the bytes
//   systemdArg -> systemd-analyze verify is silent, and systemd itself (systemd --test)
//                 decodes the ExecStart= line back to the bytes
//   cronWord   -> crontab(1) accepts it and the real cron daemon runs a script at that path
//                 (and runs the rendered crontab line of every fixture spec)
//   xmlComment -> expat (plistlib) and libplist (plistutil) accept the comment
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import { withCronDaemon } from './helpers/crond.ts';
import * as assert from 'uvu/assert';
import { cronWord, sh, shWords, systemdArg, xmlComment } from '../src/escape.ts';
import { renderNow } from './helpers/render.ts';
import {
  HOSTILE,
  SHELLS,
  crontabInstall,
  crontabList,
  execDollar,
  loadFixtures,
  plistOracles,
  rebase,
  run,
  scratchUser,
  sdDecodedExecStart,
  sdVerify,
  splitNul,
  stateDirOf,
  tmp,
} from './helpers/tools.ts';

/** Hostile strings usable as one path component (not empty, no "/"). */
const COMPONENTS = HOSTILE.filter((w) => w !== '' && !w.includes('/'));

test('hostile table is printable and has no duplicates', () => {
  assert.is(new Set(HOSTILE).size, HOSTILE.length);
  for (const w of HOSTILE) assert.not.match(w, /[\u0000-\u001f\u007f-\u009f]/, `control character in ${JSON.stringify(w)}`);
});

// ------------------------------------------------------------------ sh

for (const shell of SHELLS) {
  test(`sh: ${shell.name} reads every quoted word back byte for byte (arguments and assignments)`, () => {
    const assigns = HOSTILE.map((w, i) => `v${i}=${sh(w)}`).join('\n');
    const uses = HOSTILE.map((_, i) => `"$v${i}"`).join(' ');
    const script = `set -- ${shWords(HOSTILE)}\nfor a do printf '%s\\0' "$a"; done\n${assigns}\nprintf '%s\\0' ${uses}\n`;
    const r = run(shell.argv[0]!, [...shell.argv.slice(1), '-c', script]);
    assert.is(r.stderr, '', `${shell.name} stderr`);
    assert.is(r.code, 0);
    const got = splitNul(r.out);
    assert.equal(got.slice(0, HOSTILE.length), HOSTILE, `${shell.name}: positional words`);
    assert.equal(got.slice(HOSTILE.length), HOSTILE, `${shell.name}: assignments`);
  });
}

test('sh: a hostile word passed to sh -c as the script argument reaches printf intact', () => {
  // The "/bin/sh -c 'printf %s "$1"' x WORD" round trip, with WORD written by sh() into
  // an outer command line that a second shell parses.
  for (const shell of SHELLS) {
    for (const w of HOSTILE) {
      const outer = `/bin/sh -c 'printf %s "$1"' x ${sh(w)}`;
      const r = run(shell.argv[0]!, [...shell.argv.slice(1), '-c', outer]);
      assert.is(r.out.toString('utf8'), w, `${shell.name}: ${JSON.stringify(w)}`);
    }
  }
});

// ------------------------------------------------------------------ systemd

test('systemdArg: systemd-analyze verify is silent and systemd decodes every ExecStart word to its bytes', () => {
  const base = tmp('hbgen-esc-sd');
  const units = join(base, 'units');
  mkdirSync(units);
  const names: string[] = [];
  const expect = new Map<string, string[]>();
  HOSTILE.forEach((w, i) => {
    const name = `hbgen-esc-${i}.service`;
    // The ExecStart target of the contract (/bin/sh PATH) with the hostile string as a
    // folder name, and the string alone as a further argument (empty included).
    const path = w === '' ? join(base, `p${i}`, 't.sh') : join(base, `p${i}`, w, 't.sh');
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, 'exit 0\n');
    writeFileSync(join(units, name), `[Service]\nType=oneshot\nExecStart=/bin/sh ${systemdArg(path)} ${systemdArg(w)}\n`, { mode: 0o644 });
    names.push(name);
    expect.set(name, ['/bin/sh', path, w]);
  });
  // Negative control: quoting alone (no %% or $$) must come out different, or the oracle
  // would not be looking at specifiers at all.
  writeFileSync(join(units, 'hbgen-esc-control.service'), `[Service]\nType=oneshot\nExecStart=/bin/sh "${base}/100%d"\n`);
  writeFileSync(join(units, 'hbgen-esc-all.target'), `[Unit]\nWants=${[...names, 'hbgen-esc-control.service'].join(' ')}\n`);
  chmodSync(units, 0o755);

  const out = sdVerify(names.map((n) => join(units, n)));
  assert.is(out, '', 'systemd-analyze verify printed something');

  const decoded = sdDecodedExecStart(units, 'hbgen-esc-all.target');
  const control = decoded.get('hbgen-esc-control.service');
  assert.ok(control && control.length === 1, 'control unit dumped');
  assert.is.not(control![0]![1], `${base}/100%d`, 'control: systemd expands %d when it is not doubled');
  for (const name of names) {
    const cmds = decoded.get(name);
    assert.ok(cmds, `${name} missing from the systemd --test dump`);
    assert.is(cmds!.length, 1, `${name}: exactly one ExecStart command`);
    const argv = cmds![0]!.map(execDollar);
    assert.equal(argv, expect.get(name), `${name}: decoded argv`);
  }
});

// ------------------------------------------------------------------ xml comment

test('xmlComment: every hostile string makes a comment both expat and libplist accept', () => {
  const base = tmp('hbgen-esc-xml');
  const extra = ['-', '--', '---', 'a-', '<!--', '--->', '- -'];
  const words = [...HOSTILE, ...extra];
  const files = words.map((w, i) => {
    const f = join(base, `c${i}.plist`);
    const body = `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<!-- ${xmlComment(w)} -->\n<plist version="1.0">\n<string>ok</string>\n</plist>\n`;
    writeFileSync(f, body);
    return f;
  });
  const res = plistOracles(files);
  res.forEach((r, i) => {
    assert.not.ok(r.error, `${JSON.stringify(words[i])}: ${r.error}`);
    assert.is(r.plistlib, 'ok');
    assert.is(r.plistutil, 'ok');
  });
  // Negative control: a raw "--" is refused by expat, so the oracle does look at comments.
  const bad = join(base, 'bad.plist');
  writeFileSync(bad, '<?xml version="1.0"?>\n<!-- a--b -->\n<plist version="1.0"><string>ok</string></plist>\n');
  assert.ok(plistOracles([bad])[0]!.error, 'expat accepted a comment with "--"');
});

// ------------------------------------------------------------------ cron

test('cronWord: crontab(1) keeps the bytes and the real cron daemon runs /bin/sh at every hostile path', async () => {
  const user = scratchUser('e');
  const base = tmp('hbgen-esc-cron');
  const outDir = join(base, 'out');
  mkdirSync(outDir);
  chmodSync(outDir, 0o777);
  const lines: string[] = [];
  const expected = new Map<string, string>();
  const marker = (id: string) => `printf '%s' "$0" > '${outDir}/${id}'\n`;
  COMPONENTS.forEach((w, i) => {
    const script = join(base, `p${i}`, w, 'marker.sh');
    mkdirSync(join(script, '..'), { recursive: true });
    writeFileSync(script, marker(`ok${i}`));
    lines.push(`* * * * * /bin/sh ${cronWord(script)}`);
    expected.set(`ok${i}`, script);
  });
  // The rendered crontab of every fixture (hostile.json included), its repo moved under
  // the temp folder and its times replaced by "* * * * *": the generator end to end.
  loadFixtures().forEach((fx, i) => {
    const spec = rebase(fx.spec, join(base, `fx${i}`));
    const r = renderNow(spec, { scheduler: 'cron' });
    assert.equal(r.errors, [], fx.file);
    const job = r.files.find((f) => f.path === 'host/crontab')!.content.split('\n').find((l) => /^[0-9*]/.test(l))!;
    const script = `${stateDirOf(spec)}/heartbeat.sh`;
    mkdirSync(stateDirOf(spec), { recursive: true });
    writeFileSync(script, marker(`fx${i}`));
    // The entry runs only the wrapper whose SHA-256 it carries (generators/entry.ts): here
    // the marker's, in place of the rendered wrapper's.
    const wrapperSha = createHash('sha256').update(r.files.find((f) => f.path === 'heartbeat.sh')!.content).digest('hex');
    assert.ok(job.includes(wrapperSha), `${fx.file}: the line carries the wrapper's SHA-256`);
    lines.push(job.replace(/^(\S+ ){5}/, '* * * * * ').replace(wrapperSha, createHash('sha256').update(marker(`fx${i}`)).digest('hex')));
    expected.set(`fx${i}`, script);
  });
  // Negative controls: the plain sh word (no cron escaping) for a "%" and a "\\" path must
  // NOT reach the script, or the daemon is not the oracle we think it is.
  const controls = ['100%d', 'a\\\\b'].map((w, i) => {
    const script = join(base, `n${i}`, w, 'marker.sh');
    mkdirSync(join(script, '..'), { recursive: true });
    writeFileSync(script, marker(`bad${i}`));
    lines.push(`* * * * * /bin/sh ${sh(script)}`);
    return { id: `bad${i}`, script };
  });
  run('chmod', ['-R', 'a+rX', base]);
  const tab = `${lines.join('\n')}\n`;

  // The daemon is shared with another suite: hold it for the whole install-and-wait.
  await withCronDaemon(async () => {
    // Install early in a minute, so the daemon's next minute tick sees the new table.
    const sec = new Date().getSeconds();
    if (sec >= 55) await new Promise((r) => setTimeout(r, (61 - sec) * 1000));
    const inst = crontabInstall(user.name, tab);
    assert.is(`${inst.stdout}${inst.stderr}`, '', 'crontab(1) diagnostics');
    assert.is(inst.code, 0);
    const listed = crontabList(user.name);
    assert.is(listed.code, 0);
    assert.ok(listed.out.equals(Buffer.from(tab)), 'crontab -l returns the installed bytes');

    try {
      const deadline = Date.now() + 75_000;
      while (Date.now() < deadline && ![...expected.keys()].every((id) => existsSync(join(outDir, id)))) {
        await new Promise((r) => setTimeout(r, 500));
      }
      await new Promise((r) => setTimeout(r, 1500)); // let the controls' jobs finish too
      for (const [id, script] of expected) {
        assert.ok(existsSync(join(outDir, id)), `cron did not run ${JSON.stringify(script)}`);
        assert.is(readFileSync(join(outDir, id), 'utf8'), script, `argument sh received for ${id}`);
      }
      for (const c of controls) {
        const got = existsSync(join(outDir, c.id)) ? readFileSync(join(outDir, c.id), 'utf8') : undefined;
        assert.is.not(got, c.script, `control ${c.id}: unescaped ${JSON.stringify(c.script)} should not survive cron`);
      }
    } finally {
      user.remove();
    }
  });
});

test.run();
