import * as z from 'zod/mini';
import { SpecSchema } from './spec.ts';

/**
 * The spec's JSON Schema, as `hbgen schema` prints it: every field's description and
 * default come from its zod definition in src/spec.ts (`describe`, `z._default`), which
 * editors show on hover and completion, and docs/spec.md's table is made from.
 */
export function jsonSchema(): object {
  const s = z.toJSONSchema(SpecSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    $schema: s.$schema,
    title: 'hbgen spec, version 1',
    description: 'One heartbeat: the agent, its working hours, interval and timeout.',
    ...s,
  };
}
