// The one credential list (src/credentials.ts), table-tested: every variable that carries a
// metered credential or switches a client to a metered provider is refused, with the
// clients that read it; every setting that carries no credential is accepted. The same
// classifier decides spec validation (test/spec.test.ts) and install's shell check
// (test/install-envelope.test.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type Client, credential, knownCredentials, whyItBills } from '../src/credentials.ts';

const C: Client[] = ['claude-code'];
const X: Client[] = ['codex'];
const B: Client[] = ['claude-code', 'codex'];

// name → the clients that read it on their own ([] = only some other program).
const REFUSED: [string, Client[]][] = [
  ['ANTHROPIC_API_KEY', C],
  ['ANTHROPIC_AUTH_TOKEN', C],
  ['ANTHROPIC_FOUNDRY_API_KEY', C],
  ['ANTHROPIC_AWS_API_KEY', C],
  ['ANTHROPIC_BEDROCK_MANTLE_API_KEY', C],
  ['ANTHROPIC_IDENTITY_TOKEN', C],
  ['ANTHROPIC_IDENTITY_TOKEN_FILE', C],
  // Claude Code's provider switches, as its provider function reads them (2.1.197).
  ['CLAUDE_CODE_USE_BEDROCK', C],
  ['CLAUDE_CODE_USE_VERTEX', C],
  ['CLAUDE_CODE_USE_FOUNDRY', C],
  ['CLAUDE_CODE_USE_ANTHROPIC_AWS', C],
  ['CLAUDE_CODE_USE_MANTLE', C],
  ['CLAUDE_CODE_USE_GATEWAY', C],
  ['AZURE_CLIENT_SECRET', C],
  ['AZURE_CLIENT_CERTIFICATE_PATH', C],
  ['OPENAI_API_KEY', X],
  ['CODEX_API_KEY', X],
  ['CODEX_ACCESS_TOKEN', X],
  ['OPENAI_IDENTITY_TOKEN_FILE', X],
  ['AZURE_OPENAI_API_KEY', X],
  ['AWS_ACCESS_KEY_ID', B],
  ['AWS_SECRET_ACCESS_KEY', B],
  ['AWS_SESSION_TOKEN', B],
  ['AWS_BEARER_TOKEN_BEDROCK', B],
  ['GOOGLE_APPLICATION_CREDENTIALS', B],
  // Any other *_API_KEY.
  ['GEMINI_API_KEY', []],
  ['OPENROUTER_API_KEY', []],
  ['MISTRAL_API_KEY', []],
  ['X_API_KEY', []],
];

// Settings that carry no credential: alone they bill nothing.
const ACCEPTED = [
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_CA_BUNDLE',
  'AWS_PROFILE',
  'AWS_CONFIG_FILE',
  'AWS_ENDPOINT_URL',
  'AWSOME',
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_MODEL',
  'ANTHROPIC_VERTEX_PROJECT_ID',
  'ANTHROPIC_BEDROCK_BASE_URL',
  'ANTHROPIC_FOUNDRY_RESOURCE',
  'CLOUD_ML_REGION',
  'AZURE_OPENAI_ENDPOINT',
  // The subscription itself (`claude setup-token`).
  'CLAUDE_CODE_OAUTH_TOKEN',
  'CLAUDE_CONFIG_DIR',
  // Other CLAUDE_CODE_USE_* are features, not providers.
  'CLAUDE_CODE_USE_POWERSHELL_TOOL',
  'CLAUDE_CODE_USE_NATIVE_FILE_SEARCH',
  'CODEX_HOME',
  'HOME',
  'PATH',
  'LANG',
  'API_KEYS_DIR',
  'API_KEY',
  '_API_KEY',
  'API_KEY_FILE',
  // Names are case-sensitive, as the clients read them.
  'anthropic_api_key',
  'openai_api_key',
];

test('every refused variable is a credential, read by the clients named', () => {
  for (const [name, readBy] of REFUSED) {
    const c = credential(name);
    assert.ok(c, `${name} must be refused`);
    assert.is(c!.name, name);
    assert.equal([...c!.readBy], readBy, name);
  }
});

test('every setting without a credential is accepted', () => {
  for (const name of ACCEPTED) assert.is(credential(name), undefined, `${name} carries no credential`);
});

test('the message names the variable, what it is and why it bills, in one sentence', () => {
  for (const [name] of REFUSED) {
    const m = whyItBills(credential(name)!);
    assert.ok(m.startsWith(`${name} is `), m);
    assert.match(m, /bill/, m);
    assert.not.match(m, /\.\s|\n/, `one sentence: ${m}`);
  }
  assert.is(
    whyItBills(credential('CLAUDE_CODE_USE_BEDROCK')!),
    "CLAUDE_CODE_USE_BEDROCK is Claude Code's switch to Amazon Bedrock: Claude Code then sends every request there and bills it per token to that account instead of your subscription",
  );
  assert.is(
    whyItBills(credential('AWS_SECRET_ACCESS_KEY')!),
    'AWS_SECRET_ACCESS_KEY is an AWS credential: Claude Code on Amazon Bedrock and codex with its Amazon Bedrock provider bill every token to the AWS account with it instead of your plan',
  );
});

test('knownCredentials: per client, what install records as checked', () => {
  const claude = knownCredentials('claude-code');
  const codex = knownCredentials('codex');
  for (const [name, readBy] of REFUSED) {
    if (readBy.length === 0) continue;
    assert.is(claude.includes(name), readBy.includes('claude-code'), name);
    assert.is(codex.includes(name), readBy.includes('codex'), name);
  }
  assert.equal(knownCredentials(), [...new Set([...claude, ...codex])].sort());
});

test.run();
