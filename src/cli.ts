// The full command line (PRODUCT.md §2), reached through main.ts. Each command loads what
// it needs when it runs.
import yargs from 'yargs';
import { runCommand } from './run.ts';
import { VERSION } from './version.ts';

const renderCmds = () => import('./commands/render.ts');

const SCHEDULERS = ['launchd', 'systemd-user', 'cron'] as const;

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
  const { prepareRender } = await import('./render.ts');
  await prepareRender();
  return (await COMMANDS[name]())(argv, processIO());
};

export async function main(args: string[]): Promise<number> {
  let exitCode = 0;
  const run =
    <T>(fn: (a: T) => Promise<void | number>) =>
    async (a: T) => {
      exitCode = await runCommand(fn, a);
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
      run(async (a: Parameters<Awaited<ReturnType<typeof renderCmds>>['renderCmd']>[0]) => (await renderCmds()).renderCmd(a)),
    )
    .command(
      'check <spec> <dir>',
      'compare a folder with a fresh render: exit 0 if identical, 1 with a diff if not',
      (y) => y.positional('spec', { ...specArg, default: undefined }).positional('dir', { type: 'string', describe: 'the rendered folder', demandOption: true }),
      run(async (a: { spec?: string; dir: string }) => (await renderCmds()).checkCmd({ spec: a.spec!, dir: a.dir })),
    )
    .command('schema', "print the spec's JSON Schema", (y) => y, run(async () => (await renderCmds()).schemaCmd()))
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
    .demandCommand(1, 'name a command')
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

