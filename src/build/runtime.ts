// hbgen's runtime rendered from its templates: the program of every heartbeat.sh, with no
// spec in it (the same bytes for every spec). Its context holds only hbgen's own
// constants: the log's formats, the outcome words, the clients' words. The build renders
// it once (bin/build.mjs, into src/gen/runtime.ts); what renders and installs read is that
// text, through generators/runtime.ts. It sits in src/build/, what only the build runs,
// and not beside the renderers in generators/: the registry's import of generators/<id>.ts
// is a glob to the bundler that takes in every module under generators/, subfolders too,
// and this one would ship with its precompiled templates though no command runs it
// (test/bundle.test.ts).
import { WORKSPACE_COPIES } from '../workspace.ts';
import { GIT_HARMLESS_KEYS, GIT_HARMLESS_SECTIONS, WORKSPACE_GIT_CONFIG } from '../git-safe.ts';
import { renderRuntimeSh } from '../gen/runtime-templates.ts';
import { FILES_AWK, TOKEN_AWK, TOKEN_REFUSAL, VERDICT_AWK } from '../billing-rules.ts';
import { STATUS_ARGV, billingKeyNames, fileHitFix, notPlan, timedOut } from '../billing.ts';
import { PRESETS } from '../harness/registry.ts';
import { JAIL_PLACEHOLDERS, REPO_DENY } from '../jail.ts';
import { LOCK_OWNER_PRINTF, LOG_DATE_FORMAT, LOG_PRINTF, OUTCOME_WORDS, PAUSE_PRINTF, FAIL_PAUSE_FILE, FAIL_PAUSE_PRINTF, IDLE_FILE, DIGEST_ARGV_FILE, DIGEST_STAMP_FILE, DIGEST_SECONDS, SMOKE_DETAIL, TAMPERED_GIT, ENTRY_NOTE, WORKSPACE_NOTE, ENTRY_NOTE_TAIL, UNTIL_WORD, WAKES_PRINTF, AGENT_RECORD_PRINTF, ASIDE_DIR, PAUSE_MAX_SECONDS, logLineShell, wakeDetailShell } from '../formats.ts';
import { LIMIT_FAR } from '../../generators/limit.ts';
import { NOTIFY_SECONDS, PING_BOUND, PING_SECONDS } from '../../generators/notify.ts';
import { logDateShell } from '../../generators/formats.ts';
import { VERSION } from '../version.ts';
import { SHA256_TOOLS } from '../../generators/entry.ts';

/** A preset client's words, chosen at wake time by heartbeat.sh's hb_client. */
export interface RuntimeClient {
  name: string;
  argvText: string;
  command: string;
  notPlan: string;
  fileFix: string;
  refusals: string[];
  /** The runtime's parser of its event stream (hb_stream): the descriptor's `stream`. */
  stream: string;
}

export interface RuntimeContext {
  version: string;
  out: typeof OUTCOME_WORDS;
  logPrintf: string;
  logDateFormat: string;
  logDateShell: string;
  asideDir: string;
  wakesPrintf: string;
  agentPrintf: string;
  pausePrintf: string;
  failPauseFile: string;
  failPausePrintf: string;
  idleFile: string;
  digestArgvFile: string;
  digestStampFile: string;
  digestSeconds: number;
  lockOwnerPrintf: string;
  smokeDetail: string;
  untilWord: string;
  tamperedGit: string;
  entryNote: string;
  workspaceNote: string;
  entryNoteTail: string;
  /** The scheduler entry's SHA-256 tools (generators/entry.ts): each one's program, tested with -x, and its command. */
  sha256Tools: { path: string; cmd: string }[];
  limitMaxPause: number;
  limitFar: number;
  notifySeconds: number;
  pingSeconds: number;
  pingBound: number;
  /** The `start` line's detail (hb_n, hb_now), and ` jail` after it for a jailed wake. */
  wakeDetailSh: string;
  startLineSh: string;
  jailed: string;
  jailPlaceholders: string[];
  /** "workspace": "clone": the person's files copied into the clone before each wake, and the -c settings of the wrapper's git in the person's repo. */
  workspaceCopies: string[];
  workspaceGit: string[];
  /** The git check's one list (src/git-safe.ts): settings that choose no program, space-separated, and the sections as an awk alternation. */
  gitHarmlessKeys: string;
  gitHarmlessSections: string;
  billingKeys: string;
  billingVerdictAwk: string;
  billingFilesAwk: string;
  billingTokenAwk: string;
  billingTokenRefusal: string;
  clients: RuntimeClient[];
}

function runtimeContext(): RuntimeContext {
  const wakeDetailSh = wakeDetailShell('hb_n', 'hb_now', false);
  const clients = PRESETS.map(({ id, model, stream }) => ({
    name: id,
    argvText: STATUS_ARGV[id].join(' '),
    // "<command> did not answer within N s": the command, N filled in at wake time.
    command: timedOut(id, 0).replace(/ did not answer within 0 s$/, ''),
    notPlan: notPlan(id),
    fileFix: fileHitFix(id),
    refusals: [...model.refusals],
    stream,
  }));
  return {
    version: VERSION,
    out: OUTCOME_WORDS,
    logPrintf: LOG_PRINTF,
    logDateFormat: LOG_DATE_FORMAT,
    logDateShell: logDateShell(LOG_DATE_FORMAT),
    asideDir: ASIDE_DIR,
    wakesPrintf: WAKES_PRINTF,
    agentPrintf: AGENT_RECORD_PRINTF,
    pausePrintf: PAUSE_PRINTF,
    failPauseFile: FAIL_PAUSE_FILE,
    failPausePrintf: FAIL_PAUSE_PRINTF,
    idleFile: IDLE_FILE,
    digestArgvFile: DIGEST_ARGV_FILE,
    digestStampFile: DIGEST_STAMP_FILE,
    digestSeconds: DIGEST_SECONDS,
    lockOwnerPrintf: LOCK_OWNER_PRINTF,
    smokeDetail: SMOKE_DETAIL,
    untilWord: UNTIL_WORD,
    tamperedGit: TAMPERED_GIT,
    entryNote: ENTRY_NOTE,
    workspaceNote: WORKSPACE_NOTE,
    entryNoteTail: ENTRY_NOTE_TAIL,
    sha256Tools: SHA256_TOOLS.map((cmd) => ({ path: cmd.split(' ').find((w) => w.startsWith('/') && !w.endsWith('/env'))!, cmd })),
    limitMaxPause: PAUSE_MAX_SECONDS,
    limitFar: LIMIT_FAR,
    notifySeconds: NOTIFY_SECONDS,
    pingSeconds: PING_SECONDS,
    pingBound: PING_BOUND,
    wakeDetailSh,
    startLineSh: logLineShell('$hb_stamp', '$hb_name', `${OUTCOME_WORDS.start} ${wakeDetailSh}`),
    jailed: wakeDetailShell('x', 'y', true).slice(wakeDetailShell('x', 'y', false).length),
    jailPlaceholders: [...JAIL_PLACEHOLDERS, ...REPO_DENY],
    workspaceCopies: WORKSPACE_COPIES,
    workspaceGit: WORKSPACE_GIT_CONFIG,
    gitHarmlessKeys: GIT_HARMLESS_KEYS.join(' '),
    gitHarmlessSections: GIT_HARMLESS_SECTIONS.join('|'),
    billingKeys: ` ${billingKeyNames().join(' ')} `,
    billingVerdictAwk: VERDICT_AWK,
    billingFilesAwk: FILES_AWK,
    billingTokenAwk: TOKEN_AWK,
    billingTokenRefusal: TOKEN_REFUSAL,
    clients,
  };
}

/** The runtime's text, rendered from its templates now (the build's step; see generators/runtime.ts). */
export function renderRuntime(): string {
  return renderRuntimeSh(runtimeContext());
}
