// The command line (PRODUCT.md §2). Each command loads what it needs when it runs, so that
// `hbgen --version` does not pay for the render stack.
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { UserError } from './errors.ts';
import { VERSION } from './version.ts';

const SCHEDULERS = ['launchd', 'systemd-user', 'cron'] as const;

async function renderCmd(argv: { spec: string; out?: string; scheduler?: (typeof SCHEDULERS)[number] }) {
  const { loadSpec } = await import('./load.ts');
  const { renderSpec } = await import('./render.ts');
  const spec = loadSpec(argv.spec);
  const r = renderSpec(spec, { scheduler: argv.scheduler });
  if (r.errors.length) throw new UserError(r.errors.map((l) => `${argv.spec}: ${l}`));
  if (argv.out !== undefined) {
    const { writeTree } = await import('./tree.ts');
    writeTree(argv.out, r.files);
    process.stderr.write(`hbgen: wrote ${r.files.length} files to ${argv.out}\n`);
  } else {
    process.stdout.write(r.files.map((f) => `==> ${f.path} <==\n${f.content}`).join('\n'));
  }
  process.stderr.write(`hbgen: ${r.summary}\n`);
  for (const w of r.warnings) process.stderr.write(`hbgen: warning: ${w}\n`);
}

async function checkCmd(argv: { spec: string; dir: string }) {
  const { loadSpec } = await import('./load.ts');
  const { renderSpec } = await import('./render.ts');
  const { compareTree } = await import('./tree.ts');
  const spec = loadSpec(argv.spec);
  const r = renderSpec(spec);
  if (r.errors.length) throw new UserError(r.errors.map((l) => `${argv.spec}: ${l}`));
  const drift = await compareTree(argv.dir, r.files);
  if (drift.length === 0) {
    process.stderr.write(`hbgen: ${argv.dir} matches ${argv.spec}\n`);
    return;
  }
  process.stdout.write(drift.map((d) => d.diff).join(''));
  throw new UserError([
    `${argv.dir}: ${drift.length} difference${drift.length > 1 ? 's' : ''} from a fresh render of ${argv.spec}; run \`hbgen render ${argv.spec} --out ${argv.dir}\` to update it`,
  ]);
}

// The host lifecycle (PRODUCT.md §6): each command's module loads only when it runs.
type SpecArgv = { spec: string; yes?: boolean; dryRun?: boolean };
const COMMANDS = {
  install: async () => (await import('./commands/install.ts')).install,
  status: async () => (await import('./commands/status.ts')).status,
  stop: async () => (await import('./commands/stop.ts')).stop,
  resume: async () => (await import('./commands/resume.ts')).resume,
  wake: async () => (await import('./commands/wake.ts')).wake,
};
const lifecycle = (name: keyof typeof COMMANDS) => async (argv: SpecArgv) => {
  const { processIO } = await import('./host/io.ts');
  return (await COMMANDS[name]())(argv, processIO());
};

async function schemaCmd() {
  const { jsonSchema } = await import('./schema.ts');
  process.stdout.write(`${JSON.stringify(jsonSchema(), null, 2)}\n`);
}

export async function main(args: string[]): Promise<number> {
  let exitCode = 0;
  const run =
    <T>(fn: (a: T) => Promise<void | number>) =>
    async (a: T) => {
      try {
        const code = await fn(a);
        if (typeof code === 'number') exitCode = code;
      } catch (e) {
        if (!(e instanceof UserError)) throw e;
        for (const l of e.lines) process.stderr.write(`hbgen: ${l}\n`);
        exitCode = e.exitCode;
      }
    };
  const specArg = { describe: 'the spec file', type: 'string', default: './hbgen.json' } as const;
  await yargs(args)
    .scriptName('hbgen')
    .usage('$0 <command> [options]\n\nGenerate, install and audit a bounded, scheduled heartbeat for an unattended AI coding agent.')
    .command(
      'render [spec]',
      'print every file hbgen would install, or write them with --out',
      (y) =>
        y
          .positional('spec', specArg)
          .option('out', { type: 'string', describe: 'write the rendered tree into this folder' })
          .option('scheduler', { choices: SCHEDULERS, describe: "render for this scheduler instead of the spec's" }),
      run(renderCmd),
    )
    .command(
      'check <spec> <dir>',
      'compare a folder with a fresh render: exit 0 if identical, 1 with a diff if not',
      (y) => y.positional('spec', { ...specArg, default: undefined }).positional('dir', { type: 'string', describe: 'the rendered folder', demandOption: true }),
      run(checkCmd as (a: unknown) => Promise<void>),
    )
    .command('schema', "print the spec's JSON Schema", (y) => y, run(schemaCmd))
    .command(
      'init [dir]',
      'write HEART.md, PROTOCOL.md, STATE.md, LOG.md, journal/ and a spec with what this host can tell; never overwrites',
      (y) => y.positional('dir', { describe: 'the repository folder', type: 'string', default: '.' }),
      run(async (a: { dir: string }) => (await import('./commands/init.ts')).init(a, (await import('./host/io.ts')).processIO())),
    )
    .command(
      'install [spec]',
      'show the settings panel, ask once, install on this host and check the install',
      (y) =>
        y
          .positional('spec', specArg)
          .option('yes', { type: 'boolean', describe: 'install without asking (for scripts)' })
          .option('dry-run', { type: 'boolean', describe: 'show the panel and change nothing' }),
      run(lifecycle('install')),
    )
    .command('status [spec]', 'audit the install (read-only): exit 0 healthy, 1 otherwise', (y) => y.positional('spec', specArg), run(lifecycle('status')))
    .command('stop [spec]', 'remove exactly the recorded scheduler entry and host files; keep logs and state', (y) => y.positional('spec', specArg), run(lifecycle('stop')))
    .command(
      'resume [spec]',
      'reinstall the recorded install after the panel and consent',
      (y) =>
        y
          .positional('spec', specArg)
          .option('yes', { type: 'boolean', describe: 'resume without asking' })
          .option('dry-run', { type: 'boolean', describe: 'show the panel and change nothing' }),
      run(lifecycle('resume')),
    )
    .command('wake [spec]', 'run one heartbeat now through the installed wrapper', (y) => y.positional('spec', specArg), run(lifecycle('wake')))
    .demandCommand(1, 'name a command; see hbgen --help')
    .strict()
    .version(VERSION)
    .alias('h', 'help')
    .alias('v', 'version')
    .help()
    .wrap(100)
    .fail((msg, err) => {
      if (err) throw err;
      // yargs words some messages over two lines; a usage error is one line.
      process.stderr.write(`hbgen: ${String(msg).replace(/:?\s*\n\s*/g, ': ')}; see hbgen --help\n`);
      process.exit(2);
    })
    .parseAsync();
  return exitCode;
}

main(hideBin(process.argv)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`hbgen: internal error: ${(e as Error).message}; please report it with the command you ran\n`);
    process.exitCode = 70;
  },
);
