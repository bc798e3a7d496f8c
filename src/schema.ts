import * as z from 'zod';
import { SpecSchema } from './spec.ts';

/** The spec's JSON Schema, as `hbgen schema` prints it. */
export function jsonSchema(): object {
  const s = z.toJSONSchema(SpecSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    ...s,
    $id: 'https://hbgen.dev/schema/v1.json',
    title: 'hbgen spec, version 1',
    description: 'One heartbeat: the agent, its working hours, interval and timeout. See PRODUCT.md §1.',
  };
}
