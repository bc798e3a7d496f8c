// The lowest floor: what every layer may know of the schedulers, and nothing that does
// anything. The spec (its scheduler field), the schedule (which clock an entry reads), the
// state record and the host checks import this; the registry that wires each scheduler's
// renderer and backend (src/schedulers.ts) sits on top of everything instead.
//
// Each scheduler's facts live in its own folder (src/host/<id>/facts.ts, a module that
// imports nothing at run time); adding a scheduler is one line here (see
// docs/ARCHITECTURE.md "Adding a scheduler").
import { facts as launchd } from './host/launchd/facts.ts';
import { facts as systemdUser } from './host/systemd-user/facts.ts';
import { facts as cron } from './host/cron/facts.ts';
import { facts as kubernetes } from './host/kubernetes/facts.ts';

/** A host program a backend runs, found on PATH. */
export interface Tool {
  name: string;
  /** Only install needs it: status and stop work without it. */
  installOnly?: boolean;
  /** Install's refusal when it is missing, when the general one would mislead. */
  missing?: string;
}

/** What hbgen knows of one scheduler without loading its code. */
export interface SchedulerFacts<Id extends string = string> {
  /** As the spec's schedule.scheduler names it; also its folder (src/host/<id>/) and renderer (generators/<id>.ts). */
  id: Id;
  tools: readonly Tool[];
  /** Its jobs run only on macOS, so macOS's privacy controls apply whatever host renders. */
  macOS?: boolean;
  /**
   * It reads its calendar in the host clock's zone (hostTimezone), so a working zone other
   * than that one needs a widened plan that the gate narrows; false when the entry itself
   * carries the working zone (systemd's OnCalendar= zone suffix, a CronJob's timeZone).
   */
  hostClock: boolean;
  /**
   * Its jobs run off this host (in a cluster): hbgen's jail is off (the pod is the
   * boundary), and nothing of it is run, probed or smoke-tested here.
   */
  offHost?: boolean;
  /** The spec block only this scheduler reads (required with it, refused with any other). */
  block?: string;
  /** Where the default state folder goes below HOME, when not $XDG_STATE_HOME/hbgen (launchd: macOS's own place). */
  stateHome?: string;
  /** The entry as a person names it ("LaunchAgent", "crontab block"). */
  entry: string;
  /** Why an entry the scheduler holds may not have fired, besides sleep and clock changes. */
  missedCause: string;
  /**
   * What becomes of a fire missed while the machine slept, for each spec.catchUp (the
   * panel's caveat and status's missed-fire line, after `catchUp "once": `); absent, a
   * general sentence stands in.
   */
  catchUp?: { once: string; skip: string };
  /**
   * The command a backend of this scheduler prints instead of running, unless --apply
   * (kubernetes: kubectl); absent when install and stop change the host themselves.
   */
  printsCommand?: string;
  /**
   * How a job of this scheduler is started on demand (install's check, the first wake,
   * doctor): its argv, where `<service>`, `<label>` and `<uid>` stand for the install's
   * unit, label and the user's uid, and the panel's words; absent when the scheduler
   * cannot start a job on demand (then `noStart` says what is done instead).
   */
  startJob?: {
    argv: readonly string[];
    says: string;
    /**
     * When the start command returns before the run ends (launchctl kickstart): the command
     * that shows the job (the same placeholders), polled until the wrapper took the request
     * and `ended` matches its output; the first group of `exitCode` is then the run's status.
     */
    follow?: { argv: readonly string[]; ended: RegExp; exitCode: RegExp };
  };
  noStart?: string;
  /**
   * How a wake's bounds (spec.limits) are applied: `in` the job's own control group (the
   * unit carries them; the wrapper checks that its cgroup holds them and falls back to
   * rlimits where the controllers are not delegated), a transient `scope` the wrapper asks
   * the user manager for (rlimits where none answers), or `entry` alone (the wrapper adds
   * nothing: the launchd plist). `says` is the panel's sentence. Absent: spec.limits does
   * not apply (kubernetes.resources bound the pod).
   */
  bounds?: { wrapper: 'in' | 'scope' | 'entry'; says: string };
}

const ALL = [launchd, systemdUser, cron, kubernetes] as const;

/** Every scheduler, as the spec's schedule.scheduler names it, in the order init prefers them. */
export const SCHEDULER_IDS = ALL.map((f) => f.id) as unknown as readonly [(typeof ALL)[number]['id'], ...(typeof ALL)[number]['id'][]];
export type SchedulerId = (typeof ALL)[number]['id'];

export const FACTS = Object.fromEntries(ALL.map((f) => [f.id, f])) as unknown as Record<SchedulerId, SchedulerFacts<SchedulerId>>;

/** The facts of the scheduler `id` names, or undefined for a name hbgen does not know (state.json may hold any). */
export function factsOf(id: unknown): SchedulerFacts<SchedulerId> | undefined {
  return typeof id === 'string' && Object.hasOwn(FACTS, id) ? FACTS[id as SchedulerId] : undefined;
}

/** "a, b or c": the ids as a sentence lists them. */
export function schedulerList(): string {
  return `${SCHEDULER_IDS.slice(0, -1).join(', ')} or ${SCHEDULER_IDS[SCHEDULER_IDS.length - 1]}`;
}
