// HEART.md set up on a terminal by hbgen init: one question at a time (the mission, the
// priorities, the restrictions, the external effects allowed, the stop conditions), or the
// template written for the person to edit while init waits. The answers fill init's own
// template, section by section; the template's defaults (the restrictions every HEART.md
// starts with, "None." for external effects) stay unless an answer replaces them.
import type { HostIO } from '../io.ts';
import { ask, type Lines } from '../install/prompt.ts';
import { missionSaid } from './mission.ts';

export interface HeartAnswers {
  mission?: string;
  priorities?: string[];
  restrictions?: string[];
  effects?: string[];
  stops?: string[];
}

// Each section of init's template, the answer that fills it, and how its items are written.
const SECTIONS: { heading: string; key: keyof HeartAnswers; keep: boolean; item: (s: string, i: number) => string }[] = [
  { heading: 'Mission', key: 'mission', keep: false, item: (s) => s },
  { heading: 'Current priorities', key: 'priorities', keep: false, item: (s, i) => `${i + 1}. ${s}` },
  { heading: 'Restrictions', key: 'restrictions', keep: true, item: (s) => `- ${s}` },
  { heading: 'External effects allowed', key: 'effects', keep: false, item: (s) => `- ${s}` },
  { heading: 'Stop conditions', key: 'stops', keep: true, item: (s) => `- ${s}` },
];

/**
 * init's template with the answers in place. An answered section loses its hint comment;
 * `keep` sections (restrictions, stop conditions) keep the template's items before the
 * person's, the others are replaced. An unanswered section stays as the template has it.
 */
export function heartWithAnswers(template: string, a: HeartAnswers): string {
  let text = template;
  for (const s of SECTIONS) {
    const v = a[s.key];
    const items = typeof v === 'string' ? (v ? [v] : []) : (v ?? []);
    if (items.length === 0) continue;
    const re = new RegExp(`(^## ${s.heading}\\n)([\\s\\S]*?)(?=^## |(?![\\s\\S]))`, 'm');
    text = text.replace(re, (_m, head: string, body: string) => {
      const kept = s.keep ? body.replace(/<!--[\s\S]*?-->\n?/g, '').trim().split('\n').filter(Boolean) : [];
      return `${head}\n${[...kept, ...items.map(s.item)].join('\n')}\n\n`;
    });
  }
  return `${text.trimEnd()}\n`;
}

/** One free-text answer; '' when Enter was pressed at once, null at end of input. */
async function askLine(io: HostIO, lines: Lines, title: string): Promise<string | null> {
  io.err(`\n${title}\n  > `);
  const l = await lines.next();
  if (l === null) io.err('\n');
  return l === null ? null : l.trim();
}

/** Items, one a line, until an empty line; null at end of input. */
async function askList(io: HostIO, lines: Lines, title: string): Promise<string[] | null> {
  io.err(`\n${title}\n  (one a line; an empty line ends the list)\n`);
  const out: string[] = [];
  for (;;) {
    io.err('  > ');
    const l = await lines.next();
    if (l === null) {
      io.err('\n');
      return out.length ? out : null;
    }
    if (l.trim() === '') return out;
    out.push(l.trim());
  }
}

/**
 * On a terminal, for a HEART.md init is about to write (none there, or init's template as it
 * was left): the answers to fill it with, or {} to write the template. `path` is where it
 * goes; `write(text)` writes it there (the edit-directly choice writes the template first).
 */
export async function heartSetup(io: HostIO, lines: Lines, path: string, template: string, write: (text: string) => void): Promise<'answered' | 'edited' | 'later'> {
  const how = await ask(io, lines, {
    title: `HEART.md (${path}) says what the agent works for, and every wake reads it. Set it up now?`,
    choices: [
      { label: 'interactive setup: the mission, the priorities, the restrictions, the external effects allowed and the stop conditions, a question at a time', value: 'ask' },
      { label: 'edit directly: init writes the template, you edit it, then press Enter here', value: 'edit' },
    ],
    custom: '',
    check: () => 'choose a or b',
  });
  if (how === 'edit') {
    write(template);
    io.err(`\nwrote ${path}: write the mission and the priorities there, save it, and press Enter here > `);
    await lines.next();
    return 'edited';
  }
  if (how !== 'ask') return 'later';
  const a: HeartAnswers = {};
  const mission = await askLine(io, lines, 'The mission: one or two sentences, what this repository should become and for whom (Enter: later)');
  if (mission) a.mission = mission;
  const steps: [keyof HeartAnswers, string][] = [
    ['priorities', 'The current priorities, most important first: the agent takes one small chunk a wake from the top'],
    ['restrictions', 'Restrictions beyond "do not edit HEART.md" and "nothing outside this repository": files to leave alone, dependencies not to add, …'],
    ['effects', 'External effects allowed (git push, opening pull requests, …); none unless listed'],
    ['stops', 'Stop conditions beyond "nothing in STATE.md serves the priorities": when the agent should only log "stopped" and exit'],
  ];
  for (const [key, title] of steps) {
    if (mission === null) break;
    const v = await askList(io, lines, title);
    if (v === null) break;
    if (v.length) (a as Record<string, string[]>)[key] = v;
  }
  const text = heartWithAnswers(template, a);
  write(text);
  return missionSaid(text) ? 'answered' : 'later';
}
