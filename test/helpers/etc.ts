// A test host's own /etc: hbgen reads the host clock's zone from /etc/localtime (for cron
// and launchd), and a test decides that zone, not the machine it runs on.
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A folder standing in for the host's /etc, whose localtime names `zone` (by default the
 * zone the spec's cron/launchd entries are planned for), so that a test host's clock zone
 * is the test's choice, not the machine's.
 */
export function etcFor(root: string, zone: string): string {
  const etc = join(root, 'etc');
  mkdirSync(etc, { recursive: true });
  rmSync(join(etc, 'localtime'), { force: true });
  symlinkSync(`/usr/share/zoneinfo/${zone}`, join(etc, 'localtime'));
  return etc;
}
