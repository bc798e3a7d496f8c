// THE list of credential files and folders under HOME that the jail hides from the agent by
// default (src/jail.ts), and that sandbox.allowRead may open one by one (src/spec.ts): the
// docs/threat-model.md prints it. Each is where a common tool keeps a login or a token
// (its own documentation names the place). Imports nothing.
export const SECRET_PATHS = [
  '.ssh', // ssh keys
  '.aws', // AWS CLI credentials
  '.gnupg', // GnuPG keys
  '.config/gh', // GitHub CLI token
  '.netrc', // logins for curl, git, ftp
  '.docker', // registry logins (config.json auths)
  '.git-credentials', // git credential-store's default file
  '.config/git/credentials', // git credential-store's XDG file
  '.npmrc', // npm registry tokens (_authToken)
  '.kube', // Kubernetes contexts and their tokens
  '.config/gcloud', // Google Cloud SDK logins
  '.azure', // Azure CLI tokens
  '.cargo/credentials', // crates.io token (cargo before 1.46)
  '.cargo/credentials.toml', // crates.io token
  '.vault-token', // HashiCorp Vault's token helper
  '.pypirc', // PyPI upload tokens
  '.local/share/keyrings', // GNOME keyring files
  '.password-store', // pass(1) store
] as const;

/** `~/x` or an absolute path, as a spec writes it in sandbox.allowRead, made absolute under `home`. */
export function homePath(p: string, home: string): string {
  return p.startsWith('~/') ? `${home.replace(/\/$/, '')}${p.slice(1)}` : p;
}
