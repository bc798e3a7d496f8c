// hbgen install [SPEC] [--yes] [--dry-run], and hbgen resume (the same from state.json).
// Order (PRODUCT.md §6, research/pitfalls.md §7): validate → host facts → render →
// every read-only check of the scheduler (refusals come before the question) → panel →
// one question (default No) → state-folder files → state.json intent → host files and
// scheduler → install check (smoke test, state.json, the scheduler lists the entry) →
// success only when every check was observed passing; otherwise everything is undone.
import { readdirSync, rmSync, truncateSync } from 'node:fs';
import { dirname, posix } from 'node:path';
import { UserError } from '../errors.ts';
import { Journal, type Ctx, type FilePlan, type Preflight, planFile, record, writePlanned } from '../host/backend.ts';
import { SCHEDULER_TOOLS, hostFacts, permissionMode } from '../host/facts.ts';
import { lstatOrNull, missingDirs, mkdirs, readOrNull, sha256, shownWord, writeAtomic } from '../host/fsx.ts';
import type { HostIO } from '../host/io.ts';
import { acquireOpLock } from '../host/lock.ts';
import { panel } from '../host/panel.ts';
import { askConsent } from '../host/prompt.ts';
import { findOnPath } from '../host/run.ts';
import { type Check, logSize, smokeTest } from '../host/smoke.ts';
import { type State, readState, specHash, statePath, writeState } from '../host/state.ts';
import { names } from '../names.ts';
import { type Spec, validateSpec } from '../spec.ts';
import { VERSION } from '../version.ts';
import { BACKENDS, line, loadFor, renderFor } from './common.ts';

export interface InstallArgs {
  spec: string;
  yes?: boolean;
  dryRun?: boolean;
}

const NOTHING = 'nothing was changed on this host';

function emptyPreflight(): Preflight {
  return { refusals: [], caveats: [], hostFiles: [], commands: [], checks: [], unchanged: false, ids: {}, data: {}, stateExtra: {} };
}

function sameRecords(a: { path: string; sha256: string; mode: number }[], b: { path: string; sha256: string; mode: number }[]): boolean {
  const k = (r: { path: string; sha256: string; mode: number }) => `${r.path}\0${r.sha256}\0${r.mode}`;
  return a.length === b.length && a.map(k).sort().join('\n') === b.map(k).sort().join('\n');
}

export async function install(argv: InstallArgs, io: HostIO, verb: 'install' | 'resume' = 'install'): Promise<number> {
  const { spec: fileSpec, file: specFile } = loadFor(io, argv.spec);
  const n0 = names(fileSpec);
  const prev = readState(n0.stateDir);
  const notes: string[] = [];
  let spec: Spec = fileSpec;
  if (verb === 'resume') {
    if (!prev) {
      throw new UserError([`${statePath(n0.stateDir)}: no install of "${fileSpec.name}" is recorded there, so there is nothing to resume; install it with \`hbgen install ${shownWord(argv.spec)}\``]);
    }
    const v = validateSpec(prev.spec);
    if (v.errors) throw new UserError([`${statePath(n0.stateDir)}: the recorded spec is not valid for this hbgen (${v.errors[0]}); install from the spec file with \`hbgen install ${shownWord(argv.spec)}\``]);
    spec = v.spec;
    if (specHash(fileSpec) !== prev.specHash) {
      notes.push(`${specFile} changed since it was installed; resume reinstalls the recorded settings: run \`hbgen install\` to apply the file instead`);
    }
  }
  const n = names(spec);
  const facts = hostFacts(spec, io);
  const r = renderFor(io, spec);
  if (r.errors.length) throw new UserError(r.errors.map((l) => `${specFile}: ${l}`));

  const ctx: Ctx = { io, spec, names: n, home: facts.home, files: r.files, prev };
  const backend = BACKENDS[spec.schedule.scheduler];
  const toolsThere = SCHEDULER_TOOLS[spec.schedule.scheduler].every((t) => findOnPath(t, io.env.PATH));
  const pre = toolsThere ? await backend.preflight(ctx) : emptyPreflight();

  const refusals = [...facts.problems];
  const stateFiles: FilePlan[] = [];
  for (const f of r.files) {
    const path = posix.join(n.stateDir, f.path);
    const pf = planFile(path, Buffer.from(f.content), f.mode, spec, n, prev?.files.find((x) => x.path === path));
    if (pf.refusal) refusals.push(pf.refusal);
    else stateFiles.push(pf.plan!);
  }
  refusals.push(...pre.refusals);
  if (refusals.length) throw new UserError([...refusals, NOTHING]);

  const hash = specHash(spec);
  if (
    pre.unchanged &&
    stateFiles.every((f) => f.action === 'same') &&
    prev?.status === 'installed' &&
    prev.specHash === hash &&
    sameRecords(prev.files, stateFiles.map(record)) &&
    sameRecords(prev.hostFiles, pre.hostFiles.map(record))
  ) {
    line(io, `hbgen: "${spec.name}" is already installed as ${verb === 'resume' ? 'recorded' : `${specFile} says`}; nothing changed`);
    return 0;
  }

  io.out(
    panel({
      verb,
      spec,
      names: n,
      specFile,
      summary: r.summary,
      bin: facts.bin,
      permissionMode: permissionMode(spec.agent),
      stateFiles,
      statePath: statePath(n.stateDir),
      pre,
      caveats: [...notes, ...facts.caveats, ...pre.caveats, ...r.warnings],
    }),
  );
  if (argv.dryRun) {
    line(io, `--dry-run: ${NOTHING}`);
    return 0;
  }
  if (!argv.yes) {
    const a = await askConsent(io, `${verb === 'install' ? 'Install' : 'Resume'} "${spec.name}" on this host with these settings?`);
    if (a === 'no-tty') {
      throw new UserError([`there is no terminal to ask for consent, so ${NOTHING}; read the panel above, then run \`hbgen ${verb} ${shownWord(argv.spec)} --yes\` to go ahead (or --dry-run to only show it)`]);
    }
    if (a === 'no') throw new UserError([`you did not confirm, so ${NOTHING}`]);
  }

  const hostDirs = [...new Set(pre.hostFiles.filter((f) => f.action !== 'same').flatMap((f) => missingDirs(dirname(f.path))))];
  const state: State = {
    format: 1,
    name: spec.name,
    status: 'installing',
    time: io.now().toISOString(),
    hbgenVersion: VERSION,
    specFile,
    specHash: hash,
    spec,
    scheduler: spec.schedule.scheduler,
    ids: pre.ids,
    stateDir: n.stateDir,
    files: stateFiles.map(record),
    hostFiles: pre.hostFiles.map(record),
    createdDirs: [...new Set([...(prev?.createdDirs ?? []).filter((d) => lstatOrNull(d)), ...hostDirs])],
    bin: facts.bin,
    harness: spec.agent.harness,
    permissionMode: permissionMode(spec.agent),
    billing: { result: 'subscription', checkedKeys: facts.checkedKeys, envFileWarnings: facts.envFileWarnings },
    ...pre.stateExtra,
  };

  const lock = await acquireOpLock(io);
  const j = new Journal();
  const undo = async (why: string): Promise<never> => {
    const { undone, failed } = await j.rollback();
    for (const u of undone.reverse()) line(io, `  undone: ${u}`);
    throw new UserError(
      failed.length
        ? [why, ...failed.map((f) => `could not undo: ${f}`), 'fix what is named above by hand; `hbgen status` shows what is left']
        : [why, 'hbgen undid everything it did: the host is as it was before'],
    );
  };
  try {
    try {
      applyStateDir(n, stateFiles, j);
      const prevStateBytes = readOrNull(statePath(n.stateDir));
      writeState(n.stateDir, state);
      j.push(prevStateBytes ? 'restored state.json' : 'removed state.json', () => {
        if (prevStateBytes) writeAtomic(statePath(n.stateDir), prevStateBytes, 0o600);
        else rmSync(statePath(n.stateDir), { force: true });
      });
      await backend.apply(ctx, pre, j);
    } catch (e) {
      if (e instanceof UserError) return await undo(`installing failed: ${e.lines.join('; ')}`);
      await j.rollback();
      throw e;
    }
    line(io, 'checking the install:');
    let checks: Check[];
    try {
      checks = await smokeTest(n, spec.name);
    } catch (e) {
      checks = [{ ok: false, what: 'smoke test', observed: `could not run the wrapper (${(e as Error).message})` }];
    }
    const done: State = { ...state, status: 'installed', time: io.now().toISOString(), installedAt: io.now().toISOString() };
    let stateCheck: Check;
    try {
      const bytes = writeState(n.stateDir, done);
      const back = readOrNull(statePath(n.stateDir));
      const parsed = back ? (JSON.parse(back.toString('utf8')) as State) : null;
      const ok = back !== null && back.equals(bytes) && parsed?.status === 'installed';
      stateCheck = { ok, what: 'state.json', observed: ok ? `${statePath(n.stateDir)} read back as written (sha256 ${sha256(bytes).slice(0, 12)}…): status installed, ${done.files.length + done.hostFiles.length} files recorded with their sha256` : `${statePath(n.stateDir)} did not read back as written` };
    } catch (e) {
      stateCheck = { ok: false, what: 'state.json', observed: (e as UserError).lines?.join('; ') ?? (e as Error).message };
    }
    checks.push(stateCheck);
    let listing;
    try {
      listing = await backend.listed(ctx);
    } catch (e) {
      listing = { ok: false, observed: (e as UserError).lines?.join('; ') ?? (e as Error).message };
    }
    checks.push({ ok: listing.ok, what: 'scheduler', observed: listing.observed });
    for (const c of checks) line(io, `  ${c.ok ? 'ok  ' : 'FAIL'}  ${c.what}: ${c.observed}`);
    const failed = checks.filter((c) => !c.ok);
    if (failed.length) return await undo(`the install check failed (${failed.map((c) => c.what).join(', ')}), so "${spec.name}" is not installed`);
    line(io, `hbgen: installed "${spec.name}"; \`hbgen status ${shownWord(argv.spec)}\` audits it, \`hbgen wake ${shownWord(argv.spec)}\` runs one heartbeat now, \`hbgen stop ${shownWord(argv.spec)}\` removes it`);
    return 0;
  } finally {
    lock.release();
  }
}

/** The state folder and its files; the undo also removes what the install check left there. */
function applyStateDir(n: ReturnType<typeof names>, files: FilePlan[], j: Journal): void {
  if (!lstatOrNull(n.stateDir)) {
    const made = mkdirs(n.stateDir, 0o700);
    j.push(`removed ${made[0]}`, () => rmSync(made[0]!, { recursive: true, force: true }));
  } else {
    const before = new Set(readdirSync(n.stateDir));
    const logBefore = lstatOrNull(n.log) ? logSize(n.log) : -1;
    j.push('removed what the install check left in the state folder', () => {
      for (const e of readdirSync(n.stateDir)) if (!before.has(e)) rmSync(posix.join(n.stateDir, e), { recursive: true, force: true });
      if (logBefore >= 0 && logSize(n.log) > logBefore) truncateSync(n.log, logBefore);
    });
  }
  for (const f of files) writePlanned(f, j, 0o700);
}
