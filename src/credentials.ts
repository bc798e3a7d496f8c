// Which environment variables make an agent bill per token instead of the user's plan.
// ONE list, used by spec validation (the spec's env, for every harness) and by install
// (the invoking shell, for the clients that read the variable). A variable is on it when
// it carries a credential of a metered route or switches the client to one; settings that
// carry no credential (AWS_REGION, AWS_CA_BUNDLE, AWS_PROFILE, ANTHROPIC_BASE_URL,
// ANTHROPIC_VERTEX_PROJECT_ID, …) are not, since alone they bill nothing.
//
// Sources, read from the clients themselves (Claude Code 2.1.197, codex 0.171):
// - Claude Code chooses its provider from CLAUDE_CODE_USE_BEDROCK, _FOUNDRY, _ANTHROPIC_AWS,
//   _MANTLE, _VERTEX (in that order) and _GATEWAY, and since 2.1.332 (its bundle) also
//   _ANTHROPIC_GOOGLE_CLOUD, with ANTHROPIC_FOUNDRY_AUTH_TOKEN beside the Foundry key
//   (test/credentials.test.ts reads the pinned client for its switches); every one but "firstParty" is
//   `authMethod: "third_party"` in `claude auth status`. Its credential variables are
//   ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, ANTHROPIC_FOUNDRY_API_KEY,
//   ANTHROPIC_AWS_API_KEY, ANTHROPIC_BEDROCK_MANTLE_API_KEY, AWS_BEARER_TOKEN_BEDROCK,
//   the AWS keys, GOOGLE_APPLICATION_CREDENTIALS, the Azure client secret or certificate
//   (Foundry through Entra ID) and the workload-identity token (ANTHROPIC_IDENTITY_TOKEN,
//   ANTHROPIC_IDENTITY_TOKEN_FILE). CLAUDE_CODE_OAUTH_TOKEN (`claude setup-token`) is the
//   subscription itself and is not on the list.
// - codex reads OPENAI_API_KEY (`codex login --with-api-key`, providers with that
//   env_key), CODEX_API_KEY (`codex exec`), CODEX_ACCESS_TOKEN ("Logged in using access
//   token"), OPENAI_IDENTITY_TOKEN_FILE (workload identity), AZURE_OPENAI_API_KEY (its
//   Azure provider) and AWS_BEARER_TOKEN_BEDROCK or the AWS keys (its Amazon Bedrock
//   provider); only "Logged in using ChatGPT" is the plan.

import { PRESETS, type PresetId } from './harness/registry.ts';

/** A client whose own login hbgen knows (the presets' names). */
export type Client = PresetId;

export interface Credential {
  name: string;
  /** What it is, after "is": "an Anthropic API key". */
  what: string;
  /** Why it bills, one clause: "Claude Code uses it before your subscription login and bills every token to the API account". */
  bills: string;
  /** The clients that read it on their own (the presets whose descriptor lists it); empty when only some other program would. */
  readBy: readonly Client[];
}

type Entry = Omit<Credential, 'name' | 'readBy'>;

const claudeProvider = (provider: string): Entry => ({
  what: `Claude Code's switch to ${provider}`,
  bills: `Claude Code then sends every request there and bills it per token to that account instead of your subscription`,
});

const claudeKey = (what: string): Entry => ({
  what,
  bills: 'Claude Code signs in with it instead of your subscription login and bills every token to that account',
});

const AWS: Entry = {
  what: 'an AWS credential',
  bills: 'Claude Code on Amazon Bedrock and codex with its Amazon Bedrock provider bill every token to the AWS account with it instead of your plan',
};

const EXACT: Record<string, Entry> = {
  ANTHROPIC_API_KEY: {
    what: 'an Anthropic API key',
    bills: 'Claude Code uses it before your subscription login and bills every token to the API account',
  },
  ANTHROPIC_AUTH_TOKEN: {
    what: 'a bearer token for the Anthropic API or an LLM gateway',
    bills: 'Claude Code sends it instead of your subscription login and every token is billed to that account',
  },
  ANTHROPIC_FOUNDRY_API_KEY: claudeKey('a Microsoft Foundry API key'),
  ANTHROPIC_FOUNDRY_AUTH_TOKEN: claudeKey('a Microsoft Foundry bearer token'),
  ANTHROPIC_AWS_API_KEY: claudeKey('an API key for Anthropic on AWS'),
  ANTHROPIC_BEDROCK_MANTLE_API_KEY: claudeKey('an Amazon Bedrock (Mantle) API key'),
  ANTHROPIC_IDENTITY_TOKEN: claudeKey('a workload-identity token for an Anthropic API organization'),
  ANTHROPIC_IDENTITY_TOKEN_FILE: claudeKey('the path of a workload-identity token for an Anthropic API organization'),
  CLAUDE_CODE_USE_BEDROCK: claudeProvider('Amazon Bedrock'),
  CLAUDE_CODE_USE_VERTEX: claudeProvider('Google Vertex AI'),
  CLAUDE_CODE_USE_FOUNDRY: claudeProvider('Microsoft Foundry'),
  CLAUDE_CODE_USE_ANTHROPIC_AWS: claudeProvider('Anthropic on AWS'),
  CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD: claudeProvider('Anthropic on Google Cloud'),
  CLAUDE_CODE_USE_MANTLE: claudeProvider('Amazon Bedrock (Mantle)'),
  CLAUDE_CODE_USE_GATEWAY: claudeProvider('a cloud LLM gateway'),
  OPENAI_API_KEY: {
    what: 'an OpenAI API key',
    bills: 'codex bills every token to the API account with it instead of your ChatGPT plan',
  },
  CODEX_API_KEY: {
    what: 'an OpenAI API key for codex',
    bills: '`codex exec` uses it before your ChatGPT login and bills every token to the API account',
  },
  CODEX_ACCESS_TOKEN: {
    what: 'a codex access token',
    bills: 'codex signs in with it instead of your ChatGPT login, and its use is billed to the account the token belongs to instead of your plan',
  },
  OPENAI_IDENTITY_TOKEN_FILE: {
    what: 'the path of a workload-identity token for an OpenAI API organization',
    bills: 'codex signs in with it instead of your ChatGPT login and bills every token to that organization',
  },
  AZURE_OPENAI_API_KEY: {
    what: 'an Azure OpenAI API key',
    bills: "codex's Azure provider bills every token to the Azure account with it instead of your ChatGPT plan",
  },
  AWS_ACCESS_KEY_ID: AWS,
  AWS_SECRET_ACCESS_KEY: AWS,
  AWS_SESSION_TOKEN: AWS,
  AWS_BEARER_TOKEN_BEDROCK: { ...AWS, what: 'an Amazon Bedrock API key' },
  GOOGLE_APPLICATION_CREDENTIALS: {
    what: 'the path of a Google Cloud service-account key',
    bills: 'Claude Code on Vertex AI and codex on Vertex bill every token to the Google Cloud project with it instead of your plan',
  },
  AZURE_CLIENT_SECRET: {
    what: 'an Azure client secret',
    bills: 'Claude Code on Microsoft Foundry signs in to Azure with it and bills every token to that account instead of your subscription',
  },
  AZURE_CLIENT_CERTIFICATE_PATH: {
    what: 'the path of an Azure client certificate',
    bills: 'Claude Code on Microsoft Foundry signs in to Azure with it and bills every token to that account instead of your subscription',
  },
};

// Any other NAME_API_KEY: some provider's key (GEMINI_API_KEY, OPENROUTER_API_KEY, …), which
// an agent configured for that provider bills per token.
const ANY_API_KEY: Entry = {
  what: 'an API key',
  bills: 'an agent that reads it bills every token to that provider instead of a subscription',
};

/** The credential a variable name carries, or undefined when it carries none. Names are case-sensitive, as the clients read them. */
export function credential(name: string): Credential | undefined {
  const e = Object.hasOwn(EXACT, name) ? EXACT[name] : /._API_KEY$/.test(name) ? ANY_API_KEY : undefined;
  return e && { name, ...e, readBy: PRESETS.filter((p) => p.credentials.includes(name)).map((p) => p.id) };
}

/** The named credentials the given client reads (for the record of what install checked). */
export function knownCredentials(client?: Client): string[] {
  return Object.keys(EXACT)
    .filter((k) => client === undefined || PRESETS.some((p) => p.id === client && p.credentials.includes(k)))
    .sort();
}

/** "X is <what>: <why it bills>" — one clause the callers end with what to do. */
export function whyItBills(c: Credential): string {
  return `${c.name} is ${c.what}: ${c.bills}`;
}

// Secrets that bill nothing but give whoever reads them write access to code or packages:
// forge and package-registry tokens. The spec's env is written in clear into heartbeat.sh,
// state.json, every `hbgen render` (whose output `hbgen check` expects committed) and, on
// Kubernetes, the ConfigMap and the CronJob's pod spec, which anyone allowed to read
// ConfigMaps or CronJobs in the namespace sees. So these are refused in env on every
// scheduler. Each is read by a tool an agent commonly runs, and each tool keeps a login of
// its own outside env (named in `login`), which the agent's HOME gives it on a host; on
// Kubernetes the Secret (kubernetes.secretName + secretKeys) is the place.
// Sources: gh (`gh help environment`: GH_TOKEN, GITHUB_TOKEN, GH_ENTERPRISE_TOKEN,
// GITHUB_ENTERPRISE_TOKEN), glab (GITLAB_TOKEN, GITLAB_ACCESS_TOKEN; GL_TOKEN is
// semantic-release's name for it), Bitbucket and Gitea's CLIs, npm's `.npmrc`
// `${NPM_TOKEN}` / setup-node's NODE_AUTH_TOKEN, cargo (CARGO_REGISTRY_TOKEN), twine
// (TWINE_PASSWORD), huggingface_hub (HF_TOKEN, HUGGING_FACE_HUB_TOKEN).

/** A forge or registry token: not metered, but a secret that must not be written in clear. */
export interface ForgeToken {
  name: string;
  /** What it is, after "is": "a GitHub token". */
  what: string;
  /** The tool's own login that keeps the token out of env: "`gh auth login`". */
  login: string;
}

const gh = { what: 'a GitHub token', login: '`gh auth login` (or a git credential helper)' };
const gl = { what: 'a GitLab token', login: '`glab auth login` (or a git credential helper)' };
const FORGE: Record<string, Omit<ForgeToken, 'name'>> = {
  GH_TOKEN: gh,
  GITHUB_TOKEN: gh,
  GH_ENTERPRISE_TOKEN: { ...gh, what: 'a GitHub Enterprise token' },
  GITHUB_ENTERPRISE_TOKEN: { ...gh, what: 'a GitHub Enterprise token' },
  GITLAB_TOKEN: gl,
  GITLAB_ACCESS_TOKEN: gl,
  GL_TOKEN: gl,
  BITBUCKET_TOKEN: { what: 'a Bitbucket token', login: 'a git credential helper' },
  BITBUCKET_APP_PASSWORD: { what: 'a Bitbucket app password', login: 'a git credential helper' },
  GITEA_TOKEN: { what: 'a Gitea token', login: '`tea login add` (or a git credential helper)' },
  NPM_TOKEN: { what: 'an npm registry token', login: '`npm login` (it keeps the token in ~/.npmrc)' },
  NODE_AUTH_TOKEN: { what: 'an npm registry token', login: '`npm login` (it keeps the token in ~/.npmrc)' },
  CARGO_REGISTRY_TOKEN: { what: 'a crates.io token', login: '`cargo login` (it keeps the token in ~/.cargo/credentials.toml)' },
  TWINE_PASSWORD: { what: 'a PyPI password or token', login: '~/.pypirc' },
  HF_TOKEN: { what: 'a Hugging Face token', login: '`huggingface-cli login`' },
  HUGGING_FACE_HUB_TOKEN: { what: 'a Hugging Face token', login: '`huggingface-cli login`' },
};

/** The forge or registry token a variable name carries, or undefined. */
export function forgeToken(name: string): ForgeToken | undefined {
  return Object.hasOwn(FORGE, name) ? { name, ...FORGE[name]! } : undefined;
}

/**
 * Whether a name looks like it holds a secret (…_TOKEN, …_PASSWORD, …_SECRET, …_CREDENTIALS,
 * …_PAT, …_PRIVATE_KEY). Refused in a Kubernetes env, where the Secret is the place for it
 * and moving it there costs nothing; on a host such a name may have no other way in, so only
 * the named tokens above are refused there.
 */
export function looksSecret(name: string): boolean {
  return /(^|_)(TOKEN|PASSWORD|PASSWD|SECRET|CREDENTIALS?|PAT|PRIVATE_KEY)$/.test(name);
}
