// Recording STAND-INS for launchctl, systemctl and loginctl (no launchd or systemd user
// manager runs here), and a stand-in heartbeat.sh. Each is a small sh script placed first on PATH: it appends
// "TOOL ARGS…" to DIR/calls and keeps a tiny state under DIR/state so that print,
// is-enabled, is-active, list-timers and show-user answer consistently with what was done.
// Failure switches are files in DIR/state:
//   nobus               systemctl: "Failed to connect to bus: No medium found"
//   fail-<subcommand>   systemctl: that subcommand prints the file and exits 1
//   fail-bootstrap-once launchctl: the next bootstrap fails with "Bootstrap failed: 5"
//   nogui               launchctl: no gui/<uid> domain
//   bootout-lag         launchctl: how many `print`s still list a label after bootout (default 2)
//   linger              loginctl: Linger=yes
//   held                systemctl: list-units lists the unit asked for (the manager never forgets it)
//   fire-on-start       systemctl: enable --now, start and restart run this file with sh (a
//                       wake the manager starts just then, as systemd 252 does on restarting
//                       a timer that fired before)
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sh } from '../../src/escape.ts';
import { LOG_DATE_FORMAT, LOG_PRINTF, generatedBy } from '../../src/formats.ts';
import { names } from '../../src/names.ts';
import type { Spec } from '../../src/spec.ts';

const SYSTEMCTL = `#!/bin/sh
# STAND-IN for systemctl(1), tests only.
top=$(dirname "$0"); d=$top/state; mkdir -p "$d/enabled" "$d/active"
printf '%s\\n' "systemctl $*" >> "$top/calls"
[ "$1" = --user ] || { echo "stand-in systemctl: only --user" >&2; exit 2; }
shift; sub=$1; shift
if [ -e "$d/nobus" ]; then echo "Failed to connect to bus: No medium found" >&2; exit 1; fi
if [ -e "$d/fail-$sub" ]; then cat "$d/fail-$sub" >&2; exit 1; fi
units=$HOME/.config/systemd/user
now=; if [ "$1" = --now ]; then now=1; shift; fi
u=$1
case $sub in
show) echo "Version=252"; exit 0 ;;
show-environment)
  # The manager's environment: state/environment when a test set one (set-environment), else a default.
  if [ -f "$d/environment" ]; then cat "$d/environment"; else printf 'HOME=%s\\nLANG=C.UTF-8\\nPATH=/usr/local/bin:/usr/bin:/bin\\n' "$HOME"; fi; exit 0 ;;
set-environment) for a; do printf '%s\\n' "$a" >> "$d/environment"; done; exit 0 ;;
daemon-reload) exit 0 ;;
enable)
  [ -f "$units/$u" ] || { echo "Failed to enable unit: Unit file $u does not exist." >&2; exit 1; }
  touch "$d/enabled/$u"; [ -z "$now" ] || touch "$d/active/$u"
  if [ -n "$now" ] && [ -e "$d/fire-on-start" ]; then sh "$d/fire-on-start" </dev/null >/dev/null 2>&1; fi
  exit 0 ;;
disable) rm -f "$d/enabled/$u"; [ -z "$now" ] || rm -f "$d/active/$u"; exit 0 ;;
start|restart)
  [ -f "$units/$u" ] || { echo "Failed to start $u: Unit $u not found." >&2; exit 5; }
  case $u in *.service)
    # A oneshot service: the job runs now, as the manager runs it (no terminal, its own
    # session, a bare environment), and start returns its result. The wrapper is the unit's last word.
    w=$(sed -n 's/^ExecStart=.* "\\([^"]*\\)"$/\\1/p' "$units/$u")
    env -i HOME="$HOME" PATH=/usr/bin:/bin setsid -w /bin/sh "$w" </dev/null >/dev/null 2>&1 ||
      { echo "Job for $u failed because the control process exited with error code." >&2; exit 1; }
    exit 0 ;;
  esac
  touch "$d/active/$u"
  if [ -e "$d/fire-on-start" ]; then sh "$d/fire-on-start" </dev/null >/dev/null 2>&1; fi
  exit 0 ;;
stop) rm -f "$d/active/$u"; exit 0 ;;
clean)
  # clean --what=state UNIT: a timer's stamp (Persistent=); the real one refuses an active unit.
  u=$2; [ ! -e "$d/active/$u" ] || { echo "Failed to clean unit $u: Unit is active" >&2; exit 1; }
  rm -f "$d/stamp-$u"; exit 0 ;;
is-enabled)
  if [ ! -f "$units/$u" ]; then echo "Failed to get unit file state for $u: No such file or directory" >&2; exit 1; fi
  if [ -e "$d/enabled/$u" ]; then echo enabled; exit 0; fi
  echo disabled; exit 1 ;;
is-active) if [ -e "$d/active/$u" ]; then echo active; exit 0; fi; echo inactive; exit 3 ;;
list-units)
  # The manager holds a timer while it is enabled or active (or the flag "held" says it
  # cannot forget it); the real one unloads it at the daemon-reload after disable --now.
  for u in "$@"; do :; done
  if [ -e "$d/enabled/$u" ] || [ -e "$d/active/$u" ] || [ -e "$d/held" ]; then echo "$u loaded inactive dead $u"; fi
  exit 0 ;;
list-timers)
  echo "NEXT                        LEFT       LAST PASSED UNIT ACTIVATES"
  if [ -e "$d/active/$u" ]; then
    echo "Tue 2026-12-01 08:07:00 UTC 2h 3min left -    -      $u \${u%.timer}.service"; echo; echo "1 timers listed."
  else echo; echo "0 timers listed."; fi
  exit 0 ;;
*) echo "stand-in systemctl: unexpected: $sub $*" >&2; exit 2 ;;
esac
`;

const LOGINCTL = `#!/bin/sh
# STAND-IN for loginctl(1), tests only.
top=$(dirname "$0"); d=$top/state; mkdir -p "$d"
printf '%s\\n' "loginctl $*" >> "$top/calls"
case $1 in
show-user) if [ -e "$d/linger" ]; then echo Linger=yes; else echo Linger=no; fi ;;
enable-linger) touch "$d/linger" ;;
disable-linger) rm -f "$d/linger" ;;
*) echo "stand-in loginctl: unexpected: $*" >&2; exit 2 ;;
esac
`;

const LAUNCHCTL = `#!/bin/sh
# STAND-IN for launchctl(1), tests only. bootout is asynchronous, as on macOS: the label
# stays listed for bootout-lag more prints.
top=$(dirname "$0"); d=$top/state; mkdir -p "$d/loaded" "$d/going"
printf '%s\\n' "launchctl $*" >> "$top/calls"
case $1 in
print)
  t=$2
  case $t in
  gui/*/*)
    l=\${t#gui/*/}
    if [ -e "$d/loaded/$l" ] && [ -e "$d/going/$l" ]; then
      n=$(cat "$d/going/$l")
      if [ "$n" -le 0 ]; then rm -f "$d/loaded/$l" "$d/going/$l"; else echo $((n - 1)) > "$d/going/$l"; fi
    fi
    if [ -e "$d/loaded/$l" ]; then
      echo "$t = {"; if [ -e "$top/jobs/running-$l" ]; then echo "	state = running"; else echo "	state = not running"; fi
      [ ! -f "$top/jobs/exit-$l" ] || echo "	last exit code = $(cat "$top/jobs/exit-$l")"; echo "}"; exit 0
    fi
    echo "Could not find service \\"$l\\" in domain for user gui: \${t#gui/}" >&2; exit 113 ;;
  gui/*)
    if [ -e "$d/nogui" ]; then echo "Could not find domain for user gui: \${t#gui/}" >&2; exit 113; fi
    echo "$t = {"; echo "}"; exit 0 ;;
  esac ;;
bootstrap)
  p=$3
  l=$(sed -n '/<key>Label<\\/key>/{n;s/.*<string>\\(.*\\)<\\/string>.*/\\1/p;}' "$p")
  if [ -e "$d/fail-bootstrap-once" ]; then rm -f "$d/fail-bootstrap-once"; echo "Bootstrap failed: 5: Input/output error" >&2; exit 5; fi
  if [ -e "$d/loaded/$l" ]; then echo "Bootstrap failed: 5: Input/output error" >&2; exit 5; fi
  cp "$p" "$d/loaded/$l"; exit 0 ;;
kickstart)
  # Starts the loaded job now, in the background, as launchd does (no terminal, its own
  # session, a bare environment): the wrapper is the last of its ProgramArguments.
  l=\${2#gui/*/}
  [ -e "$d/loaded/$l" ] || { echo "Could not find service \\"$l\\" in domain for user gui: \${2#gui/}" >&2; exit 113; }
  w=$(sed -n '/<key>ProgramArguments<\\/key>/,/<\\/array>/p' "$d/loaded/$l" | sed -n 's/^ *<string>\\(.*\\)<\\/string>$/\\1/p' | tail -n 1 | sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&apos;/'"'"'/g; s/&amp;/\\&/g')
  # What a job run is doing lives beside the state (tests compare the state folder).
  mkdir -p "$top/jobs"; : >"$top/jobs/running-$l"
  ( env -i HOME="$HOME" PATH=/usr/bin:/bin setsid -w /bin/sh "$w" </dev/null >/dev/null 2>&1; echo $? >"$top/jobs/exit-$l"; rm -f "$top/jobs/running-$l" ) >/dev/null 2>&1 &
  exit 0 ;;
bootout)
  l=\${2#gui/*/}
  [ -e "$d/loaded/$l" ] || { echo "Boot-out failed: 3: No such process" >&2; exit 3; }
  [ -e "$d/going/$l" ] || cat "$d/bootout-lag" > "$d/going/$l" 2>/dev/null || echo 2 > "$d/going/$l"
  exit 0 ;;
*) echo "stand-in launchctl: unexpected: $*" >&2; exit 2 ;;
esac
`;

export interface StandIns {
  /** The folder to put first on PATH. */
  bin: string;
  calls(): string[];
  clearCalls(): void;
  flag(name: string, content?: string | null): void;
  has(name: string): boolean;
  /** launchd: labels loaded; systemd: units enabled/active. */
  loaded(label: string): boolean;
  enabled(unit: string): boolean;
  active(unit: string): boolean;
}

export function makeStandIns(dir: string): StandIns {
  for (const sub of ['enabled', 'active', 'loaded', 'going']) mkdirSync(join(dir, 'state', sub), { recursive: true });
  for (const [name, text] of [['systemctl', SYSTEMCTL], ['loginctl', LOGINCTL], ['launchctl', LAUNCHCTL]] as const) {
    writeFileSync(join(dir, name), text);
    chmodSync(join(dir, name), 0o755);
  }
  const st = (p: string) => join(dir, 'state', p);
  return {
    bin: dir,
    calls: () => (existsSync(join(dir, 'calls')) ? readFileSync(join(dir, 'calls'), 'utf8').split('\n').filter(Boolean) : []),
    clearCalls: () => rmSync(join(dir, 'calls'), { force: true }),
    flag: (name, content = '') => (content === null ? rmSync(st(name), { force: true }) : writeFileSync(st(name), content)),
    has: (name) => existsSync(st(name)),
    loaded: (label) => existsSync(st(`loaded/${label}`)) && !existsSync(st(`going/${label}`)),
    enabled: (unit) => existsSync(st(`enabled/${unit}`)),
    active: (unit) => existsSync(st(`active/${unit}`)),
  };
}

// ------------------------------------------------------------------ heartbeat.sh

export interface StandInWrapper {
  /** Install the REAL rendered heartbeat.sh instead of the stand-in. */
  real?: boolean;
  /** --smoke exits with this status and one stderr line instead of running (e.g. 78). */
  smokeExit?: number;
  /** Seconds --smoke holds the lock (the real wrapper: about 2). */
  hold?: number;
  /** --smoke first renames runtime.log to runtime.log.1, as a wake that rotates the log during the install would. */
  rotate?: boolean;
}

/**
 * A STAND-IN heartbeat.sh with the interface the real wrapper provides: re-exec under
 * env -i, setup checks (exit 78 with one stderr line), the mkdir lock with "PID EPOCH"
 * owner (skip-locked when held; skip-locked smoke for --smoke), --smoke (start smoke … quiet smoke, holding the lock),
 * --now and the scheduled run (start, the agent, quiet or fail N).
 */
export function standInWrapper(spec: Spec, o: StandInWrapper = {}): string {
  const n = names(spec);
  return `#!/bin/sh
# ${generatedBy(spec.name)}
# STAND-IN wrapper for the lifecycle tests (the --smoke/--now interface of heartbeat.sh).
if [ "\${HBGEN_REEXEC:-}" != 1 ]; then exec /usr/bin/env -i HBGEN_REEXEC=1 PATH=/usr/bin:/bin /bin/sh "$0" "$@"; fi
umask 077
name=${sh(spec.name)}; repo=${sh(spec.repo)}; log=${sh(n.log)}; lockd=${sh(n.lockDir)}; bin=${sh(spec.agent.bin)}
hb_log() { printf '${LOG_PRINTF}' "$(date -u ${LOG_DATE_FORMAT})" "$name" "$*" >>"$log"; }
# The install check through the scheduler: a run with no argument takes the request.
sched=; if [ $# = 0 ] && [ -f ${sh(n.stateDir)}/smoke.request ]; then rm -f ${sh(n.stateDir)}/smoke.request; set -- --smoke; sched=1; fi
cd "$repo" 2>/dev/null || { echo "hbgen $name: repo $repo is missing" >&2; exit 78; }
[ -x "$bin" ] || { echo "hbgen $name: agent binary $bin is missing or not executable" >&2; hb_log "error agent binary missing"; exit 78; }
${o.rotate ? `if [ "\${1:-}" = --smoke ] && [ -f "$log" ]; then mv -f "$log" "$log.1"; fi` : ''}
${o.smokeExit !== undefined ? `if [ "\${1:-}" = --smoke ]; then echo "hbgen $name: agent binary $bin is missing or not executable" >&2; exit ${o.smokeExit}; fi` : ''}
if ! mkdir "$lockd" 2>/dev/null; then if [ "\${1:-}" = --smoke ]; then hb_log skip-locked smoke; else hb_log skip-locked; fi; exit 0; fi
echo "$$ $(date +%s)" > "$lockd/owner"
trap 'rm -rf "$lockd"' EXIT
trap 'exit 143' TERM
case "\${1:-}" in
--smoke) hb_log start smoke; [ -z "$sched" ] || hb_log "note smoke run as $(id -un) (uid $(id -u)), stand-in"; sleep ${o.hold ?? 1}; hb_log quiet smoke; exit 0 ;;
*) hb_log start wake; "$bin" </dev/null >>"$log" 2>&1; rc=$?; if [ $rc = 0 ]; then hb_log quiet; else hb_log fail $rc; fi; exit $rc ;;
esac
`;
}
