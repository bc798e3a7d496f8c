// The suites make scratch users (crontab(1), the cron daemon, a systemd user manager) and bind
// mounts (each shell as /bin/sh): as another user nearly every suite would fail, minutes later,
// for that one reason. `npm test` runs this before it builds, and test/run.mjs imports it, so
// that a normal user is told at once.
if (process.getuid?.() !== 0) {
  process.stdout.write('npm test: the suites need root (they create scratch users for cron and a systemd user manager, and bind-mount each shell as /bin/sh): run `sudo npm test`.\n\n0 passed, 1 failed\n');
  process.exit(1);
}
