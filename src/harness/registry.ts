// The harness presets: one line per preset, the way src/scheduler-facts.ts lists the
// schedulers. Each preset's descriptor lives in its own folder (src/harness/<id>/index.ts,
// `preset`, a HarnessPreset of src/harness/types.ts) and imports nothing but
// src/harness/argv.ts, so every floor may ask this module; adding a preset is its folder and
// one line here (docs/ARCHITECTURE.md "Adding a harness preset"). The spec's agent.harness
// enum, the credentials' readers, the billing rules, the runtime's clients and install's
// checks follow from the list. The order is init's order of preference, and the first
// preset's billing verdict is the one the rules fall through to.
import { preset as claudeCode } from './claude-code/index.ts';
import { preset as codex } from './codex/index.ts';
import type { HarnessPreset } from './types.ts';

export type { ClientNeeds, HarnessPreset } from './types.ts';

const ALL = [claudeCode, codex] as const;

/** Every preset, as the spec's agent.harness names it. */
export const PRESET_IDS = ALL.map((p) => p.id) as unknown as readonly [(typeof ALL)[number]['id'], ...(typeof ALL)[number]['id'][]];
export type PresetId = (typeof ALL)[number]['id'];

/** The descriptors, in the registry's order. */
export const PRESETS: readonly HarnessPreset<PresetId>[] = ALL;

/** The harness that runs any other program, with no flags, login or words hbgen knows. */
export const COMMAND = 'command';

/** The preset a harness names, or undefined (`command`, or a name hbgen does not know: state.json may hold any). */
export function presetOf(harness: unknown): HarnessPreset<PresetId> | undefined {
  return PRESETS.find((p) => p.id === harness);
}

/** "a and b" (or "a, b and c"): the presets as a sentence lists them. */
export function presetList(): string {
  return PRESET_IDS.length === 1 ? PRESET_IDS[0] : `${PRESET_IDS.slice(0, -1).join(', ')} and ${PRESET_IDS[PRESET_IDS.length - 1]}`;
}
