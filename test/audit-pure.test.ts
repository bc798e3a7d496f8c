// The audit behind `hbgen status` is a pure reader: audit() (src/host/audit/audit.ts) on an
// install with a changed state-folder file and a health record that no longer holds writes
// nothing (every entry under HOME, the repo and the state folder keeps its bytes, mode, inode
// and mtime) and returns a plan naming the file to put back and the record to write;
// applyRepairs (src/host/audit/repair.ts) then makes exactly those writes. A repair that
// cannot be written is said as drift, never as put back. In-process against a cron install
// on a recording STAND-IN crontab, its state folder outside the repo.
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { plannedHostZone } from '../src/host/audit/clock.ts';
import { names } from '../src/names.ts';
import { etcFor } from './helpers/etc.ts';
import { type Host, hb, hostIO, installedOnStandInCrontab } from './helpers/lifecycle.ts';

// Imported when a test runs, as hb() imports the commands: after lifecycle.ts has put its
// stand-in pipeline in place, so that this audit and status's are the same module.
const modules = async () => ({
  ...(await import('../src/host/audit/audit.ts')),
  ...(await import('../src/host/audit/repair.ts')),
  ...(await import('../src/host/audit/found.ts')),
  ...(await import('../src/commands/common.ts')),
});

/** Every entry under `dir`, not following links: type, mode, inode, mtime and content hash (a rewrite of the same bytes changes the inode or the mtime). */
function snapshot(dir: string, out: Record<string, string> = {}): Record<string, string> {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const st = lstatSync(p, { bigint: true });
    out[p] = `${st.mode.toString(8)} ${st.ino} ${st.mtimeNs} ${st.isFile() ? createHash('sha256').update(readFileSync(p)).digest('hex') : ''}`;
    if (st.isDirectory()) snapshot(p, out);
  }
  return out;
}

/** The host as the audit sees it (the stand-ins' own records of their calls are not hbgen's writes). */
const hostTree = (h: Host) => ({ ...snapshot(h.home), ...snapshot(h.repo), ...snapshot(names(h.spec).stateDir) });

const ioOf = (h: Host) => ({ ...hostIO(h), etc: etcFor(h.root, plannedHostZone(h.spec)) });

async function auditOf(h: Host) {
  const m = await modules();
  const io = ioOf(h);
  const loaded = m.loadFor(io, h.specFile);
  return m.audit(loaded, m.readStateOrNote(names(loaded.spec)), io);
}

test('audit() writes nothing on a tampered install with a stale health record; its plan names the file and the record, and applyRepairs writes them', async () => {
  const h = await installedOnStandInCrontab();
  const n = names(h.spec);
  // A status of the install as it was leaves a health record, which the edit below makes stale.
  assert.is((await hb(h, 'status')).code, 0);
  const recorded = JSON.parse(readFileSync(join(n.stateDir, 'state.json'), 'utf8'));
  assert.is(recorded.health?.healthy, true, 'the record says healthy');
  const good = readFileSync(n.gate, 'utf8');
  writeFileSync(n.gate, '#!/bin/sh\nexit 0\n');

  const before = hostTree(h);
  const a = await auditOf(h);
  assert.equal(hostTree(h), before, 'audit() wrote nothing');
  assert.ok(readFileSync(n.gate, 'utf8') === '#!/bin/sh\nexit 0\n', 'the changed file is still changed');

  assert.equal(
    a.repairs.files.map((r) => [r.path, r.mode, r.was]),
    [[n.gate, 0o755, 'changed']],
  );
  assert.is(a.repairs.files[0]!.content, good, 'the plan puts back the installed bytes');
  const rec = a.repairs.record;
  assert.ok(rec, 'the plan writes the health record');
  assert.is(rec.stateDir, n.stateDir);
  assert.equal(rec.state.repairs?.map((r) => r.path), [n.gate]);
  assert.is(rec.state.health?.healthy, false);
  assert.ok(a.findings.problems.some((p) => p.code === 'tampered' && p.message.includes(`${n.gate} differed from what hbgen installed (changed)`)), JSON.stringify(a.findings.problems));

  const m = await modules();
  assert.equal(m.applyRepairs(a.repairs), [], 'every write was made');
  assert.is(readFileSync(n.gate, 'utf8'), good, 'the file was put back');
  const now = JSON.parse(readFileSync(join(n.stateDir, 'state.json'), 'utf8'));
  assert.equal(now.repairs.map((r: { path: string }) => r.path), [n.gate]);
  assert.equal(now.health, rec.state.health, 'state.json holds the planned record');

  // The next audit finds nothing to put back, and writes nothing either.
  const again = hostTree(h);
  const b = await auditOf(h);
  assert.equal(b.repairs.files, []);
  assert.equal(hostTree(h), again);
  assert.ok(b.findings.problems.some((p) => p.code === 'tampered' && p.message.includes(`${n.gate} differed from what hbgen installed and was put back at`)));
});

test('a healthy install: audit() plans no write once the record holds, and status leaves state.json alone', async () => {
  const h = await installedOnStandInCrontab();
  assert.is((await hb(h, 'status')).code, 0);
  const a = await auditOf(h);
  assert.equal(a.repairs, { files: [], record: null });
  const before = hostTree(h);
  assert.is((await hb(h, 'status')).code, 0);
  assert.equal(hostTree(h), before);
});

test('a repair applyRepairs cannot write (host/ removed): status says drift, not put back, and records no repair', async () => {
  const h = await installedOnStandInCrontab();
  const n = names(h.spec);
  const crontab = join(n.stateDir, 'host', 'crontab');
  rmSync(join(n.stateDir, 'host'), { recursive: true });
  const a = await auditOf(h);
  assert.equal(a.repairs.files.map((r) => [r.path, r.was]), [[crontab, 'missing']], 'the audit plans it');
  const st = await hb(h, 'status');
  assert.is(st.code, 1, st.out + st.err);
  assert.match(st.out, `drift: ${crontab} is missing; run \`hbgen install\` to put it back`);
  assert.not.match(st.out, /put the installed bytes back/);
  const rec = JSON.parse(readFileSync(join(n.stateDir, 'state.json'), 'utf8'));
  assert.is(rec.repairs, undefined, 'no repair is recorded');
  assert.ok(rec.health.problems.some((p: string) => p.startsWith(`drift: ${crontab} is missing`)), JSON.stringify(rec.health));
});

test.run();
