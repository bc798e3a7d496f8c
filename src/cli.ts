// The full command line, reached through main.ts. Each command's module loads only when
// that command runs.
import { existsSync } from 'node:fs';
import yargs, { type Argv } from 'yargs';
import { UserError, runCommand } from './errors.ts';
import { hoistFlags, unknownCommand, usageLine } from './cli-mistakes.ts';
import { FACTS, SCHEDULER_IDS, type SchedulerId } from './scheduler-facts.ts';

/** The schedulers whose backend prints its commands unless --apply, as "kubernetes (kubectl)". */
const printing = () =>
  Object.values(FACTS)
    .filter((f) => f.printsCommand)
    .map((f) => `${f.id} (${f.printsCommand})`)
    .join(', ');

const renderCmds = () => import('./commands/render.ts');

// The host lifecycle: install, status, stop, resume, wake (and list, which takes no spec).
type SpecArgv = { spec: string; yes?: boolean; dryRun?: boolean; all?: boolean; apply?: boolean; days?: number; json?: boolean };
const COMMANDS = {
  install: async () => (await import('./commands/install.ts')).install,
  status: async () => (await import('./commands/status.ts')).status,
  stop: async () => (await import('./commands/stop.ts')).stop,
  resume: async () => (await import('./commands/resume.ts')).resume,
  wake: async () => (await import('./commands/wake.ts')).wake,
  log: async () => (await import('./commands/log.ts')).log,
  doctor: async () => (await import('./commands/doctor.ts')).doctor,
};
const lifecycle = (name: keyof typeof COMMANDS) => async (argv: SpecArgv) => {
  const { processIO } = await import('./host/io.ts');
  const io = processIO();
  // stop resolves a name itself: with the spec file gone it stops from the install's record.
  // log --state names the install by its state folder: the spec file is not looked at.
  const asIs = name === 'stop' || (name === 'log' && (argv as { state?: string }).state !== undefined);
  return (await COMMANDS[name]())({ ...argv, spec: asIs ? argv.spec : await specFileOf(argv.spec) }, io);
};
/** SPEC as a spec file: a file, or an install's name (src/spec-arg.ts). */
const specFileOf = async (spec: string) => (await import('./spec-arg.ts')).resolveSpecArg((await import('./host/io.ts')).processIO(), spec);

/** Runs a command and keeps its exit code for main to return. */
type Run = <T>(fn: (a: T) => Promise<void | number>) => (a: T) => Promise<void>;

const specArg = { describe: 'the spec file', type: 'string', default: './hbgen.json' } as const;
const consentOptions = (y: Argv, what: string) =>
  y
    .positional('spec', specArg)
    .option('yes', { type: 'boolean', describe: `${what} without asking${what === 'install' ? ' (for scripts)' : ''}` })
    .option('dry-run', { type: 'boolean', describe: 'show the panel and change nothing' })
    .option('apply', { type: 'boolean', describe: `${printing()}: run the apply after the consent, instead of printing it` });
/** install's options: consent, and the first real wake it offers (resume offers none). */
const installOptions = (y: Argv) =>
  consentOptions(y, 'install')
    .option('first-wake', { type: 'boolean', describe: 'after the check, run one real wake through the scheduler without asking (default: ask, Enter runs it)' })
    .option('force-empty-heart', { type: 'boolean', describe: 'install although HEART.md is empty or its Mission section says nothing (the prompt alone is the mission)' });

/** render, check, schema and init: the commands that write no scheduler entry. */
function fileCommands(y: Argv, run: Run): Argv {
  return y
    .command(
      'render [spec]',
      'print every file hbgen would install, or write them with --out',
      (y) =>
        y
          .positional('spec', specArg)
          .option('out', { type: 'string', describe: 'write the rendered tree into this folder' })
          .option('scheduler', { choices: SCHEDULER_IDS, describe: "render for this scheduler instead of the spec's" }),
      run(async (a: { spec: string; out?: string; scheduler?: SchedulerId }) => (await renderCmds()).renderCmd({ ...a, spec: await specFileOf(a.spec) })),
    )
    .command(
      'check [spec] [dir]',
      'compare a folder with a fresh render: exit 0 if identical, 1 with a diff if not (`hbgen check DIR` uses ./hbgen.json)',
      (y) => y.positional('spec', { ...specArg, default: undefined }).positional('dir', { type: 'string', describe: 'the rendered folder' }),
      run(async (a: { spec?: string; dir?: string }) => {
        // One argument is the folder, like every other command's SPEC defaulting to ./hbgen.json.
        const [spec, dir] = a.dir === undefined ? [specArg.default, a.spec] : [a.spec!, a.dir];
        if (dir === undefined) throw new UserError(['check: name the rendered folder, as `hbgen check [SPEC] DIR`; see hbgen --help'], 2);
        // One argument is the rendered folder: a folder holding a spec but no ./hbgen.json here is likely the spec meant.
        if (a.dir === undefined && !existsSync(spec) && existsSync(`${dir}/hbgen.json`)) {
          throw new UserError([`check: with one argument, ${dir} is the rendered folder, compared with a render of ./hbgen.json, which is not here; to check a rendered folder against ${dir}/hbgen.json, give both: \`hbgen check ${dir} DIR\`; see hbgen --help`], 2);
        }
        return (await renderCmds()).checkCmd({ spec: await specFileOf(spec), dir });
      }),
    )
    .command('schema', "print the spec's JSON Schema", (y) => y, run(async () => (await renderCmds()).schemaCmd()))
    .command(
      'runtime',
      "print the wrapper's runtime this hbgen ships (the same file for every spec), to review once per release",
      (y) => y.option('sha256', { type: 'boolean', describe: 'print its version, SHA-256 and file name instead' }),
      run(async (a: { sha256?: boolean }) => (await renderCmds()).runtimeCmd(a.sha256 === true)),
    )
    .command(
      'init [dir]',
      'write HEART.md, PROTOCOL.md, STATE.md, LOG.md, journal/ and a spec with what this host can tell; never overwrites',
      (y) => y.positional('dir', { describe: 'the repository folder', type: 'string', default: '.' }),
      run(async (a: { dir: string }) => (await import('./commands/init.ts')).init(a, (await import('./host/io.ts')).processIO())),
    );
}

/** hbgen upgrade: after hbgen itself was upgraded, the installs another hbgen made, installed again. */
function upgradeCommand(y: Argv, run: Run): Argv {
  return y    .command(
      'upgrade [name]',
      'install again, from its spec file, each install another hbgen made, after one list and one question, so that it runs this hbgen\'s runtime',
      (y) =>
        y
          .positional('name', { type: 'string', describe: 'the install, as `hbgen list` names it' })
          .option('all', { type: 'boolean', describe: 'every install of this user that another hbgen made' })
          .option('yes', { type: 'boolean', describe: 'upgrade without asking (for scripts)' })
          .option('dry-run', { type: 'boolean', describe: 'list what would be upgraded and change nothing' }),
      run(async (a: { name?: string; all?: boolean; yes?: boolean; dryRun?: boolean }) => (await import('./commands/upgrade.ts')).upgrade(a, (await import('./host/io.ts')).processIO())),
    );
}

/** install, status, stop, resume, wake and list: the commands that act on this host. */
function hostCommands(y: Argv, run: Run): Argv {
  const list = async (a: { json?: boolean }) => (await import('./commands/list.ts')).list(a, (await import('./host/io.ts')).processIO());
  return y
    .command('install [spec]', 'show the settings panel, ask once, install on this host and check the install', (y) => installOptions(y), run(lifecycle('install')))
    .command(
      'status [spec]',
      'audit the install (it changes nothing but putting back the state-folder files hbgen wrote): exit 0 healthy, 1 otherwise',
      (y) => y.positional('spec', specArg).option('json', { type: 'boolean', describe: 'one JSON document on stdout (fields in docs/commands.md), same exit status' }),
      run(lifecycle('status')),
    )
    .command(
      'stop [spec]',
      'remove exactly the recorded scheduler entry and host files; keep logs and state',
      (y) =>
        y
          .positional('spec', specArg)
          .option('all', { type: 'boolean', describe: "also remove entries under other names or schedulers that run this install's wrapper" })
          .option('apply', { type: 'boolean', describe: `${printing()}: run the delete, instead of printing it` }),
      run(lifecycle('stop')),
    )
    .command('resume [spec]', 'install a stopped install again from the spec file (state.json is only its record), after the panel and consent', (y) =>
      consentOptions(y, 'resume')
        .option('reset-cap', { type: 'boolean', describe: 'also zero the wake counter, so that a spec whose cap was reached wakes again' })
        .option('now', { type: 'boolean', describe: "only end the pause after the plan's usage limit or after failing wakes, so that the next wake runs (no reinstall)" }), run(lifecycle('resume')))
    .command('wake [spec]', 'run one heartbeat now through the installed wrapper', (y) => y.positional('spec', specArg), run(lifecycle('wake')))
    .command('doctor [spec]', "would it run right now? install's checks again, through the scheduler, changing nothing of the install", (y) => y.positional('spec', specArg), run(lifecycle('doctor')))
    .command(
      'log [spec]',
      'the wake history from runtime.log: per day the wakes started, ok, quiet, fail, timeout, skipped by kind, errors and missed fires; then the last wakes',
      (y) =>
        y
          .positional('spec', specArg)
          .option('days', { type: 'number', default: 7, describe: 'how many days back, today included' })
          .option('json', { type: 'boolean', describe: 'one JSON document (fields in docs/commands.md)' })
          .option('digest', { type: 'string', describe: 'one day in a few lines: wakes, skips, missed fires, commits, tokens, what status flags (yesterday, today or YYYY-MM-DD)' })
          .option('send', { type: 'boolean', describe: 'with --digest: keep it in <stateDir>/digest/DATE.txt and send it through notify and the ping\'s /log (skipped when nothing happened, unless digest.empty is "send")' })
          .option('state', { type: 'string', describe: 'with --send: the install by its state folder, as the wrapper\'s daily run names it (the spec its state.json records)' }),
      run(lifecycle('log')),
    )
    .command(
      'plan [spec]',
      "the next 7 days as a grid of days × hours with a mark where a wake fires (and on the host's clock when its zone differs), with the fires the gate closes",
      (y) => y.positional('spec', specArg).option('svg', { type: 'string', describe: 'write the same picture as SVG to this file' }),
      run(async (a: { spec: string; svg?: string }) => (await import('./commands/plan.ts')).planCmd({ ...a, spec: await specFileOf(a.spec) }, (await import('./host/io.ts')).processIO())),
    )
    .command(
      'forget <name>',
      "remove a stopped install's state folder (logs too, unless --keep-logs), after listing every file that goes and asking once",
      (y) =>
        y
          .positional('name', { type: 'string', demandOption: true, describe: 'the install, as `hbgen list` names it' })
          .option('keep-logs', { type: 'boolean', describe: 'keep runtime.log, agent.log and their .1' })
          .option('yes', { type: 'boolean', describe: 'remove without asking (for scripts)' })
          .option('dry-run', { type: 'boolean', describe: 'list what would go and remove nothing' }),
      run(async (a: { name: string; keepLogs?: boolean; yes?: boolean; dryRun?: boolean }) => (await import('./commands/forget.ts')).forget(a, (await import('./host/io.ts')).processIO())),
    )
    .command('list', 'every hbgen install of this user on this host, with or without its spec file', (y) => y.option('json', { type: 'boolean', describe: 'an array of objects, one per install' }), run(list));
}

export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  const run: Run = (fn) => async (a) => {
    exitCode = await runCommand(fn, a);
  };
  const y = yargs(argv)
    .scriptName('hbgen')
    .usage('$0 <command> [options]\n\nGenerate, install and audit a bounded, scheduled heartbeat for an unattended AI coding agent.');
  upgradeCommand(hostCommands(fileCommands(y, run), run), run).completion('completion', 'print a bash/zsh completion script (enable it with `hbgen completion >> ~/.bashrc`, or ~/.zshrc)');
  // A flag written before the command (`hbgen --json status`) is read as the command's own.
  // yargs' own list (getInternalMethods is public in its build, absent from its types), so
  // that a command added above is known here without a second list.
  const commands: string[] = (y as unknown as { getInternalMethods(): { getCommandInstance(): { getCommands(): string[] } } }).getInternalMethods().getCommandInstance().getCommands();
  const { args, hoisted } = hoistFlags(argv, commands);
  await y
    .demandCommand(1, 'name a command')
    .strict()
    // bin/hbgen.cjs answers --version/-v wherever they stand, before the bundle loads: the
    // option is declared here only so that --help lists it.
    .version(false)
    .option('version', { type: 'boolean', describe: 'Show version number' })
    .alias('h', 'help')
    .alias('v', 'version')
    .help()
    .wrap(100)
    .fail((msg, err) => {
      if (err) throw err;
      // The options of the command that failed (yargs keeps one instance, set up for the command being parsed), for "did you mean".
      const options = Object.keys((y as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key);
      process.stderr.write(`hbgen: ${unknownCommand(args, commands) ?? usageLine(String(msg), hoisted, options, args.find((x) => commands.includes(x)), args)}; see hbgen --help\n`);
      process.exit(2);
    })
    .parseAsync(args);
  return exitCode;
}
