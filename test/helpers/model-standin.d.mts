// Types of test/helpers/model-standin.mjs for the TypeScript tests that import it.
import type { Server } from 'node:http';

export interface StandInRequest {
  method: string | undefined;
  url: string | undefined;
  body: string;
}

export function standInModel(commands: readonly string[], onRequest?: (req: StandInRequest) => void): Server;
