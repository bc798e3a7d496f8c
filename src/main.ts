// The CLI's entry. The commonest calls — `--version`, `render` and `check` in their plain
// forms — are answered without loading yargs, which alone costs about twice Node's own
// start-up (see the README section "Speed"). Anything else, including every mistake, goes to the
// full yargs command line in cli.ts, which gives the same results for these forms
// (test/cli.test.ts runs both and compares).
import { fastParse } from './fastparse.ts';
import { runCommand } from './errors.ts';
import { VERSION } from './version.ts';

async function main(args: string[]): Promise<number> {
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const fast = fastParse(args);
  if (fast) {
    const { renderCmd, checkCmd } = await import('./commands/render.ts');
    return fast.cmd === 'render' ? runCommand(renderCmd, fast) : runCommand(checkCmd, fast);
  }
  const { main: full } = await import('./cli.ts');
  return full(args);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`hbgen: internal error: ${(e as Error).message}; please report it with the command you ran\n`);
    process.exitCode = 70;
  },
);
