// Is a cron daemon running to fire the crontab entry (without one, the first sign
// was a missed fire in `hbgen status`)? Asked at install by the cron backend's preflight: the
// process table (src/host/ps.ts) for a cron daemon, and, where none is visible (a /proc
// mounted with hidepid shows only one's own), the system manager's word on its cron unit.
// None running is a refusal naming the command that starts it. macOS starts cron from
// launchd when a crontab exists, so it is not asked there.
import { existsSync } from 'node:fs';
import type { HostIO } from '../io.ts';
import { type Proc, processes } from '../proc/ps.ts';
import { runTool } from '../proc/tools.ts';

/** The daemons' program names: Debian's cron, cronie's and dcron's crond, fcron; busybox runs as `busybox crond`. */
const DAEMONS = new Set(['cron', 'crond', 'fcron', 'cronie']);

/** Whether one of `procs` is a cron daemon. */
export function cronInTable(procs: Proc[]): boolean {
  return procs.some((p) => {
    const words = p.args.split(' ');
    const prog = (words[0] ?? '').split('/').pop() ?? '';
    return !p.zombie && (DAEMONS.has(prog) || (prog === 'busybox' && words[1] === 'crond'));
  });
}

/** The cron unit this host's system manager has (Debian `cron`, Fedora and Arch `crond`), or null without systemd. */
function systemdUnit(): string | null {
  if (!existsSync('/run/systemd/system')) return null;
  const has = (u: string) => ['/lib/systemd/system', '/usr/lib/systemd/system', '/etc/systemd/system'].some((d) => existsSync(`${d}/${u}.service`));
  return ['cron', 'crond', 'cronie'].find(has) ?? 'cron';
}

/** The command that starts the daemon on this host. */
export function startCommand(): string {
  const unit = systemdUnit();
  if (unit) return `sudo systemctl enable --now ${unit}`;
  const init = ['cron', 'crond'].find((n) => existsSync(`/etc/init.d/${n}`));
  if (init) return `sudo service ${init} start`;
  return 'sudo crond (or your system\'s way to start its cron daemon)';
}

/** One refusal sentence when no cron daemon runs here, else null (also when the host cannot tell). */
export async function cronDaemonRefusal(io: HostIO, table?: Proc[]): Promise<string | null> {
  if (process.platform === 'darwin') return null;
  let procs: Proc[];
  try {
    procs = table ?? (await processes(io));
  } catch {
    return null; // no process table to read: not known, and not refused
  }
  if (cronInTable(procs)) return null;
  const unit = systemdUnit();
  if (unit) {
    const r = await runTool(io, 'systemctl', ['is-active', `${unit}.service`], { timeoutMs: 10_000 });
    if (r.code === 0 && r.stdout.trim() === 'active') return null;
  }
  return `schedule.scheduler is "cron" but no cron daemon runs on this host (no cron or crond process${unit ? `, and ${unit}.service is not active` : ''}), so the crontab entry would never fire; start it with \`${startCommand()}\`, then run \`hbgen install\` again`;
}
