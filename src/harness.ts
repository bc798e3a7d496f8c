// The command line each harness preset puts between the binary and the spec's own args.
// The prompt is always the last argument, added by the wrapper.
// (First version; the presets are proven against the real CLIs in their own issue.)
import type { Spec } from './spec.ts';

export function harnessArgs(agent: Spec['agent']): string[] {
  const model = agent.model ? ['--model', agent.model] : [];
  switch (agent.harness) {
    case 'claude-code':
      // Headless print mode; edits allowed without prompting, nothing bypassed wholesale.
      return ['-p', ...model, '--permission-mode', 'acceptEdits'];
    case 'codex':
      // Non-interactive exec in the workspace-write sandbox.
      return ['exec', '--sandbox', 'workspace-write', ...model];
    case 'command':
      return [];
  }
}
