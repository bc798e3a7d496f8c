// render, check, runtime and schema: the commands that never touch the host.
import { sha256Hex } from '../sha256.ts';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RenderedFile } from '../pipeline.ts';
import { UserError } from '../errors.ts';
import { note, out } from '../output.ts';
import { loadSpec } from '../load.ts';
import { renderSpec } from '../pipeline.ts';
import type { SchedulerId } from '../schedulers.ts';
import { holdsRuntime } from '../version.ts';

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
    note(`hbgen: wrote ${r.files.length} files to ${argv.out}\n`);
  } else {
    out(r.files.map((f) => `==> ${f.path} <==\n${f.content}`).join('\n'));
  }
  note(`hbgen: ${r.summary}\n`);
  for (const w of r.warnings) note(`hbgen: warning: ${w}\n`);
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
  const upgrade = await runtimeOnly(argv.dir, r.files, compareTree);
  if (upgrade) throw new UserError([`${argv.dir}: ${upgrade}; run \`hbgen render ${argv.spec} --out ${argv.dir}\` to update it`]);
  process.stdout.write(drift.map((d) => d.diff).join(''));
  throw new UserError([
    `${argv.dir}: ${drift.length} difference${drift.length > 1 ? 's' : ''} from a fresh render of ${argv.spec}; run \`hbgen render ${argv.spec} --out ${argv.dir}\` to update it`,
  ]);
}

/**
 * When the committed tree differs from a fresh render only by the runtime (its pin in
 * heartbeat.sh and window.sh, the wrapper's SHA-256 in the scheduler entry, the runtime's
 * name where a manifest mounts it, the files that hold the runtime's text: runtime-*.sh and
 * a ConfigMap of its own under host/), the one line that says so; null otherwise.
 */
async function runtimeOnly(dir: string, files: RenderedFile[], compareTree: (d: string, f: RenderedFile[]) => Promise<unknown[]>): Promise<string | null> {
  const oldHb = join(dir, 'heartbeat.sh');
  if (!existsSync(oldHb)) return null;
  const pin = (t: string) => ({ v: /^hb_rt_version='([^']*)'$/m.exec(t)?.[1], sha: /^hb_rt_sha256='([0-9a-f]{64})'$/m.exec(t)?.[1] });
  const oldText = readFileSync(oldHb, 'utf8');
  const newText = files.find((f) => f.path === 'heartbeat.sh')?.content ?? '';
  const o = pin(oldText);
  const n = pin(newText);
  if (!o.v || !o.sha || !n.v || !n.sha || o.sha === n.sha) return null;
  const [oldW, newW] = [sha256Hex(oldText), sha256Hex(newText)];
  const host = join(dir, 'host');
  const oldRt = [...readdirSync(dir), ...(statSync(host, { throwIfNoEntry: false })?.isDirectory() ? readdirSync(host).map((f) => `host/${f}`) : [])].filter(holdsRuntime);
  // The fresh render with the old pin put back: nothing else may differ.
  const back = files
    .filter((f) => !holdsRuntime(f.path))
    .map((f) => ({ ...f, content: f.content.split(`hb_rt_version='${n.v}'`).join(`hb_rt_version='${o.v}'`).split(n.sha!).join(o.sha!).split(newW).join(oldW).split(`runtime-${n.v}`).join(`runtime-${o.v}`) }));
  for (const f of oldRt) back.push({ path: f, content: readFileSync(join(dir, f), 'utf8'), mode: f.endsWith('.sh') ? 0o444 : 0o644 });
  if ((await compareTree(dir, back)).length !== 0) return null;
  return `runtime ${o.v} sha256 ${o.sha.slice(0, 4)}… → ${n.v} sha256 ${n.sha.slice(0, 4)}…; nothing else changed`;
}

/** `hbgen runtime`: the runtime's text, or with --sha256 "VERSION SHA256 NAME". */
export async function runtimeCmd(sha256: boolean): Promise<void> {
  const { runtime } = await import('../../generators/runtime.ts');
  const rt = runtime();
  process.stdout.write(sha256 ? `${rt.version} ${rt.sha256} ${rt.name}\n` : rt.text);
}

export async function schemaCmd(): Promise<void> {
  const { jsonSchema } = await import('../schema.ts');
  process.stdout.write(`${JSON.stringify(jsonSchema(), null, 2)}\n`);
}
