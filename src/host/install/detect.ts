// What hbgen init can tell about this host without asking: the agent binaries on PATH
// (resolved to files that survive the agent's self-updates), the scheduler, the time zone
// and a PATH safe to put in a spec. Read-only: nothing here changes the host.
import { realpathSync } from 'node:fs';
import { posix } from 'node:path';
import { isKnownZone } from '../../zones.ts';
import type { HostIO } from '../io.ts';
import { findOnPath } from '../proc/tools.ts';
import { PRESETS, type HarnessPreset, type PresetId } from '../../harness/registry.ts';
import { SCHEDULER_IDS, SCHEDULERS, type SchedulerId } from '../../schedulers.ts';

export type Harness = PresetId;

export interface Agent {
  harness: Harness;
  label: string;
  bin: string;
  /** Where PATH had it, when bin (its real path) differs. */
  via?: string;
  note?: string;
}


// A path component that names a release: the real file behind a self-updating install
// (e.g. ~/.local/share/claude/versions/2.1.197) disappears at the next update.
const VERSIONED = /\/(versions?|releases?)\/|\/v?\d+\.\d+(\.\d+)?([-+][^/]*)?(\/|$)/;

/** Where the preset's command is: on PATH, else where an old installer put it (its descriptor's detect.offPath: Claude Code's local installer). */
function locate(p: HarnessPreset, io: HostIO, home: string): { onPath: string; note?: string } | null {
  const onPath = findOnPath(p.detect.command, io.env.PATH);
  if (onPath) return { onPath };
  if (!p.detect.offPath) return null;
  const local = posix.join(home, p.detect.offPath);
  if (!findOnPath(local, '')) return null;
  return { onPath: local, note: `${local} (not on PATH; your shell may reach it through an alias, which schedulers do not have)` };
}

/** The agent binaries on PATH, each resolved to its real file (walking PATH, no shell). */
export function findAgents(io: HostIO, home: string): Agent[] {
  const out: Agent[] = [];
  for (const a of PRESETS) {
    const found = locate(a, io, home);
    if (!found) continue;
    const { onPath, note } = found;
    let real = onPath;
    try {
      real = realpathSync(onPath);
    } catch {
      continue;
    }
    const agent: Agent = { harness: a.id, label: a.label, bin: real };
    if (real !== onPath) {
      agent.via = onPath;
      if (VERSIONED.test(real) && !VERSIONED.test(onPath)) {
        // Keep the link the updater maintains; its target is pinned to one release.
        agent.bin = onPath;
        agent.note = `${onPath} links to ${real}, a path pinned to one release that the next update removes, so the spec keeps the link`;
      }
    }
    if (note) agent.note = note;
    out.push(agent);
  }
  return out;
}

/**
 * The first scheduler, in registry order, whose backend says it suits this host (each
 * backend's detect: launchd on macOS, systemd where `systemctl --user` reaches a user
 * manager, else cron). `why` says what decided it, for init's report: the chosen one's
 * reason, or when it gives none, why the one before it did not fit.
 */
export async function detectScheduler(io: HostIO, platform: string = process.platform): Promise<{ scheduler: SchedulerId; why: string }> {
  let declined = '';
  for (const id of SCHEDULER_IDS) {
    const d = await (await SCHEDULERS[id].backend()).detect?.(io, platform);
    if (!d) continue;
    if (d.fits) return { scheduler: id, why: d.why || declined };
    declined = d.why;
  }
  throw new Error('no scheduler backend fits this host; the registry lacks a last choice (one whose detect always fits)');
}

/** The host's zone: TZ when it names a zone, else the one Node reads from the system. */
export function detectZone(io: HostIO): string | undefined {
  const tz = (io.env.TZ ?? '').replace(/^:/, '');
  if (tz && isKnownZone(tz)) return tz;
  const sys = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return sys && isKnownZone(sys) ? sys : undefined;
}

/** PATH with only absolute, normalized entries, each once (the spec refuses the rest). */
export function cleanPath(path: string | undefined): { path: string; dropped: string[] } {
  const keep: string[] = [];
  const dropped: string[] = [];
  for (const d of (path ?? '').split(':')) {
    const norm = posix.normalize(d).replace(/(.)\/$/, '$1');
    if (!d.startsWith('/') || norm !== d) {
      dropped.push(d === '' ? '(empty)' : d);
    } else if (!keep.includes(d)) {
      keep.push(d);
    }
  }
  if (keep.length === 0) keep.push('/usr/local/bin', '/usr/bin', '/bin');
  return { path: keep.join(':'), dropped };
}
