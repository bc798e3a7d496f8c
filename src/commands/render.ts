// render, check and schema: the commands that never touch the host.
import { UserError } from '../errors.ts';
import { loadSpec } from '../load.ts';
import { renderSpec } from '../pipeline.ts';
import type { SchedulerId } from '../schedulers.ts';

export async function renderCmd(argv: { spec: string; out?: string; scheduler?: SchedulerId }): Promise<void> {
  // An empty --out (`--out ''`, or `--out` with no value) would write into the working
  // folder; the fast path leaves it to yargs, so both reach this one check.
  if (argv.out === '') throw new UserError(['--out: needs a folder, got an empty value; pass --out DIR, or leave it out to print the files; see hbgen --help'], 2);
  const spec = loadSpec(argv.spec);
  const r = await renderSpec(spec, { scheduler: argv.scheduler });
  if (r.errors.length) throw new UserError(r.errors.map((l) => `${argv.spec}: ${l}`));
  if (argv.out !== undefined) {
    const { writeTree } = await import('../tree.ts');
    writeTree(argv.out, r.files);
    process.stderr.write(`hbgen: wrote ${r.files.length} files to ${argv.out}\n`);
  } else {
    process.stdout.write(r.files.map((f) => `==> ${f.path} <==\n${f.content}`).join('\n'));
  }
  process.stderr.write(`hbgen: ${r.summary}\n`);
  for (const w of r.warnings) process.stderr.write(`hbgen: warning: ${w}\n`);
}

export async function checkCmd(argv: { spec: string; dir: string }): Promise<void> {
  const spec = loadSpec(argv.spec);
  const r = await renderSpec(spec);
  if (r.errors.length) throw new UserError(r.errors.map((l) => `${argv.spec}: ${l}`));
  const { compareTree } = await import('../tree.ts');
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

export async function schemaCmd(): Promise<void> {
  const { jsonSchema } = await import('../schema.ts');
  process.stdout.write(`${JSON.stringify(jsonSchema(), null, 2)}\n`);
}
