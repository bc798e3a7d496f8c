// Kept in step with package.json by test/cli.test.ts.
export const VERSION = '0.2.0';
