// Runs src/host/cron/crontab.ts the way `hbgen install` / `hbgen stop` will, as whatever user
// starts it (test/crontab-host.test.ts starts it once as a scratch user under runuser, so
// no real user's crontab is touched). One JSON request per stdin line, one JSON reply per
// stdout line, until stdin closes.
//   {op:'read'}                                 → {state, table?}
//   {op:'install', name, block, previous?}      → {action, warnings, wrote}
//   {op:'remove', name, keepEmpty?}             → {removed, wrote, table?}
//   {op:'race', name, block, other}             → read, then another editor installs `other`
//                                                  with /usr/bin/crontab (not via PATH), then write
// Buffers travel as base64. A UserError comes back as {error: lines}, anything else as {crash}.
import { spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { UserError } from '../../src/errors.ts';
import { mergeBlock, readCrontab, removeBlock, writeCrontab, type CrontabState } from '../../src/host/cron/crontab.ts';

interface Request {
  op: 'read' | 'install' | 'remove' | 'race';
  name?: string;
  block?: string;
  previous?: string;
  other?: string;
  keepEmpty?: boolean;
}

const b64 = (s: string | undefined) => Buffer.from(s ?? '', 'base64');
const enc = (s: CrontabState) => (s.state === 'absent' ? { state: 'absent' } : { state: 'present', table: s.table.toString('base64') });

async function main(req: Request): Promise<unknown> {
  const before = await readCrontab();
  const table = before.state === 'present' ? before.table : null;
  switch (req.op) {
    case 'read':
      return enc(before);
    case 'install': {
      const m = mergeBlock(table, b64(req.block), req.name!, req.previous ? { previous: b64(req.previous) } : {});
      const w = await writeCrontab(m.table, before);
      return { action: m.action, warnings: m.warnings, wrote: w.wrote };
    }
    case 'remove': {
      if (table === null) return { removed: false, wrote: false };
      const r = removeBlock(table, req.name!, { keepEmpty: req.keepEmpty ?? false });
      if (!r.removed) return { removed: false, wrote: false };
      const w = await writeCrontab(r.table, before);
      return { removed: true, wrote: w.wrote, table: r.table === null ? null : r.table.toString('base64') };
    }
    case 'race': {
      const m = mergeBlock(table, b64(req.block), req.name!);
      const other = spawnSync('/usr/bin/crontab', ['-'], { input: b64(req.other), env: { ...process.env, LC_ALL: 'C' } });
      if (other.status !== 0) throw new Error(`the concurrent editor failed: ${other.stderr}`);
      const w = await writeCrontab(m.table, before);
      return { wrote: w.wrote };
    }
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  let reply: unknown;
  try {
    reply = await main(JSON.parse(line) as Request);
  } catch (e) {
    reply = e instanceof UserError ? { error: e.lines } : { crash: (e as Error).stack ?? String(e) };
  }
  process.stdout.write(`${JSON.stringify(reply)}\n`);
}
