// hbgen upgrade [NAME] [--all] [--yes] [--dry-run]: after hbgen itself was upgraded, installs
// again each install that another hbgen made, from the spec file it was installed from, so
// that it runs this hbgen's runtime. One list first (what each install moves from and to),
// one question (default No; --yes for scripts), then `hbgen install` for each one in turn,
// with its own panel and checks. An install whose spec file changed since install, or no
// longer names it, is left as it is: its change is for `hbgen install SPEC` to show.
import { homeOf, type HostIO } from '../host/io.ts';
import { listInstalls } from '../host/audit/inventory.ts';
import { pendingUpgrade, specChanged, upgradeChanges } from '../host/audit/upgrade.ts';
import { renderSpec } from '../pipeline.ts';
import { askConsent } from '../host/install/prompt.ts';
import { readState } from '../host/state.ts';
import { UserError } from '../errors.ts';
import { loadSpec } from '../load.ts';
import { names } from '../names.ts';
import { VERSION } from '../version.ts';
import { line } from './common.ts';
import { install } from './install.ts';

interface Candidate {
  name: string;
  scheduler: string;
  specFile: string;
  from: string;
  /** The files installing again rewrites (upgradeChanges), or '' when it cannot tell. */
  what: string;
}

/** Each install of this user that another hbgen made: upgradable, or the reason it is not. */
async function candidates(io: HostIO, only: string | undefined): Promise<{ go: Candidate[]; left: string[]; current: string[] }> {
  const go: Candidate[] = [];
  const left: string[] = [];
  const current: string[] = [];
  const rows = (await listInstalls(io, homeOf(io))).rows.filter((r) => r.stateDir && r.state !== 'stopped' && r.state !== 'unowned' && (!only || r.name === only));
  for (const r of rows) {
    const s = readState(r.stateDir!);
    if (!s) continue;
    if (!pendingUpgrade(s)) {
      current.push(r.name);
      continue;
    }
    const file = s.specFile;
    let why: string | null = null;
    try {
      const spec = loadSpec(file);
      if (spec.name !== s.name || names(spec).stateDir !== r.stateDir) why = `its spec file ${file} now names another install`;
      else if (specChanged(spec, s)) why = `its spec file ${file} changed since install; run \`hbgen install ${file}\` to review that change and upgrade it`;
    } catch (e) {
      if (!(e instanceof UserError)) throw e;
      why = `its spec file ${file} cannot be read (${e.lines[0]}); run \`hbgen install SPEC\` with the spec it should run`;
    }
    if (why) left.push(`${r.name} (${r.scheduler}, hbgen ${s.hbgenVersion}): left as it is: ${why}`);
    else {
      const fresh = await renderSpec(loadSpec(file));
      go.push({ name: r.name, scheduler: r.scheduler, specFile: file, from: s.hbgenVersion, what: fresh.errors.length ? '' : upgradeChanges(fresh.files, s) });
    }
  }
  return { go, left, current };
}

export async function upgrade(argv: { name?: string; all?: boolean; yes?: boolean; dryRun?: boolean }, io: HostIO): Promise<number> {
  if (!argv.name && !argv.all) throw new UserError(['upgrade: name the install (`hbgen upgrade NAME`, as `hbgen list` names it) or pass --all for every install of this user'], 2);
  const { go, left, current } = await candidates(io, argv.name);
  if (argv.name && go.length === 0 && left.length === 0 && current.length === 0) throw new UserError([`${argv.name}: no install of that name on this host; \`hbgen list\` shows the installs by name`]);
  line(io, `hbgen upgrade: this hbgen is ${VERSION}`);
  for (const c of go) {
    line(io, `  ${c.name} (${c.scheduler}): hbgen ${c.from} → ${VERSION}, from ${c.specFile}`);
    if (c.what) line(io, `    what changes: ${c.what}`);
  }
  for (const l of left) line(io, `  ${l}`);
  if (current.length) line(io, `  already on ${VERSION}: ${current.join(', ')}`);
  if (go.length === 0) {
    line(io, 'nothing to upgrade');
    return left.length ? 1 : 0;
  }
  line(io, `each one is installed again as \`hbgen install SPEC\` does (its panel, its check, undone if the check fails); until then it runs the runtime it was installed with`);
  if (argv.dryRun) {
    line(io, '--dry-run: nothing was changed on this host');
    return 0;
  }
  if (!argv.yes) {
    const a = await askConsent(io, `Upgrade ${go.length === 1 ? `"${go[0]!.name}"` : `these ${go.length} installs`} as listed?`);
    if (a === 'no-tty') throw new UserError([`there is no terminal to ask, so nothing was changed on this host; read the list above, then run \`hbgen upgrade ${argv.name ?? '--all'} --yes\``]);
    if (a === 'no') throw new UserError(['you did not confirm, so nothing was changed on this host']);
  }
  let failed = left.length > 0;
  for (const c of go) {
    line(io, `upgrading "${c.name}":`);
    try {
      if ((await install({ spec: c.specFile, yes: true, upgrade: true }, io)) !== 0) failed = true;
    } catch (e) {
      if (!(e instanceof UserError)) throw e;
      // One install's refusal does not stop the others; each said what to fix.
      for (const l of e.lines) io.err(`hbgen: ${c.name}: ${l}\n`);
      failed = true;
    }
  }
  return failed ? 1 : 0;
}
