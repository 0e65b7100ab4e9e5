/**
 * SPEC-2 §A.12 and issue 14 item 10: basic-auth flags of curl/wget/httpie,
 * `user:pass@` after any URL scheme, and assignments to secret-named
 * variables whatever the value's shape — with the non-secrets around them
 * (counts, references, code, placeholders) left alone. Every credential here
 * is made up.
 */
import { describe, it, expect } from 'vitest';
import { redactString, redactJsonLine, redactWithStats } from '../../src/redact/index.js';

/** [input, expected redaction] */
const REDACTS: Array<[string, string]> = [
  // curl: anywhere in the command, right after `curl`, glued, bundled, `--user=`, quoted, escaped quotes
  ['curl -u admin:S3cretPassw0rd https://api.example.com', 'curl -u admin:REDACTED https://api.example.com'],
  ['curl -s -X POST https://x.example.com --user admin:correct-horse-battery', 'curl -s -X POST https://x.example.com --user admin:REDACTED'],
  ['curl -uadmin:hunter2hunter https://x.example.com', 'curl -uadmin:REDACTED https://x.example.com'],
  ['curl -sSu deploy:Tr0ub4dor3 https://x.example.com', 'curl -sSu deploy:REDACTED https://x.example.com'],
  ['curl --user=bob:my-pass-123 https://x.example.com', 'curl --user=bob:REDACTED https://x.example.com'],
  ['curl -H "Accept: */*" -u "admin:two words here" https://x.example.com', 'curl -H "Accept: */*" -u "admin:REDACTED" https://x.example.com'],
  ['"command":"curl -u \\"admin:escapedPw99\\" https://x.example.com"', '"command":"curl -u \\"admin:REDACTED\\" https://x.example.com"'],
  ['curl -X POST \\\n  -H "Content-Type: application/json" \\\n  -u ops:LineContinued77 \\\n  https://x.example.com', 'curl -X POST \\\n  -H "Content-Type: application/json" \\\n  -u ops:REDACTED \\\n  https://x.example.com'],
  ['curl -U proxyuser:ProxyPw123 https://x.example.com', 'curl -U proxyuser:REDACTED https://x.example.com'],
  ['curl https://api.example.com/v1 -u tok_live_9f8e7d6c5b4a:', 'curl https://api.example.com/v1 -u REDACTED:'],
  // wget and httpie/xh
  ['wget --user=admin --password=wgetPassw0rd https://x.example.com/a.tgz', 'wget --user=admin --password=REDACTED https://x.example.com/a.tgz'],
  ['wget --http-user=a --http-password correcthorse https://x.example.com', 'wget --http-user=a --http-password REDACTED https://x.example.com'],
  ['wget -q --ftp-password="open sesame 42" ftp://files.example.com/x', 'wget -q --ftp-password="REDACTED" ftp://files.example.com/x'],
  ['http -a alice:httpiePw42 GET https://x.example.com', 'http -a alice:REDACTED GET https://x.example.com'],
  ['https --auth bob:hp-secret-99 https://x.example.com', 'https --auth bob:REDACTED https://x.example.com'],
  ['http --auth=carol:carolPw77 https://x.example.com', 'http --auth=carol:REDACTED https://x.example.com'],
  ['xh -a dave:xhPassw0rd https://x.example.com', 'xh -a dave:REDACTED https://x.example.com'],
  // user:pass@ after any scheme
  ['git clone ssh://deploy:sshPassw0rd@git.example.com/repo.git', 'git clone ssh://deploy:REDACTED@git.example.com/repo.git'],
  ['ftp://anon:ftpPassw0rd@files.example.com/x', 'ftp://anon:REDACTED@files.example.com/x'],
  ['REDIS_URL=redis://:redisPassw0rd@cache:6379/0', 'REDIS_URL=redis://:REDACTED@cache:6379/0'],
  ['pip install git+https://bot:gitPlusPw99@github.example.com/x/y', 'pip install git+https://bot:REDACTED@github.example.com/x/y'],
  ['amqp://app:AmqpPw1234@mq:5672 and mongodb+srv://app:MongoPw123@cluster0.example.net/db', 'amqp://app:REDACTED@mq:5672 and mongodb+srv://app:REDACTED@cluster0.example.net/db'],
  ['https://:tokenOnly12345@host.example.com/x', 'https://:REDACTED@host.example.com/x'],
  ['svn+ssh://me:SvnPassw0rd@svn.example.com/trunk', 'svn+ssh://me:REDACTED@svn.example.com/trunk'],
  // secret-named assignments, whatever the value's shape
  ['DB_PASSWORD=correct-horse-battery-staple', 'DB_PASSWORD=REDACTED'],
  ['DB_PASSWORD=correct-horse-battery', 'DB_PASSWORD=REDACTED'],
  ['DB_PASSWORD=correcthorse', 'DB_PASSWORD=REDACTED'],
  ['DB_PASSWORD=12345678', 'DB_PASSWORD=REDACTED'],
  ['export X_TOKEN=abcdefghij', 'export X_TOKEN=REDACTED'],
  ["X_SECRET='some-literal-value'", "X_SECRET='REDACTED'"],
  ['docker run -e DB_PASSWD=plain-words-here postgres', 'docker run -e DB_PASSWD=REDACTED postgres'],
  ['db_password=correcthorse', 'db_password=REDACTED'],
  ['db_password: correct-horse-battery', 'db_password: REDACTED'],
  ['db_password: hunter2hunter2', 'db_password: REDACTED'],
  ['    POSTGRES_PASSWORD: correcthorse', '    POSTGRES_PASSWORD: REDACTED'],
  ['MY_APIKEY=alpha.beta.gamma', 'MY_APIKEY=REDACTED'],
  ['GPG_PASSPHRASE="horse staple"x PRIVATE_KEY_PASSWORD=word-word-word', 'GPG_PASSPHRASE="horse staple"x PRIVATE_KEY_PASSWORD=REDACTED'],
  ['mytool --db-password=hunter2hunter', 'mytool --db-password=REDACTED'],
  ['{"apiToken": "tok-abc-def-ghi"}', '{"apiToken": "REDACTED"}'],
  ['{\\"apiToken\\": \\"tok-abc-def-ghi\\"}', '{\\"apiToken\\": \\"REDACTED\\"}'],
  ['{"private_key": "plainwordsonly"}', '{"private_key": "REDACTED"}'],
  ["SECRET_KEY = 'django-insecure-abc'", "SECRET_KEY = 'REDACTED'"],
  ['password := "hunter2hunter2"', 'password := "REDACTED"'],
  ['client.login(password="letmeinplease")', 'client.login(password="REDACTED")'],
  ['https://example.com/cb?token=abc123def&state=x', 'https://example.com/cb?token=REDACTED&state=x'],
  ['token = a-b-c-d-e-f-g-h', 'token = REDACTED'],
  ['Password: Summer-2024!', 'Password: REDACTED'],
  ['.env:\nDB_PASSWORD=correct-horse\nDB_USER=app', '.env:\nDB_PASSWORD=REDACTED\nDB_USER=app'],
  ['cat .env\\nAPI_TOKEN=word-word-word\\nNEXT=1', 'cat .env\\nAPI_TOKEN=REDACTED\\nNEXT=1'],
];

/** Never changed. */
const KEEPS: string[] = [
  // counts and token usage
  'TOKEN_LIMIT=100000',
  'TOKEN_LIMIT=100000000',
  'max_token: 12345678',
  'MAX_TOKENS=4096000000',
  '"input_tokens": 12345678, "cache_read_input_tokens": 87654321, "output_tokens": 12345678',
  '{\\"input_tokens\\":12345678,\\"cache_creation_input_tokens\\":87654321}',
  'PASSWORD_MIN_LENGTH: 12345678',
  'TOKEN_TTL_SECONDS = 86400000',
  // references and templates
  'password: ${{ secrets.DB_PASSWORD }}',
  'PASSWORD=$DB_PASSWORD',
  'PASSWORD=${DB_PASSWORD}',
  'PASSWORD="$DB_PASSWORD"',
  'TOKEN=$(cat /run/secrets/token)',
  '//registry.npmjs.org/:_authToken=${NPM_TOKEN}',
  'curl -u "$API_USER:$API_PASS" https://x.example.com',
  'curl -u "${API_USER}:${API_PASS}" https://x.example.com',
  'https://$USER:$TOKEN@host.example.com/x',
  'set SECRET_KEY=%SECRET_KEY%',
  // empty, placeholders
  '"password": ""',
  'password: "********"',
  'DB_PASSWORD=your-password-here',
  'API_TOKEN=<your-token>',
  'SECRET_KEY=changeme',
  'https://user:password@example.com',
  'curl -u admin https://x.example.com',
  // words and UPPER_SNAKE names standing for a credential in docs (redacting one shreds the word)
  'curl -u user:token https://x.example.com',
  'curl -u me@example.com:API_TOKEN https://x.example.com',
  'curl -u your-email:your-api-token https://x.example.com',
  'https://me:apikey@host.example.com/x',
  'git clone https://bot:MY_PASSWORD@git.example.com/y',
  // code
  'password_hash: string',
  'const token = getToken();',
  'token: string',
  'token?: string | undefined;',
  'const apiKey = process.env.API_KEY;',
  'password = getPasswordFromVault()',
  'const secret = clientSecret;',
  '  token: accessToken,',
  '  tokenKey.secret = process.env.SECRET_TOKEN ?? "password";',
  'apiToken: Promise<string>',
  'token := os.Getenv("GITHUB_TOKEN")',
  'const resetToken = crypto.randomBytes(32);',
  'const handler = (token) => token.trim()',
  'password=password',
  'client_secret=client_secret',
  'api_key=API_KEY',
  'psycopg2.connect(host=host, password=db_password)',
  'if (token === "expired-token-value") return;',
  'secret: Boolean(process.env.SECRET)',
  'if (!token.valid) token = refreshed.token!',
  'token = self.auth.token',
  // names of secrets, not secrets
  'TOKEN_URL=https://oauth2.googleapis.com/token',
  'PRIVATE_KEY_FILE=server-key.pem',
  'SECRET_NAME=prod-db-credentials',
  'secretName: my-app-tls',
  '"tokenType": "refresh_token"',
  '"passwordField": "confirm-password"',
  'API_KEY_HEADER=X-Acme-Api-Key',
  'PASSWORD_FIELD="password_confirmation"',
  // words that contain a keyword without being a secret name
  'the tokenizer: word-piece-splitting',
  'secretary: jane-doe-smith',
  'secrets: inherit-from-parent',
  'passwords: many-of-them-here',
  // short values (SPEC §3.4: `password: hunter2` stays)
  'password: hunter2',
  'TOKEN=abc1234',
  // prose and quoted passphrases with spaces are left to the other detectors
  'password: "correct horse battery"',
  "{ secret: 'keyboard cat' }",
  'password: required',
  'SECRET_ENABLED=disabled',
  // no assignment
  'git commit -m "rotate the API token"',
  'ssh://git@github.com/acme/api.git',
  'http://localhost:3000/@fs/home/dev/app.ts',
  'ls -a /tmp && http GET https://x.example.com',
];

describe('SPEC-2 §A.12 credential forms are redacted', () => {
  it.each(REDACTS)('%j', (input, output) => {
    expect(redactString(input)).toBe(output);
    expect(redactString(output)).toBe(output);
  });
});

describe('their non-secret relatives are not', () => {
  it.each(KEEPS.map((k) => [k]))('%j', (input) => {
    expect(redactString(input)).toBe(input);
  });
});

describe('JSON walk: the value of a key that names a secret', () => {
  const line = JSON.stringify({
    type: 'tool_use',
    name: 'mcp__db__connect',
    input: {
      host: 'db.internal',
      password: 'correct-horse-battery',
      apiToken: 'plainwordsonly',
      DB_PASSWORD: '12345678',
      tokenType: 'refresh_token',
      max_token: '12345678',
      apiKey: '${API_KEY}',
      token: 'two words here',
      tokenId: 'abc-def-ghi-jkl',
      secrets: 'not-one-secret',
      note: 'correct-horse-battery',
    },
    usage: { input_tokens: 12345678, cache_read_input_tokens: 87654321, output_tokens: 123 },
  });

  it('is redacted whole, and every occurrence of it elsewhere in the string values stays as the other rules leave it', () => {
    const out = JSON.parse(redactJsonLine(line)) as { input: Record<string, string>; usage: Record<string, number> };
    expect(out.input).toEqual({
      host: 'db.internal',
      password: 'REDACTED',
      apiToken: 'REDACTED',
      DB_PASSWORD: 'REDACTED',
      tokenType: 'refresh_token',
      max_token: '12345678',
      apiKey: '${API_KEY}',
      token: 'two words here',
      tokenId: 'abc-def-ghi-jkl',
      secrets: 'not-one-secret',
      // a value is judged by its own key
      note: 'correct-horse-battery',
    });
    expect(out.usage).toEqual({ input_tokens: 12345678, cache_read_input_tokens: 87654321, output_tokens: 123 });
  });

  it('is counted under secret-assignment by redactWithStats, with the same output', () => {
    const r = redactWithStats(line + '\n', 'jsonl');
    expect(r.output).toBe(redactJsonLine(line) + '\n');
    expect(r.stats['secret-assignment']).toBe(3);
  });

  it('a transcript line with only usage counts and ordinary keys comes back identical', () => {
    const usage = JSON.stringify({
      type: 'assistant',
      message: { model: 'claude-sonnet-4-5', usage: { input_tokens: 3, cache_creation_input_tokens: 12345678, cache_read_input_tokens: 87654321, output_tokens: 900, service_tier: 'standard' } },
      toolUseResult: { stdout: 'TOKEN_LIMIT=100000000 MAX_TOKENS=4096000000', stderr: '' },
    });
    expect(redactJsonLine(usage)).toBe(usage);
  });
});
