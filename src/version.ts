// Kept in step with package.json by test/cli.test.ts.
export const VERSION = '0.2.0';

/** The runtime's file name in the state folder (and beside a render's heartbeat.sh): versioned, so an upgrade never rewrites the file a running wake reads. */
export const runtimeName = (version = VERSION): string => `runtime-${version}.sh`;

/**
 * The Kubernetes manifest that carries the runtime as a ConfigMap of its own (under host/),
 * named by version like the runtime: every spec of a namespace that this hbgen renders
 * mounts that one object, and each spec's own manifest names it.
 */
export const runtimeManifestName = (version = VERSION): string => `hbgen-runtime-${version}.configmap.yaml`;

/** Whether a path of a rendered tree is a copy of the runtime's text: runtime-VERSION.sh, or the manifest that carries it. */
export const holdsRuntime = (path: string): boolean => /^(runtime-[^/]*\.sh|hbgen-runtime-[^/]*\.configmap\.yaml)$/.test(path.slice(path.lastIndexOf('/') + 1));
