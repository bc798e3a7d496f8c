// install's billing check: the agent's own client says how it is logged in, run as the
// wrapper will run it — the real binary, exactly the spec's env (env -i: nothing of this
// shell), in the repo (Claude Code reads the repo's .claude settings), stdin closed — and
// install goes on only on the fixed plan. The verdict's rules are written once
// (src/billing-rules.ts), run here and by the wrapper's check before every wake.
import { STATUS_ARGV, billingClient, hasSetupToken, notPlan, timedOut } from '../../billing.ts';
import { namesSetupToken, verdict } from '../../billing-awk.ts';
import { TOKEN_REFUSAL } from '../../billing-rules.ts';
import type { Spec } from '../../spec.ts';
import { presetOf } from '../../harness/registry.ts';

/** What state.json records of the check (and status shows). */
export interface BillingRecord {
  result: 'subscription' | 'not checked';
  /** The client's authMethod ("claude.ai", "oauth_token") or "chatgpt"; absent for `command`. */
  method?: string;
  provider?: string;
  /** What the panel says: "Claude subscription login (max)", "ChatGPT login". */
  identity?: string;
  clientVersion?: string;
  checkedAt?: string;
  /** The command that was asked, as argv. */
  command?: string[];
}

const INSTALL_TIMEOUT_MS = 30_000;

interface Ran {
  stdout: string;
  stderr: string;
  code: number;
  timedOut: boolean;
  failed?: string;
}

async function run(spec: Spec, args: readonly string[]): Promise<Ran> {
  const { execa } = await import('execa');
  const r = await execa(spec.agent.bin, [...args], {
    env: { ...spec.env },
    extendEnv: false,
    cwd: spec.repo,
    stdin: 'ignore',
    reject: false,
    timeout: INSTALL_TIMEOUT_MS,
    maxBuffer: 1 << 20,
    stripFinalNewline: false,
  });
  const failed = r.exitCode === undefined && !r.timedOut ? (r.originalMessage ?? r.shortMessage) : undefined;
  return { stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? ''), code: r.exitCode ?? -1, timedOut: r.timedOut === true, failed };
}

/** One line: the command as the user could type it. */
const shownCmd = (spec: Spec, args: readonly string[]) => `${spec.agent.bin} ${args.join(' ')}`;

/**
 * The check for install: a record for state.json, or the one-sentence refusal. `command`
 * is not checked (hbgen does not know its program): the record says so. `now` is the
 * host clock's ISO time of the check.
 */
export async function checkBilling(spec: Spec, now: string): Promise<{ record: BillingRecord } | { refusal: string }> {
  const client = billingClient(spec.agent);
  if (!client) return { record: { result: 'not checked' } };
  const version = await run(spec, ['--version']);
  const clientVersion = version.code === 0 ? version.stdout.trim().split('\n')[0]!.slice(0, 80) : '';
  const pre = presetOf(client)!.billing.precheck;
  if (pre) {
    const help = await run(spec, pre.argv);
    if (help.code !== 0 || !pre.stdout.test(help.stdout)) {
      return { refusal: `billing: ${shownCmd(spec, pre.argv)} ${pre.refusal.replace('{version}', clientVersion ? ` (${clientVersion})` : '')}` };
    }
  }
  const args = STATUS_ARGV[client];
  const r = await run(spec, args);
  if (r.failed) return { refusal: `billing: ${shownCmd(spec, args)} could not be run (${r.failed}), so hbgen cannot verify how it bills; fix agent.bin, then install again` };
  const v = r.timedOut ? { ok: false as const, saw: timedOut(client, INSTALL_TIMEOUT_MS / 1000) } : verdict(client, r.stdout, r.stderr, r.code, hasSetupToken(spec.env));
  if (!v.ok) {
    return { refusal: `billing: ${v.saw}, run in the agent's environment (the spec's env, in the repo): ${notPlan(client)}; then install again` };
  }
  if (v.method === presetOf(client)!.billing.tokenMethod) {
    // The status says so for a token billed per token too; only --text names the variable in
    // use (src/harness/claude-code/index.ts billing.tokenMethod). The wrapper asks it too.
    const text = await run(spec, [...args, '--text']);
    if (!namesSetupToken(text.stdout)) {
      return { refusal: `billing: ${TOKEN_REFUSAL}, run in the agent's environment (the spec's env, in the repo): ${notPlan(client)}; then install again` };
    }
  }
  return {
    record: { result: 'subscription', method: v.method, provider: v.provider, identity: v.identity, clientVersion, checkedAt: now, command: [spec.agent.bin, ...args] },
  };
}
