// hbgen doctor [SPEC]: "would it run right now?" The install's checks
// again on an installed spec, changing nothing of the install: the installed wrapper is the
// one hbgen renders from the spec; HEART.md holds a mission; the scheduler lists the entry;
// the jail starts with the installed jail.json (install's probe, run for real: the smoke run
// below starts no jail); nothing but hbgen's entry runs the wrapper (src/host/audit/stray.ts);
// and the smoke run through the scheduler (systemctl --user start, launchctl kickstart; cron's
// environment for cron), with the client's billing check in that context and a second run
// that must meet the lock. Like install's check it adds its own lines to runtime.log (start
// smoke, how it ran, quiet smoke, skip-locked smoke): history, never counted as wakes.
import { UserError } from '../errors.ts';
import { lstatOrNull, readOrNull, sha256 } from '../host/fsx.ts';
import { pendingUpgrade } from '../host/audit/upgrade.ts';
import { heartRefusal } from '../host/heart/mission.ts';
import { hostFacts } from '../host/install/facts.ts';
import type { HostIO } from '../host/io.ts';
import { heartbeatRunningNow } from '../host/proc/proc.ts';
import { scheduledSmoke } from '../host/install/sched-smoke.ts';
import type { Check } from '../host/install/smoke.ts';
import { readState, refuseForeignState, statePath } from '../host/state.ts';
import { foreignFiles } from '../host/audit/owners.ts';
import { shownWord } from '../escape.ts';
import { names } from '../names.ts';
import { renderSpec } from '../pipeline.ts';
import { SCHEDULERS } from '../schedulers.ts';
import { line, loadFor } from './common.ts';
import { factsOf } from '../scheduler-facts.ts';
import { posix } from 'node:path';
import { jailOn } from '../jail.ts';
import { probeJail } from '../host/install/jail-probe.ts';
import { strayEntries, strayText } from '../host/audit/stray.ts';
import type { State } from '../host/state.ts';
import type { Names } from '../names.ts';
import type { Spec } from '../spec.ts';

/**
 * The jail as a fire starts it: install's probe (src/host/install/jail-probe.ts) run for real
 * with the installed jail.json, the file every wake hands srt. The smoke run never starts the
 * jail (it runs no agent), so without this a host where the jail cannot start (bwrap gone,
 * user namespaces off) would pass. A jail.json that is not the one state.json records is a
 * failure, never probed: the wrapper refuses to start a jail with it.
 */
function jailCheck(spec: Spec, n: Names, s: State): Check | null {
  if (!jailOn(spec)) return null;
  const path = posix.join(n.stateDir, 'jail.json');
  const bytes = readOrNull(path);
  const rec = s.files.find((f) => f.path === path);
  if (!bytes) return { ok: false, what: 'jail', observed: `${path} is missing; run \`hbgen install\` to put it back` };
  if (!rec || sha256(bytes) !== rec.sha256) return { ok: false, what: 'jail', observed: `${path} is not the file state.json records (edited?); run \`hbgen install\` to put it back` };
  const probe = probeJail(spec, bytes.toString('utf8'));
  if (probe.refusal) return { ok: false, what: 'jail', observed: `cannot start: ${probe.refusal.replace(/^sandbox: /, '')}` };
  return { ok: true, what: 'jail', observed: `${probe.bin} started a probe inside ${path} and it could not write outside the allowed folders` };
}

export async function doctor(argv: { spec: string }, io: HostIO): Promise<number> {
  const { spec, file } = loadFor(io, argv.spec);
  if (factsOf(spec.schedule.scheduler)?.offHost) throw new UserError([`hbgen doctor: a ${spec.schedule.scheduler} install runs off this host, where hbgen does not start jobs; run \`hbgen status\` for what its scheduler says`], 2);
  const n = names(spec);
  // Its smoke run adds lines to runtime.log and takes the lock: as the state folder's owner only.
  refuseForeignState(n.stateDir, io.uid, `hbgen doctor ${shownWord(argv.spec)}`);
  const s = readState(n.stateDir);
  if (!s || s.status !== 'installed') throw new UserError([`"${spec.name}" is not installed (${s ? `${statePath(n.stateDir)} says ${s.status}` : `no ${statePath(n.stateDir)}`}); \`hbgen install ${file}\` installs and checks it`]);
  const running = await heartbeatRunningNow(io, spec, n);
  if (running) throw new UserError([`a heartbeat is running now (${running}): it holds the lock the check needs; run \`hbgen doctor\` again once it ended`]);
  const facts = hostFacts(spec, io);
  const backend = await SCHEDULERS[spec.schedule.scheduler].backend();
  // The backends' listings compare the host with the rendered tree (cron's block, the units): the render goes in.
  const render = await renderSpec(spec);
  const ctx = { io, spec, names: n, home: facts.home, files: render.files, prev: s };
  const checks: Check[] = [];
  const heart = heartRefusal(spec.repo);
  checks.push({ ok: !heart, what: 'HEART.md', observed: heart ?? `${spec.repo}/HEART.md holds a mission` });
  for (const p of facts.problems) checks.push({ ok: false, what: 'host', observed: p });
  // A file of another user's in the install: the next wake fails on it, whatever the smoke run met.
  for (const p of foreignFiles(spec, n)) checks.push({ ok: false, what: 'owner', observed: p.replace(/^foreign owner: /, '') });
  let listing;
  try {
    listing = await backend.listed(ctx);
  } catch (e) {
    listing = { ok: false, observed: (e as UserError).lines?.join('; ') ?? (e as Error).message };
  }
  checks.push({ ok: listing.ok, what: 'scheduler', observed: listing.observed });
  const jail = jailCheck(spec, n, s);
  if (jail) checks.push(jail);
  const { strays, notes } = await strayEntries(io, facts.home, n);
  checks.push(
    strays.length
      ? { ok: false, what: 'other entries', observed: strays.map((x) => strayText(x, n.wrapper)).join('; ') }
      : { ok: true, what: 'other entries', observed: `nothing but hbgen's entry runs ${n.wrapper}${notes.length ? ` (${notes.join('; ')})` : ''}` },
  );
  const rendered = render.files.find((f) => f.path === 'heartbeat.sh');
  const upgrade = pendingUpgrade(s, render.files);
  if (!rendered || !lstatOrNull(n.wrapper)) checks.push({ ok: false, what: 'wrapper', observed: `${n.wrapper} is missing or the spec no longer renders; run \`hbgen install\`` });
  else if (listing.ok) {
    // Installed by another hbgen: the smoke runs the wrapper as installed (state.json's bytes;
    // the scheduler's entry checks its own pin before it runs it), not this hbgen's render.
    const installed = upgrade ? readOrNull(n.wrapper) : null;
    const rec = s.files.find((f) => f.path === n.wrapper);
    const wrapper = installed && rec && sha256(installed) === rec.sha256 ? installed.toString('utf8') : rendered.content;
    checks.push(...(await scheduledSmoke(spec, n, io, facts.home, wrapper, file)));
  }
  line(io, `hbgen doctor: "${spec.name}" (${spec.schedule.scheduler}), installed at ${s.installedAt ?? s.time}; the install's checks again, nothing of the install changed:`);
  if (upgrade) line(io, `  note  ${upgrade}`);
  for (const c of checks) line(io, `  ${c.ok ? 'ok  ' : 'FAIL'}  ${c.what}: ${c.observed}`);
  const failed = checks.filter((c) => !c.ok);
  line(io, failed.length ? `it would not run right now: ${failed.map((c) => c.what).join(', ')}; fix what is named above (\`hbgen install\` after a change to the spec)` : 'it would run right now');
  return failed.length ? 1 : 0;
}
