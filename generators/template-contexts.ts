// The contexts of the templates that are not scripts: what each one may read. Each
// template names its type on its first line; the build turns that into the parameter
// type of its render function (src/gen/templates.ts).

/** templates/systemd.service.hbs and systemd.timer.hbs. */
export interface SystemdUnitContext {
  header: string;
  name: string;
  /** ExecStart='s value, already quoted for systemd (generators/entry.ts). */
  execStart: string;
  /** The unit's TimeoutStartSec=, in seconds. */
  timeoutStartSec: number;
  /** One OnCalendar= value each. */
  onCalendar: string[];
  /** The service the timer starts. */
  service: string;
  /** Documentation='s value: the wrapper as a file: URI, escaped for the unit file. */
  documentation: string;
  /** catchUp "once": Persistent=true, a fire missed while off or asleep runs once at boot or resume. */
  persistent: boolean;
  /** spec.limits (TasksMax=, MemoryMax=), false when they are off. */
  limits: boolean;
  tasksMax: number;
  memoryMax: string;
}

/** templates/crontab.hbs: hbgen's block of a crontab. */
export interface CrontabContext {
  header: string;
  begin: string;
  end: string;
  /** Whole crontab lines: times and command. */
  lines: string[];
  hostTimezone: string;
}

/** The files `hbgen init` writes into a repo: HEART.md, PROTOCOL.md, STATE.md, LOG.md, journal/TEMPLATE.md. */
export interface RepoDocContext {
  name: string;
}
