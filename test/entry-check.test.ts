// Every fire the scheduler makes, inside the working hours or not, checks, cheaply and without repairing, that the
// entry that started it is hbgen's own (the files as installed, one entry) and logs a `note`
// otherwise. Installed with stand-in systemctl / crontab, then the REAL installed wrapper
// run as the scheduler runs it (/bin/sh, empty environment).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeStub } from './helpers/crontab.ts';
import { hb, lines, makeHost, rewriteSpec, type Host } from './helpers/lifecycle.ts';
import { names } from '../src/names.ts';

const ALL_DAY = { start: '00:00', end: '24:00', timezone: 'Europe/Berlin' };

/** One wake as the scheduler starts it; the new lines of runtime.log. */
function scheduledWake(h: Host): string[] {
  const n = names(h.spec);
  const before = lines(n.log).length;
  const r = spawnSync('/bin/sh', [n.wrapper], { env: {}, cwd: '/', encoding: 'utf8', timeout: 60_000 });
  assert.is(r.status, 0, r.stderr + readFileSync(n.log, 'utf8'));
  return lines(n.log).slice(before).filter((l) => l.startsWith('hbgen '));
}

test('systemd (stand-in systemctl): no note for the entry as installed; a changed unit and a copied unit are each one note, nothing repaired', async () => {
  const h = makeHost('systemd-user', { schedule: { scheduler: 'systemd-user', every: '30m', minute: 7, hours: ALL_DAY } });
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  assert.match(readFileSync(join(names(h.spec).stateDir, 'entry.sum'), 'utf8'), /^sum \d+ \d+ .*hbgen-docs\.service\nsum \d+ \d+ .*hbgen-docs\.timer\nrefs 1 - .*\/systemd\/user\n$/);
  assert.equal(scheduledWake(h), ['hbgen docs start wake 1', 'hbgen docs quiet']);
  const unitDir = join(h.home, '.config/systemd/user');
  const original = readFileSync(join(unitDir, 'hbgen-docs.service'));
  appendFileSync(join(unitDir, 'hbgen-docs.service'), 'Environment=X=1\n');
  const changed = readFileSync(join(unitDir, 'hbgen-docs.service'));
  let w = scheduledWake(h);
  assert.is(w.length, 3, w.join('\n'));
  assert.is(w[0], `hbgen docs note scheduler entry not as installed: ${join(unitDir, 'hbgen-docs.service')} differs from what hbgen installed (nothing repaired; hbgen status, then hbgen install)`);
  assert.equal(w.slice(1), ['hbgen docs start wake 2', 'hbgen docs quiet'], 'the wake goes on');
  // status tells what the latest fire found of its entry.
  const st = await hb(h, 'status');
  assert.match(st.out, new RegExp(`\\n {2}warn {5}the fire of \\S+ found its scheduler entry not as installed: ${join(unitDir, 'hbgen-docs.service').replace(/[.]/g, '\\.')} differs from what hbgen installed; \`hbgen install\` puts it back\\n`), st.out);
  assert.ok(readFileSync(join(unitDir, 'hbgen-docs.service')).equals(changed), 'nothing repaired');
  // A later fire that finds it as installed again: status no longer says so.
  writeFileSync(join(unitDir, 'hbgen-docs.service'), original);
  assert.equal(scheduledWake(h), ['hbgen docs start wake 3', 'hbgen docs quiet']);
  assert.not.match((await hb(h, 'status')).out, /found its scheduler entry/);
  writeFileSync(join(unitDir, 'hbgen-docs.service'), changed);
  copyFileSync(join(unitDir, 'hbgen-docs.service'), join(unitDir, 'hbgen-copy.service'));
  w = scheduledWake(h);
  assert.match(w[0]!, /differs from what hbgen installed, 2 files in \S+\/systemd\/user run this wrapper where hbgen installed 1 \(nothing repaired/);
  // A wake by hand (hbgen wake) does not look: no scheduler started it.
  const n = names(h.spec);
  const before = lines(n.log).length;
  spawnSync('/bin/sh', [n.wrapper, '--now'], { env: {}, cwd: '/', encoding: 'utf8', timeout: 60_000 });
  assert.not.ok(lines(n.log).slice(before).some((l) => l.includes(' note ')));
});

test('notify is told of a scheduler problem once, when the next fire still finds it; not again at the fires after; a problem gone is forgotten', async () => {
  const h = makeHost('systemd-user', { schedule: { scheduler: 'systemd-user', every: '30m', minute: 7, hours: ALL_DAY } });
  const told = join(h.root, 'told');
  const prog = join(h.root, 'notify.sh');
  writeFileSync(prog, `#!/bin/sh\nprintf '%s %s\\n' "$HBGEN_EVENT" "$HBGEN_OUTCOME" >> ${told}\n`, { mode: 0o755 });
  rewriteSpec(h, { notify: [prog] });
  assert.is((await hb(h, 'install', { yes: true })).code, 0);
  const unit = join(h.home, '.config/systemd/user/hbgen-docs.service');
  const original = readFileSync(unit);
  appendFileSync(unit, 'Environment=X=1\n');
  const calls = () => (existsSync(told) ? readFileSync(told, 'utf8').split('\n').filter(Boolean) : []);
  scheduledWake(h);
  assert.equal(calls(), [], 'one fire: a note, no one told yet');
  scheduledWake(h);
  assert.equal(calls(), [`scheduler note scheduler entry not as installed: ${unit} differs from what hbgen installed`], 'the next fire still finds it: told');
  scheduledWake(h);
  assert.is(calls().length, 1, 'not again');
  // Gone, then back: a new problem, told again at its second fire.
  writeFileSync(unit, original);
  scheduledWake(h);
  appendFileSync(unit, 'Environment=X=1\n');
  scheduledWake(h);
  assert.is(calls().length, 1);
  scheduledWake(h);
  assert.is(calls().length, 2);
});

test('outside the working hours too: a fire in a closed window checks its entry (a note), then skips', async () => {
  // A window of one hour, twelve hours from now in the zone: this fire is outside it.
  const hour = (Number(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', hourCycle: 'h23' }).format(new Date())) + 12) % 24;
  const hh = String(hour).padStart(2, '0');
  const h = makeHost('systemd-user', { schedule: { scheduler: 'systemd-user', every: '30m', minute: 7, hours: { start: `${hh}:00`, end: `${hh}:59`, timezone: 'Europe/Berlin' } } });
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  assert.equal(scheduledWake(h).map((l) => l.split(' ').slice(0, 3).join(' ')), ['hbgen docs skip-window'], 'as installed: only the skip');
  const unit = join(h.home, '.config/systemd/user/hbgen-docs.service');
  appendFileSync(unit, 'Environment=X=1\n');
  const w = scheduledWake(h);
  assert.is(w[0], `hbgen docs note scheduler entry not as installed: ${unit} differs from what hbgen installed (nothing repaired; hbgen status, then hbgen install)`);
  assert.match(w[1]!, /^hbgen docs skip-window/);
  assert.is(w.length, 2, w.join('\n'));
});

test('cron (stand-in crontab): no note as installed; a doubled block and an edited block are notes', async () => {
  const stub = makeStub();
  const h = makeHost('cron', { schedule: { scheduler: 'cron', every: '30m', minute: 7, hours: ALL_DAY } });
  // The wrapper asks `crontab -l` on the spec's PATH: the stand-in comes first there too.
  h.env.PATH = `${stub.dir}:${h.env.PATH}`;
  const raw = JSON.parse(readFileSync(h.specFile, 'utf8'));
  raw.env.PATH = `${stub.dir}:/usr/bin:/bin`;
  writeFileSync(h.specFile, JSON.stringify(raw, null, 2));
  h.spec = { ...h.spec, env: raw.env };
  const r = await hb(h, 'install', { yes: true });
  assert.is(r.code, 0, r.err + r.out);
  assert.match(readFileSync(join(names(h.spec).stateDir, 'entry.sum'), 'utf8'), /^cron \d+ \d+ 1\n$/);
  assert.equal(scheduledWake(h), ['hbgen docs start wake 1', 'hbgen docs quiet']);
  const table = stub.table()!.toString('utf8');
  const block = table.slice(table.indexOf('# BEGIN hbgen docs'), table.indexOf('# END hbgen docs') + '# END hbgen docs\n'.length);
  stub.setTable(Buffer.from(`${table}${block}`));
  let w = scheduledWake(h);
  assert.is(w[0], 'hbgen docs note scheduler entry not as installed: the crontab holds 2 blocks of this name where hbgen installed 1, 2 crontab lines run this wrapper where hbgen installed 1 (nothing repaired; hbgen status, then hbgen install)');
  stub.setTable(Buffer.from(table.replace(/^7,37 /m, '8,38 ')));
  w = scheduledWake(h);
  assert.is(w[0], "hbgen docs note scheduler entry not as installed: hbgen's block in the crontab differs from what it installed (nothing repaired; hbgen status, then hbgen install)");
  stub.setTable(Buffer.from(table));
  assert.equal(scheduledWake(h).filter((l) => l.includes(' note ')), []);
  stub.remove();
});

test.run();
