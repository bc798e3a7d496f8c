// Facts about the host's /bin/sh that decide whether an install can work at all.
import { spawnSync } from 'node:child_process';

/**
 * Is /bin/sh yash? yash turns every argument into a wide-character string in the locale it
 * starts in; the scheduler starts the wrapper in the C locale (cron, launchd set no LANG),
 * where a non-ASCII byte cannot be converted and yash replaces the whole argument, the
 * wrapper's own path, with an empty string ("cannot convert the argument … into a wide
 * character string"): the wrapper could not even find itself. Asked of the shell itself,
 * so a copied or bind-mounted binary is recognised as well as a symlink.
 */
export function binShIsYash(sh = '/bin/sh'): boolean {
  const r = spawnSync(sh, ['-c', 'printf %s "${YASH_VERSION:-}"'], { env: { PATH: '/usr/bin:/bin' }, encoding: 'utf8', timeout: 5000 });
  return r.status === 0 && r.stdout !== '';
}

/** The refusal for a state folder yash cannot run from, or null. */
export function yashPathProblem(stateDir: string, isYash: () => boolean = binShIsYash): string | null {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(stateDir) || !isYash()) return null;
  return `stateDir: ${stateDir} holds non-ASCII characters and /bin/sh here is yash, which cannot read such a path in the C locale the scheduler starts it in; choose a state folder whose path is plain ASCII (set "stateDir")`;
}
