// The billing rules (src/billing-rules.ts) run by awk, as the wrapper runs them before
// every wake: install's checks and the tests use these to reach the same verdict with the
// same text. A render never runs a program, and this module keeps child_process out of it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FILES_AWK, TOKEN_AWK, VERDICT_AWK } from './billing-rules.ts';
import { type BillingClient, type FileHit, type Verdict, billingKeyNames, command } from './billing.ts';

/**
 * Runs one of the rules' awk programs (src/billing-rules.ts) as the wrapper does: the C
 * locale, the operands given; its stdout. Temporary files hold what the client printed.
 */
function awk(program: string, vars: Record<string, string>, operands: string[]): string {
  const r = spawnSync('awk', [...Object.entries(vars).flatMap(([k, v]) => ['-v', `${k}=${v}`]), program, ...operands], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: 1 << 20,
  });
  if (r.error) throw new Error(`billing: awk could not be run (${r.error.message}); install awk (POSIX), which the wrapper needs too`);
  return r.stdout;
}

/**
 * The verdict on what the client's status command printed and its exit status, by the
 * rules the wrapper applies before every wake (VERDICT_AWK, the same text);
 * `setupToken`: the agent's env sets CLAUDE_CODE_OAUTH_TOKEN (claude-code only).
 */
export function verdict(client: BillingClient, stdout: string, stderr: string, code: number, setupToken = false): Verdict {
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-billing-'));
  try {
    const out = join(dir, 'out');
    const err = join(dir, 'err');
    writeFileSync(out, stdout);
    writeFileSync(err, stderr);
    const line = awk(VERDICT_AWK, { rc: String(code), which: client, tok: setupToken ? '1' : '0' }, [out, err]).split('\n')[0] ?? '';
    const ok = /^ok (\S+) (\S+) (.+)$/.exec(line);
    if (ok) return { ok: true, method: ok[1]!, provider: ok[2]!, identity: ok[3]! };
    if (line.startsWith('no ')) return { ok: false, saw: line.slice(3) };
    return { ok: false, saw: `${command(client)} got no verdict from awk` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `claude auth status --text` printed this on stdout: does it name the setup token (TOKEN_AWK, as the wrapper asks)? */
export function namesSetupToken(stdout: string): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'hbgen-billing-'));
  try {
    writeFileSync(join(dir, 'out'), stdout);
    return spawnSync('awk', [TOKEN_AWK, join(dir, 'out')], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' }, stdio: 'ignore' }).status === 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The first hit in the files (paths; a missing or unreadable one is skipped), by the rules
 * the wrapper applies before every wake (FILES_AWK, the same text).
 */
export function fileHit(client: BillingClient, files: string[]): FileHit | undefined {
  if (files.length === 0) return undefined;
  const [key, file] = awk(FILES_AWK, { which: client, keys: ` ${billingKeyNames().join(' ')} ` }, files).split('\n');
  return key && file ? { file, key } : undefined;
}
