// Kept in step with package.json by test/cli.test.ts.
export const VERSION = '0.2.0';

/** The runtime's file name in the state folder (and beside a render's heartbeat.sh): versioned, so an upgrade never rewrites the file a running wake reads. */
export const runtimeName = (version = VERSION): string => `runtime-${version}.sh`;
