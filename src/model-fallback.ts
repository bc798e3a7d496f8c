// agent.fallbackModel: "when a model is rejected, fall back once and update
// state". The wrapper reads a failed wake's output for the client's own words that the
// model was refused, logs `error model …`, and, with a fallback, records it in
// <stateDir>/model.fallback so that the next wake runs the fallback; status says so.
// Claude Code's own --fallback-model (passed too) switches within the run.

/**
 * What the clients print when the model is refused, as fixed strings (grep -F).
 * Claude Code 2.1.197, from its bundle: "There's an issue with the selected model (M). It
 * may not exist or you may not have access to it." and, on a cloud deployment, "The model M
 * is not available on your … deployment." codex: the OpenAI server's words, which codex
 * 0.171 prints as they come ({"detail":"The 'M' model is not supported when using Codex
 * with a ChatGPT account."}, openai/codex issues 14266 and 17642), and the API's error
 * code model_not_found (listed in the codex 0.171 binary's error codes).
 */
export const REFUSALS: Record<'claude-code' | 'codex', string[]> = {
  'claude-code': ["There's an issue with the selected model (", 'It may not exist or you may not have access to it', 'deployment. Try switching to'],
  codex: ['model is not supported when using Codex with a ChatGPT account', 'model_not_found', 'does not exist or you do not have access to it'],
};

export const FALLBACK_FILE = 'model.fallback';

/** The spec's rules for agent.fallbackModel, as messages (the path is the caller's). */
export function fallbackIssues(a: object): string[] {
  const { harness, model, fallbackModel } = a as { harness?: unknown; model?: unknown; fallbackModel?: unknown };
  if (typeof fallbackModel !== 'string' || fallbackModel === '') return [];
  if (harness === 'command') return ['applies to the claude-code and codex presets only; for harness "command" your own client decides (e.g. claude --fallback-model in agent.args)'];
  if (typeof model !== 'string') return ['needs agent.model: the fallback replaces that model when the client refuses it; set agent.model too, or leave fallbackModel out'];
  if (model === fallbackModel) return [`is the same as agent.model ("${model}"); name another model, or leave fallbackModel out`];
  return [];
}

