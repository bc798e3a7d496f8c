// The command line each harness preset puts around the spec's own args. The wrapper runs
// `bin <harnessArgs> <agent.args> <promptSeparator> <prompt>`, stdin from /dev/null.
// Each flag is proven against the real CLI in test/agents.test.ts (npm packages
// @anthropic-ai/claude-code and @openai/codex): an accepted command line gets as far as
// authentication or the network, a rejected flag fails at once.
import type { Spec } from './spec.ts';

/**
 * Claude Code's turn cap for one wake. `--max-turns`: "Limit the number of agentic turns
 * (print mode only). Exits with an error when the limit is reached. No limit by default."
 * (code.claude.com/docs/en/cli-reference). The wrapper's timeout bounds the wall clock;
 * this bounds a loop of tool calls inside it. A later `--max-turns N` in agent.args wins.
 */
export const CLAUDE_MAX_TURNS = 100;

export function harnessArgs(agent: Spec['agent']): string[] {
  const model = agent.model ? ['--model', agent.model] : [];
  switch (agent.harness) {
    case 'claude-code':
      // -p/--print: headless, one prompt in, result out, exit (the trust dialog is skipped).
      // --permission-mode acceptEdits: file edits in the repo and basic file commands run
      // without asking; anything else that would ask is refused in print mode, so the run
      // never waits for a person. Not bypassPermissions (= --dangerously-skip-permissions);
      // widen it with permissions.allow rules in the repo's .claude/settings.json.
      return ['-p', ...model, '--permission-mode', 'acceptEdits', '--max-turns', String(CLAUDE_MAX_TURNS)];
    case 'codex':
      // `codex exec`: non-interactive, approval policy "never" (exec has no approval flag);
      // the workspace-write sandbox lets it write the repo (and temp) only. --full-auto is
      // gone (0.171 rejects it) and the bypass flags are never used.
      return ['exec', '--sandbox', 'workspace-write', ...model];
    case 'command':
      return [];
  }
}

/**
 * What goes between the spec's args and the prompt: `--` for the presets, so that a
 * prompt starting with "-" is read as the prompt and not as an option (both CLIs honour
 * `--`); nothing for `command`, whose parser hbgen does not know.
 */
export function promptSeparator(agent: Spec['agent']): string[] {
  return agent.harness === 'command' ? [] : ['--'];
}
