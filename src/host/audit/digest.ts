// One day of the heartbeat, as a person wants it in the morning (`hbgen log --digest`): the
// fires and what became of them (wakes and their outcomes, skips by reason, fires that left
// no line), the commits made that day and on which branch, the tokens spent, and what
// `hbgen status` would flag now. The lines are a pure function of what the command read.
import type { DayCounts } from './history.ts';

export interface DigestInput {
  name: string;
  timezone: string;
  /** For a window that crosses midnight, the time its day begins (hours.start): the day runs from then to then the next day. */
  from?: string;
  day: DayCounts;
  /** `git log` of the day, one "HASH (REFS) SUBJECT" a line; null when the repo is no git work tree hbgen may read. */
  commits: string[] | null;
  /** What status says a person should look at, one sentence each. */
  problems: string[];
  tokens: string | null;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The digest's lines: a header, then one line per subject, "nothing" said as such. */
export function digestLines(d: DigestInput): string[] {
  const c = d.day;
  const wd = new Date(`${c.date}T12:00:00Z`).toUTCString().slice(0, 3);
  const skips = Object.entries(c.skipped).filter(([, n]) => n > 0);
  const skipped = skips.reduce((s, [, n]) => s + n, 0);
  const ended = [['ok', c.ok], ['quiet', c.quiet], ['denied', c.denied], ['fail', c.fail], ['timeout', c.timeout], ['limit', c.limit], ['reserve', c.reserve]].filter(([, n]) => (n as number) > 0);
  const next = new Date(Date.parse(`${c.date}T12:00:00Z`) + 86_400_000).toUTCString().slice(0, 3);
  const out = [`hbgen digest: "${d.name}", ${wd} ${c.date}${d.from ? ` ${d.from} to ${next} ${d.from}` : ''} (${d.timezone})`];
  out.push(`  wakes     ${c.started ? `${plural(c.started, 'wake')} ran: ${ended.map(([k, n]) => `${n} ${k}`).join(', ') || 'none ended yet'}` : 'no wake ran'}${c.error ? `; ${plural(c.error, 'error')}` : ''}`);
  out.push(`  skipped   ${skipped ? `${plural(skipped, 'fire')}: ${skips.map(([k, n]) => `${n} ${k.replace(/^skip-/, '')}`).join(', ')}` : 'no fire'}`);
  if (c.missed !== null) out.push(`  missed    ${c.missed ? `${plural(c.missed, 'fire')} left no line${c.asleep ? ` (${c.asleep} while the machine slept)` : ''}` : 'none: every fire the scheduler was due to make left a line'}`);
  out.push(`  commits   ${d.commits === null ? 'not read (the repo is no git work tree hbgen may read)' : d.commits.length ? `${plural(d.commits.length, 'commit')}: ${d.commits.slice(0, 5).join('; ')}${d.commits.length > 5 ? '; …' : ''}` : 'none that day'}`);
  out.push(`  tokens    ${d.tokens ?? 'none logged'}`);
  out.push(`  status    ${d.problems.length ? d.problems.join('; ') : 'nothing to look at'}`);
  return out;
}
