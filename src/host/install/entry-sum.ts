// <stateDir>/entry.sum: what the wrapper compares, on every wake the scheduler starts, with
// the scheduler entry that started it (templates/partials/heartbeat/58-entry.hbs):
// each host file hbgen installed (cksum), how many files of its folder run the wrapper, and
// for cron hbgen's block and how many crontab lines run the wrapper. Written by install
// after the scheduler entry; a record for a note, never an input that changes anything.
import { dirname, posix } from 'node:path';
import type { FilePlan } from '../backend.ts';
import { posixCksum } from '../audit/cksum.ts';

export const ENTRY_SUM = 'entry.sum';

/** The lines of entry.sum; '' when the scheduler keeps nothing on this host to compare (kubernetes). */
export function entrySumText(wrapper: string, hostFiles: FilePlan[], rendered: { path: string; content: string }[]): string {
  const lines: string[] = [];
  for (const f of hostFiles) lines.push(`sum ${posixCksum(f.content)} ${f.path}`);
  const dirs = [...new Set(hostFiles.map((f) => dirname(f.path)))];
  for (const d of dirs) lines.push(`refs ${hostFiles.filter((f) => dirname(f.path) === d && f.content.includes(wrapper)).length} - ${d}`);
  // The scheduler whose entry is a block of a table, not a file (cron): its rendered block.
  {
    const block = rendered.find((f) => f.path === posix.join('host', 'crontab'))?.content;
    if (block !== undefined) {
      // As the wrapper reads it back: `crontab -l` lines from BEGIN to END, each ended by a newline.
      const text = `${block.replace(/\n+$/, '')}\n`;
      lines.push(`cron ${posixCksum(Buffer.from(text))} ${text.split('\n').filter((l) => l.includes(wrapper)).length}`);
    }
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}
