// The control files (HEART.md, PROTOCOL.md, STATE.md, LOG.md, journal/) kept out of the
// agent's commits: install adds a block naming them to the repository's own
// .git/info/exclude, which git reads like a .gitignore that is never committed
// (https://git-scm.com/docs/gitignore: "$GIT_DIR/info/exclude ... patterns which are
// specific to a particular repository but which do not need to be shared"). An agent's
// `git add -A` then leaves them out; the repo's files and its .gitignore stay untouched.
// stop removes the block again, and only it. Exclusion does not apply to a file git
// already tracks: install says which ones are, and how to stop tracking them.
import { lstatSync, mkdirSync, rmSync, rmdirSync } from 'node:fs';
import { posix } from 'node:path';
import { cronMarkers } from '../../formats.ts';
import type { Spec } from '../../spec.ts';
import { readOrNull, writeAtomic } from '../fsx.ts';
import { gitLayoutProblem, safeGit } from '../proc/git.ts';

/** The control plane, as exclude patterns anchored at the repo's top folder. */
export const CONTROL_FILES = ['HEART.md', 'PROTOCOL.md', 'STATE.md', 'LOG.md', 'journal/'];

export interface ExcludePlan {
  path: string;
  /** The file's bytes now (null: none) and as install leaves them. */
  before: Buffer | null;
  after: Buffer;
  /** hbgen's block, as stop looks for it. */
  block: string;
  /** Control files git already tracks (exclusion leaves them as they are). */
  tracked: string[];
}

// hbgen's markers, as around its crontab block, the begin line saying what the block is for.
const begin = (name: string) => `${cronMarkers(name).begin}: the control files, out of the agent's commits (hbgen stop removes this block)`;
const end = (name: string) => cronMarkers(name).end;

/** hbgen's block for `name`. */
export function excludeBlock(name: string): string {
  return `${[begin(name), ...CONTROL_FILES.map((f) => `/${f}`), end(name)].join('\n')}\n`;
}

/** `text` without hbgen's block for `name` (every copy of it), and whether one was there. */
export function withoutBlock(text: string, name: string): { text: string; found: boolean } {
  const lines = text.split('\n');
  const out: string[] = [];
  let found = false;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] === begin(name)) {
      const j = lines.indexOf(end(name), i + 1);
      if (j !== -1) {
        found = true;
        i = j;
        continue;
      }
    }
    out.push(lines[i]!);
  }
  return { text: out.join('\n'), found };
}

/**
 * What install does to the repo's .git/info/exclude: null when the spec leaves the control
 * files to git (controlFiles "commit") or the repo is no git repository (then nothing is
 * there to keep them out of); a sentence when hbgen will not write there.
 */
export function excludePlan(spec: Spec, jailRunning = false): ExcludePlan | string | null {
  if (spec.controlFiles === 'commit') return null;
  const dot = posix.join(spec.repo, '.git');
  const layout = gitLayoutProblem(spec.repo, jailRunning);
  if (layout.startsWith('not a git repository')) return null;
  if (layout) return `${dot}: ${layout}, so hbgen will not write its info/exclude; fix the repository, or set "controlFiles": "commit"`;
  const info = posix.join(dot, 'info');
  const path = posix.join(info, 'exclude');
  for (const [p, want] of [[info, 'folder'], [path, 'file']] as const) {
    let st;
    try {
      st = lstatSync(p);
    } catch {
      continue;
    }
    if (want === 'folder' ? !st.isDirectory() : !st.isFile()) return `${p} is not a plain ${want} (a link?), so hbgen will not write through it; replace it by a plain ${want}, or set "controlFiles": "commit"`;
  }
  const before = readOrNull(path);
  const block = excludeBlock(spec.name);
  const rest = withoutBlock(before?.toString('utf8') ?? '', spec.name).text;
  const after = Buffer.from(`${rest}${rest === '' || rest.endsWith('\n') ? '' : '\n'}${block}`);
  let tracked: string[] = [];
  try {
    tracked = safeGit(spec.repo, ['ls-files', '--', ...CONTROL_FILES.map((f) => f.replace(/\/$/, ''))])
      .split('\n')
      .filter(Boolean)
      .map((f) => (f.startsWith('journal/') ? 'journal/' : f));
    tracked = [...new Set(tracked)];
  } catch {
    tracked = [];
  }
  return { path, before, after, block, tracked };
}

/** The panel's lines for the plan. */
export function excludeLines(p: ExcludePlan): string[] {
  const out = [`${p.path}  ${p.before?.equals(p.after) ? 'unchanged' : p.before ? 'hbgen\'s block added' : 'new, hbgen\'s block'}: ${CONTROL_FILES.map((f) => `/${f}`).join(' ')} (so the agent's \`git add -A\` leaves them out; "controlFiles": "commit" leaves them to git)`];
  if (p.tracked.length) out.push(`  git already tracks ${p.tracked.join(', ')}: exclusion does not apply to ${p.tracked.length === 1 ? 'it' : 'them'}; \`git rm --cached -r ${p.tracked.join(' ')}\` stops tracking (the files stay)`);
  return out;
}

/** Writes the plan (info/ made when missing); returns the undo. */
export function applyExclude(p: ExcludePlan): () => void {
  if (p.before?.equals(p.after)) return () => {};
  const info = posix.dirname(p.path);
  let made = false;
  try {
    lstatSync(info);
  } catch {
    mkdirSync(info, { mode: 0o755 });
    made = true;
  }
  const mode = p.before ? lstatSync(p.path).mode & 0o777 : 0o644;
  writeAtomic(p.path, p.after, mode);
  return () => {
    if (p.before) writeAtomic(p.path, p.before, mode);
    else {
      rmSync(p.path, { force: true });
      // The folder install made goes too, unless something else put a file there meanwhile.
      if (made) {
        try {
          rmdirSync(info);
        } catch {
          // not empty: left as it is
        }
      }
    }
  };
}

/** Removes hbgen's block for `name` from the exclude file at `path`; whether there was one. */
export function removeExclude(path: string, name: string): boolean {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return false;
  }
  if (!st.isFile()) return false;
  const text = readOrNull(path)?.toString('utf8') ?? '';
  const r = withoutBlock(text, name);
  if (!r.found) return false;
  writeAtomic(path, r.text, st.mode & 0o777);
  return true;
}
