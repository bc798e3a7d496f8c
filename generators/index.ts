import type { Spec } from '../src/spec.ts';
import { cron } from './cron.ts';
import { launchd } from './launchd.ts';
import { systemd } from './systemd.ts';
import type { Generator } from './types.ts';

export const generators: Record<Spec['schedule']['scheduler'], Generator> = {
  launchd,
  'systemd-user': systemd,
  cron,
};
