// The scheduler entry, the one command every scheduler starts (systemd's ExecStart=,
// launchd's ProgramArguments, the crontab line), built here once:
//
//   /bin/sh -c SCRIPT hbgen-<name> <stateDir>/heartbeat.sh
//
// SCRIPT compares the SHA-256 of the installed wrapper with the one hbgen computed from the
// rendered wrapper, and then becomes exactly `/bin/sh <stateDir>/heartbeat.sh`, the command
// line src/host/proc/proc.ts recognises as the wrapper. Not POSIX cksum: a CRC is linear, so
// whoever can read the expected sum (the agent can run `crontab -l`) can write another
// wrapper of the same length and cksum (test/entry.test.ts does it with the real cksum).
// An edited (or missing) wrapper never runs: the entry appends `error wrapper changed` to
// runtime.log (the log's own format, src/formats.ts), says on stderr what to do, and exits
// 78 (EX_CONFIG), as the wrapper's own setup faults do.
//
// Nothing the scheduler's environment holds may choose the program that checks: a PATH
// set above hbgen's crontab block, by `systemctl --user set-environment` or by a drop-in
// would otherwise put a "sha256sum" that always says "match" in front of the real one. So
// SCRIPT sets its own PATH, unsets any shell function of the names it uses (bash, as
// /bin/sh, imports functions from the environment, `[` and printf included; `unset` is a
// special built-in no function can shadow), and runs only tools at fixed absolute paths:
// the first of /usr/bin/sha256sum (coreutils; busybox's link on Alpine), /usr/bin/shasum
// -a 256 (macOS) and /bin/busybox sha256sum that runs. shasum is a perl script, and perl
// loads modules that PERL5OPT and PERL5LIB name, so it runs under `/usr/bin/env -i`. All
// print "<hex>  -" for standard input; a missing one fails and the next is tried; with none,
// nothing runs. These are fixed words, so rendering stays pure. Three, not more: the
// crontab line must stay under cron's 998-byte limit with the state folder's path in it.
// What the environment can still change is /bin/sh itself (LD_PRELOAD and the like are read
// by the loader before SCRIPT's first word): `hbgen status` reports such variables in the
// scheduler's environment, and drop-ins, as problems (src/host/audit/tamper.ts).
//
// The entry lives with the scheduler (crontab, ~/.config/systemd/user,
// ~/Library/LaunchAgents), outside the repository and the state folder. The check and the
// run read the file one after the other, so it stops an edit made between wakes, not a
// writer racing it: the state folder must still be beyond the agent's reach (install
// refuses one inside the repo for these schedulers).
//
// The wrapper's path is an argument ($1), never part of SCRIPT, so SCRIPT is the same for
// every path and the path is quoted once, by the target's own function (src/escape.ts),
// exactly as before: the host code that recognises an entry as this install's looks for
// that quoted path (src/host/backend.ts entryOwner). SCRIPT uses double quotes only, so in
// a crontab line only its `%` need cron's escaping; it stays on one line (cron's limit).
import { LOG_DATE_FORMAT, LOG_PRINTF } from '../src/formats.ts';
import type { Names } from '../src/names.ts';
import { runtimeName } from '../src/version.ts';

/** The entry's exit status when the wrapper is not the one hbgen installed (EX_CONFIG). */
export const ENTRY_REFUSED = 78;

/** The runtime.log detail the entry writes, after `error`. */
export const WRAPPER_CHANGED = 'wrapper changed';

/**
 * The programs that may compute the SHA-256, tried in this order, each at a fixed absolute
 * path (never looked up on PATH): see the head of this file.
 */
export const SHA256_TOOLS = ['/usr/bin/sha256sum', '/usr/bin/env -i /usr/bin/shasum -a 256', '/bin/busybox sha256sum'] as const;

/** A word that needs no quoting in sh, systemd or cron. */
const BARE = /^[A-Za-z0-9_+=:,./-]+$/;

/** A word sh reads as itself (`%` too: SCRIPT is quoted for its target as a whole). */
function bare(what: string, s: string): string {
  if (!/^[A-Za-z0-9_+=:,./%-]+$/.test(s)) throw new Error(`entry: ${what} ${JSON.stringify(s)} is not a bare word`);
  return s;
}

/** Text that can sit inside SCRIPT's double quotes as it is: nothing in it expands. */
function dq(what: string, s: string): string {
  if (/["$`\\]/.test(s.replace(/\\n$/, ''))) throw new Error(`entry: ${what} ${JSON.stringify(s)} would expand inside double quotes`);
  return `"${s}"`;
}

/** SCRIPT: check, then exec the wrapper, else log, say so and exit 78. */
export function entryScript(name: string, sha256: string): string {
  const n = bare('the spec name', name);
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`entry: ${JSON.stringify(sha256)} is not a SHA-256 in hex`);
  const logLine = `printf ${dq('the log format', LOG_PRINTF)} "$(/bin/date -u ${bare('the log date format', LOG_DATE_FORMAT)})" ${n} "error ${WRAPPER_CHANGED}"`;
  const said = `hbgen ${n}: %s differs from the wrapper hbgen installed (or cannot be read), so it did not run; see hbgen status, then reinstall it with hbgen install\\n`;
  // The runtime beside the wrapper is summed in the same call ("-" is the wrapper, on
  // stdin): the wrapper compares the runtime's line with its pin (HBGEN_SUMS), so a wake
  // the scheduler starts runs no second checksum.
  const sumBoth = SHA256_TOOLS.map((t) => `${t} - "$r"`).join(' || ');
  return [
    // Its own PATH, and no function of the environment's in place of a command it runs.
    'PATH=/usr/bin:/bin',
    'export PATH',
    'unset -f [ printf 2>/dev/null',
    `r=\${1%/*}/${bare('the runtime name', runtimeName())}`,
    // 2>/dev/null first: a missing file's or tool's message would be a second stderr line.
    `h=$({ ${sumBoth}; } 2>/dev/null <"$1")`,
    `[ "\${h%% *}" = ${sha256} ] && HBGEN_SUMS=$h && export HBGEN_SUMS && exec /bin/sh "$1"`,
    'l=${1%/*}/runtime.log',
    // Only into the wrapper's own log file, never through a link planted in its place.
    `[ -f "$l" ] && [ ! -L "$l" ] && ${logLine} >>"$l"`,
    `printf ${dq('the message', said)} "$1" >&2`,
    `exit ${ENTRY_REFUSED}`,
  ].join('; ');
}

/** The entry as argv (launchd's ProgramArguments; the others quote it with entryLine). */
export function entryArgv(ctx: { spec: { name: string }; names: Names; wrapperSha256: string }): string[] {
  const { names } = ctx;
  // SCRIPT derives the log from the wrapper's path: both must sit in the state folder.
  if (names.log !== `${names.wrapper.slice(0, names.wrapper.lastIndexOf('/'))}/runtime.log`) throw new Error('entry: runtime.log is not beside heartbeat.sh');
  return ['/bin/sh', '-c', entryScript(ctx.spec.name, ctx.wrapperSha256), names.unit, names.wrapper];
}

/**
 * The entry as one command line for a target that splits words itself: SCRIPT and the
 * wrapper's path through `quote`, the target's function of src/escape.ts (systemdArg,
 * cronWord); /bin/sh, -c and hbgen-<name> bare.
 */
export function entryLine(ctx: Parameters<typeof entryArgv>[0], quote: (s: string) => string): string {
  const [shell, c, script, arg0, wrapper] = entryArgv(ctx) as [string, string, string, string, string];
  if (!BARE.test(arg0)) throw new Error(`entry: the unit name ${JSON.stringify(arg0)} is not a bare word`);
  return [shell, c, quote(script), arg0, quote(wrapper)].join(' ');
}
