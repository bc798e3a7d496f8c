// Types of test/helpers/responses-standin.mjs for the TypeScript tests that import it.
import type { Server } from 'node:http';
import type { StandInRequest } from './model-standin.mjs';

/** One scripted tool call: exec_command's arguments, or apply_patch's freeform input. */
export type StandInCall = { exec: Record<string, unknown> } | { patch: string };

export function standInResponses(calls: readonly StandInCall[], onRequest?: (req: StandInRequest) => void): Server;
