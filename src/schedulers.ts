// The schedulers hbgen can install on, one descriptor each. Adding a scheduler means one
// renderer in generators/, one backend in src/host/, one line here, and its templates,
// fixtures and tests; nothing else names a scheduler.
//
// Everything behind a descriptor loads lazily: rendering for one scheduler loads neither
// another scheduler's code nor any host code, and this module itself imports only types,
// because src/spec.ts (loaded by every command) takes the id list from here.
import type { Generator } from '../generators/types.ts';
import type { Backend } from './host/backend.ts';
import type { HostIO } from './host/io.ts';

/** Every scheduler, as the spec's schedule.scheduler names it. */
export const SCHEDULER_IDS = ['launchd', 'systemd-user', 'cron', 'kubernetes'] as const;
export type SchedulerId = (typeof SCHEDULER_IDS)[number];

/** A host program a backend runs, found on PATH. */
export interface Tool {
  name: string;
  /** Only install needs it: status and stop work without it. */
  installOnly?: boolean;
  /** Install's refusal when it is missing, when the general one would mislead. */
  missing?: string;
}

export interface SchedulerDescriptor {
  id: SchedulerId;
  tools: readonly Tool[];
  /** Its jobs run only on macOS, so macOS's privacy controls apply whatever host renders. */
  macOS?: boolean;
  /**
   * It reads its calendar in the host clock's zone (hostTimezone), so a working zone other
   * than that one needs a widened plan that the gate narrows; false when the entry itself
   * carries the working zone (systemd's OnCalendar= zone suffix).
   */
  hostClock: boolean;
  /** The spec → files renderer of its entry, ready to use. */
  generator(): Promise<Generator>;
  /** The host side: preflight, apply, listing, stop and audit. */
  backend(): Promise<Backend>;
  /**
   * It runs off this host (a cluster): install, stop, status, resume and wake are its own
   * (src/host/kubernetes/backend.ts); its backend() only answers the host-wide looks (list, stop
   * of another scheduler) with nothing found.
   */
  offHost?(): Promise<OffHost>;
}

/** The lifecycle commands of a scheduler that runs off this host. */
export interface OffHost {
  install(argv: { spec: string; yes?: boolean; dryRun?: boolean; apply?: boolean; resetCap?: boolean }, io: HostIO, verb: 'install' | 'resume'): Promise<number>;
  stop(argv: { spec: string; yes?: boolean; apply?: boolean }, io: HostIO): Promise<number>;
  status(argv: { spec: string }, io: HostIO): Promise<number>;
  wake(argv: { spec: string }, io: HostIO): Promise<number>;
}

const LOGINCTL: Tool = {
  name: 'loginctl',
  installOnly: true,
  missing:
    'loginctl is not on PATH, so hbgen cannot check or turn on lingering (systemd stops user timers at logout without it); install systemd-logind or choose schedule.scheduler "cron"',
};

export const SCHEDULERS: Record<SchedulerId, SchedulerDescriptor> = {
  launchd: {
    id: 'launchd',
    tools: [{ name: 'launchctl' }],
    macOS: true,
    hostClock: true,
    // The plist writer (the heaviest dependency hbgen has) loads with this renderer only.
    generator: () => import('../generators/launchd.ts').then(async (m) => (await m.loadPlist(), m.launchd)),
    backend: () => import('./host/launchd/backend.ts').then((m) => m.launchd),
  },
  'systemd-user': {
    id: 'systemd-user',
    tools: [{ name: 'systemctl' }, LOGINCTL],
    hostClock: false,
    generator: () => import('../generators/systemd-user.ts').then((m) => m.systemd),
    backend: () => import('./host/systemd-user/backend.ts').then((m) => m.systemd),
  },
  cron: {
    id: 'cron',
    tools: [{ name: 'crontab' }],
    hostClock: true,
    generator: () => import('../generators/cron.ts').then((m) => m.cron),
    backend: () => import('./host/cron/backend.ts').then((m) => m.cron),
  },
  kubernetes: {
    id: 'kubernetes',
    // Only install --apply, stop --apply and status run it (src/host/kubernetes/backend.ts checks it
    // there); the host-wide looks of list and stop never do.
    tools: [{ name: 'kubectl', installOnly: true }],
    // The CronJob carries the working zone (spec.timeZone), as systemd's OnCalendar= does.
    hostClock: false,
    // The YAML writer loads with this renderer only.
    generator: () => import('../generators/kubernetes.ts').then((m) => m.kubernetes),
    backend: () => import('./host/kubernetes/backend.ts').then((m) => m.kubernetesHost),
    offHost: () => import('./host/kubernetes/backend.ts').then((m) => m.kubernetesCommands),
  },
};

/** "a, b or c": the ids as a sentence lists them. */
export function schedulerList(): string {
  return `${SCHEDULER_IDS.slice(0, -1).join(', ')} or ${SCHEDULER_IDS[SCHEDULER_IDS.length - 1]}`;
}
