// hbgen resume [SPEC]: reinstall what state.json records, after the panel and consent.
import type { HostIO } from '../host/io.ts';
import { install, type InstallArgs } from './install.ts';

export function resume(argv: InstallArgs, io: HostIO): Promise<number> {
  return install(argv, io, 'resume');
}
