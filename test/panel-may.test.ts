// The panel says what the agent may do: its cap, the tool permissions the preset passes,
// and, for a repo that declares dependencies, that the jail blocks their registry, with the
// allowHosts line that opens it (install --dry-run on the STAND-IN systemctl, the real srt).
import { dirname, join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hb, makeHost, rewriteSpec } from './helpers/lifecycle.ts';

const ROOT = join(import.meta.dirname, '..');
const SRT = join(ROOT, 'node_modules', '.bin', 'srt');
const NODE_DIR = dirname(process.execPath);

test('claude-code in the jail: cap, the tools row, a blocked registry for package.json and requirements.txt, each with the line that opens it', async () => {
  const h = makeHost('systemd-user');
  rewriteSpec(h, { cap: 40, agent: { harness: 'claude-code', bin: h.bin, prompt: 'Do one chunk.', model: 'sonnet' }, sandbox: { bin: SRT, allowHosts: ['github.com'] }, env: { HOME: h.home, PATH: `${NODE_DIR}:/usr/bin:/bin` } });
  writeFileSync(join(h.repo, 'package.json'), '{}\n');
  writeFileSync(join(h.repo, 'requirements.txt'), 'requests\n');
  const r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 0, r.err + r.out);
  assert.match(r.out, /\n {2}cap {8}40 wakes, then every fire logs skip-cap \(`hbgen resume --reset-cap` starts again\)\n/);
  assert.match(r.out, /\n {2}tools {6}--permission-mode acceptEdits --allowedTools Bash: edits and every shell command without asking \(the jail bounds what they reach\); your own permissions\.deny rules still apply\n/);
  assert.ok(r.out.includes('  - the repo has package.json, but the jail blocks registry.npmjs.org: `npm install` in a wake will fail; to open it, set "sandbox": {"allowHosts": ["github.com","registry.npmjs.org"]}'), r.out);
  assert.ok(r.out.includes('  - the repo has requirements.txt, but the jail blocks pypi.org and files.pythonhosted.org: `pip install` in a wake will fail;'), r.out);

  // With the registry allowed, no caveat for it.
  rewriteSpec(h, { sandbox: { bin: SRT, allowHosts: ['github.com', 'registry.npmjs.org'] } });
  const open = await hb(h, 'install', { dryRun: true });
  assert.is(open.code, 0, open.err + open.out);
  assert.not.match(open.out, /the repo has package\.json/);
  assert.match(open.out, /the repo has requirements\.txt/);
});

test('a command harness: no tools row, no cap, and billing says hbgen cannot ask who pays', async () => {
  const h = makeHost('systemd-user');
  const r = await hb(h, 'install', { dryRun: true });
  assert.is(r.code, 0, r.err);
  assert.not.match(r.out, /\n {2}tools /);
  assert.match(r.out, /\n {2}none {7}[^\n]*\bcap\b[^\n]*\(docs\/spec\.md\)\n/);
  assert.match(r.out, /\n {2}billing {4}custom command: not checked, no API key reaches it; check your plan\n/);
});

test.run();
