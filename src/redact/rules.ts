/**
 * Pattern rules (SPEC §3.1 (2)), written from the published formats of each
 * credential. gitleaks' default rule set is the coverage reference: the same
 * families are covered, the expressions are our own.
 *
 * Linear-time discipline (checked by test/redact/linear.test.ts with 1 MB of
 * near-miss text per rule):
 * - every quantifier is bounded ({m,n}, never `*`, `+` or `{m,}`);
 * - a rule that starts with a character class starts with a lookbehind
 *   (`(?<![...])`) so a long run is tried from its first character only;
 * - no nested quantifiers over overlapping classes.
 *
 * Adding a rule: append an entry, give it keywords (lowercase literals that
 * every match contains), add a positive and a negative example to
 * test/redact/rules.test.ts, and bump RULE_COUNT's expectation there.
 */
import type { Rule } from './types.js';

/** Left boundary: not preceded by a word character. */
const B = String.raw`(?<![A-Za-z0-9_])`;
/** Right boundary: not followed by a word character. */
const E = String.raw`(?![A-Za-z0-9_])`;
/** `<key><suffix> = value` glue: key suffix, optional (escaped) quote, operator, optional quote. */
const ASSIGN = String.raw`[\w.-]{0,25}(?:\\?['"])?\s{0,3}(?::=|=>|=|:)\s{0,5}(?:\\?['"\x60])?`;
/** Where an assigned value may end: quote, whitespace, separators, a JSON escape, end of text. */
const VALUE_END = String.raw`(?=\\?['"\x60]|[\s;,)}\]&]|\\[nrt]|$)`;
const UUID = String.raw`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`;

/** `<key>… = <value>`, secret = value. */
function assign(key: string, value: string, end = E): string {
  return `${key}${ASSIGN}(${value})${end}`;
}

/** Placeholder values that are never secrets. */
const PLACEHOLDER = /^(?:x{3,}|\*{3,}|\.{3,}|#{3,}|-{3,}|_{3,})$|^\$\{|^\$\(|^\{\{|^<[^>]*>?$|^%[sd(]/i;
/** Placeholder passwords in example URLs and connection strings. */
const URL_PLACEHOLDER = /^(?:pass(?:word|wd)?|pwd|secret|changeme|user(?:name)?|admin|root|test|postgres|mysql|example|guest|x+|\*+|\.+|%s|\$\{.*|\$\(.*|\{\{.*|<.*>?|\[.*\]?)$/i;
/** Identifiers, dotted paths and plain words: code, not credentials. */
const IDENTIFIER = /^[A-Za-z_$][A-Za-z_$.\-/]*$/;
const GENERIC_STOPWORDS = ['example', 'placeholder', 'your_', 'your-', 'yourkey', 'yourtoken', 'changeme', 'redacted', 'dummy', 'sample', '_here'];

/**
 * Words that stand for a credential in documentation and examples (`curl -u user:token`,
 * `https://me:API_TOKEN@host`): redacting one would shred the word everywhere in the text.
 */
const WORD_PLACEHOLDER = /^(?:token|api[_-]?(?:key|token)|access[_-]?token|auth[_-]?token|key|secret|pw|passphrase|credentials?)$/i;
/** UPPER_SNAKE names standing for a value (`curl -u me:API_TOKEN`). */
const ENV_PLACEHOLDER = /^[A-Z][A-Z0-9]{0,30}(?:_[A-Z0-9]{1,30}){1,5}$/;
/** Shell and template references, never secrets: `$VAR`, `${VAR}`, `$(cmd)`, `${{ expr }}`, `%VAR%`. */
const VAR_REF = /^\$[A-Za-z_{(]|^%[A-Za-z_][A-Za-z0-9_]{0,100}%$/;

/**
 * The rest of a command line up to a flag: lazily, across `\` line continuations
 * and escapes, ending in whitespace (or nothing, for a flag right after the command).
 */
const CMD_REST = String.raw`(?:(?:[^\n\\]|\\\r?\n|\\[^]){0,300}?\s)??`;
/** `user:pass` after a flag: quoted (the password may hold spaces), bare, or `token:` with an empty password. */
const USER_PASS = String.raw`(?:\\?['"][^:'"\s\\]{0,100}:([^'"\n\\]{1,200})(?=\\?['"])|[^:\s'"\\]{0,100}:([^\s'"\\]{1,200})|\\?['"]?([^:\s'"\\]{8,200}):(?=\\?['"]|\s|$))`;

// ── Secret-named assignments (SPEC-2 §A.12) ───────────────────────────────
// `<name> = <value>` where the name contains PASSWORD, PASSWD, PASSPHRASE,
// SECRET, TOKEN, API_KEY/APIKEY or PRIVATE_KEY: the value is redacted whatever
// its shape (8+ characters), except where it is shown not to be a secret:
// a reference, a placeholder, a path or URL, a word that names a secret
// instead of holding one, a count under a TOKEN name, or (unquoted, outside
// shell/.env/flag contexts) code. See docs/redaction.md "Secret-named assignments".

/** The name keywords; a plural (`tokens`, `secrets`) names a count or a collection. */
const SECRET_NAME = String.raw`(?:passw(?:or)?d|passphrase|secret(?!ar)|token(?!i[sz])|api[_-]?key|private[_-]?key)(?!s)`;
/** Keyword, rest of the name, optional closing quote of a quoted key, operator (not `==`, `::`). */
const SECRET_NAME_GLUE = String.raw`${SECRET_NAME}[\w.-]{0,40}(?:\\?['"])?[ \t]{0,3}(?::=|=>|=(?!=)|:(?![:=]))[ \t]{0,5}`;
/** A quoted value: no whitespace, no backslash, up to the closing (possibly escaped) quote. */
const SECRET_QUOTED = String.raw`\\?['"\x60]([^\s'"\x60\\]{8,200})(?=\\?['"\x60])`;
/** An unquoted value: up to whitespace, a separator or a closing bracket; `(`, `[`, `{`, `<` end nothing, so calls and generics never match. */
const SECRET_BARE = String.raw`([^\s'"\x60\\(){}\[\]<>;,|&]{8,200})(?=[\s'"\x60;,|&)}\]]|\\[nrt'"\\]|$)`;

/** Last words of names that describe a secret instead of holding it (`TOKEN_URL`, `secretName`, `PASSWORD_MIN_LENGTH`). */
const SECRET_METADATA_WORDS = new Set(
  ('id ids name names type types kind arn ref refs path paths file files dir url uri urls endpoint host port header headers ' +
    'field fields param prefix suffix format hint label env var variable mode version issuer audience scope scopes ' +
    'algorithm alg provider store backend manager service location region source hash digest policy strategy ' +
    'count limit max min len length size ttl timeout expiry expires expiration lifetime age rounds iterations bits ' +
    'bytes budget window interval duration ms sec secs seconds minutes hours days enabled disabled required').split(' '),
);
/** Words that are never secret values. */
const LITERAL_WORD = /^(?:true|false|yes|no|on|off|null|nil|none|undefined|disabled|enabled|required|optional|default|inherit|unset|empty|unknown|missing)$/i;
/** Paths, URLs (their credentials are url-credentials' job), key file names, ARNs. */
const PATH_OR_URL = /^(?:~|\.{1,2})?\/|:\/\/|^arn:|^[\w.-]{1,100}\.(?:pem|key|crt|cer|der|p12|pfx|jks|json|ya?ml|toml|ini|conf|cfg|env|txt|gpg|asc|pub|enc|age)$/i;
/** Words made of letters that name a secret (`access_token`, `clientSecret`, `DB_PASSWORD`): a reference to one, not one. */
const NAMES_A_SECRET = /passw|secret|token|api[_-]?key|private[_-]?key|passphrase|credential/i;
/** A number (a count or a limit under a TOKEN name). */
const NUMBER = /^[+-]?\d[\d_.,]{0,200}$/;
/** Bare identifier (no digit) or dotted member path, with `!`/`?.`: code, not a value. */
const CODE = /^!{0,2}[A-Za-z_$][\w$]{0,200}(?:\??\.[A-Za-z_$][\w$]{0,200}){0,20}!?$/;
/** Environment-variable names: shell, .env, Dockerfile, docker-compose and CI `env:` maps. */
const ENV_NAME = /^_{0,3}[A-Z][A-Z0-9_]{0,200}$/;
/** What may precede a name that starts a shell or .env/INI line. */
const LINE_START = /(?:^|[\n;&|]|\\n)[ \t]{0,20}(?:(?:export|set|declare|local|readonly|ENV)[ \t]{1,5})?$/;

function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

/** Value-only checks of secret-assignment. */
function secretAssignmentValue(v: string): boolean {
  if (LITERAL_WORD.test(v) || PATH_OR_URL.test(v)) return false;
  // letters and separators only, naming a secret: `password_confirmation`, `refresh_token`
  if (/^[A-Za-z_][A-Za-z_.-]{0,200}$/.test(v) && NAMES_A_SECRET.test(v)) return false;
  return true;
}

/** `[A-Za-z0-9_.-]`, as a character code. */
function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 45 && c <= 57 && c !== 47) || c === 95;
}

function hasDigitChar(v: string): boolean {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

/**
 * Context checks of secret-assignment: the whole name, the operator, quoted or not.
 * Runs on every match (most are code in source files), so it works on
 * positions in the input and allocates only once the value may be a secret.
 */
function secretAssignmentContext(m: RegExpExecArray): boolean {
  const quoted = m[1] !== undefined;
  const v = (quoted ? m[1] : m[2])!;
  const s = m.input;
  const at = m.index;
  // the match is name, glue (closing quote of a key, operator, spaces, opening quote), value
  const headEnd = at + m[0].length - v.length;
  let nameEnd = at;
  while (nameEnd < headEnd && isNameChar(s.charCodeAt(nameEnd))) nameEnd++;
  const glueLen = headEnd - nameEnd;
  const glue0 = s.charCodeAt(nameEnd);
  // unquoted code (`token: accessToken`, `apiKey = process.env.API_KEY`) is a value only
  // where everything after the operator is one: shell/.env `=`, CLI flags, `env:` maps
  const code = !quoted && CODE.test(v) && (v.includes('.') || !hasDigitChar(v));
  const eqGlue = glueLen === 1 && glue0 === 61; /* `=` */
  if (code && !eqGlue) {
    // `:` then only spaces and tabs (at most 5), and a value without `.`
    if (glue0 !== 58 || glueLen > 6 || v.includes('.')) return false;
    for (let k = nameEnd + 1; k < headEnd; k++) {
      const c = s.charCodeAt(k);
      if (c !== 32 && c !== 9) return false;
    }
  }
  let start = at;
  const floor = Math.max(0, start - 64);
  while (start > floor && isNameChar(s.charCodeAt(start - 1))) start--;
  const name = s.slice(start, nameEnd);
  if (code) {
    const literal =
      ENV_NAME.test(name) || (eqGlue && (name.startsWith('-') || LINE_START.test(s.slice(Math.max(0, start - 40), start))));
    if (!literal) return false;
  }
  return nameHoldsValue(name, v);
}

/** The name holds the value (is not `TOKEN_URL`, `secretName`…; a number under a TOKEN-only name is a count). */
function nameHoldsValue(name: string, v: string): boolean {
  const words = nameWords(name);
  if (words.length > 0 && SECRET_METADATA_WORDS.has(words[words.length - 1]!)) return false;
  // `max_token: 100000000`: a count; a number under a password or secret name is a secret
  if (NUMBER.test(v) && !/passw|secret|api[_-]?key|private[_-]?key|passphrase/i.test(name)) return false;
  return true;
}

const SECRET_KEY_NAME = new RegExp(SECRET_NAME, 'i');

/** A JSON object key that names a secret (`password`, `apiToken`, `DB_PASSWORD`; not `input_tokens`). */
export function isSecretNamedKey(key: string): boolean {
  return key.length <= 100 && SECRET_KEY_NAME.test(key);
}

/**
 * The JSON walk's form of secret-assignment: the string value `v` of the key
 * `key` (which isSecretNamedKey accepted) is a secret, judged as the quoted
 * value of `"key": "v"` in text would be.
 */
export function isSecretKeyedValue(key: string, v: string): boolean {
  if (v.length < 8 || v.length > 200 || /[\s'"\x60\\]/.test(v) || /^(?:REDACTED)+$/.test(v)) return false;
  if (VAR_REF.test(v) || PLACEHOLDER.test(v) || URL_PLACEHOLDER.test(v)) return false;
  const lower = v.toLowerCase();
  if (GENERIC_STOPWORDS.some((w) => lower.includes(w))) return false;
  return secretAssignmentValue(v) && nameHoldsValue(key, v);
}

function hasDigit(s: string): boolean {
  return /[0-9]/.test(s);
}

/** `Basic <base64>` is only a credential when it decodes to `user:password`. */
function isBasicCredential(b64: string): boolean {
  try {
    const dec = Buffer.from(b64, 'base64').toString('latin1');
    return /^[\x20-\x7e]{1,200}:[\x20-\x7e]{1,500}$/.test(dec);
  } catch {
    return false;
  }
}

/**
 * PEM / OpenSSH / PGP private-key blocks, also inside JSON text with `\n`
 * escapes or line-number prefixes. A block without its END line (a truncated
 * tool output) is redacted from the header through the base64 lines that follow.
 * Linear: the END search position only moves forward.
 */
const PEM_HEADER = /-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_FOOTER = /-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----/g;
function findPrivateKeys(s: string): string[] {
  const out: string[] = [];
  PEM_HEADER.lastIndex = 0;
  PEM_FOOTER.lastIndex = 0;
  let footer: RegExpExecArray | null = null;
  let noMoreFooters = false;
  for (let h = PEM_HEADER.exec(s); h !== null; h = PEM_HEADER.exec(s)) {
    const headerEnd = h.index + h[0].length;
    if (!noMoreFooters && (footer === null || footer.index < headerEnd)) {
      PEM_FOOTER.lastIndex = Math.max(PEM_FOOTER.lastIndex, headerEnd);
      footer = PEM_FOOTER.exec(s);
      if (footer === null) noMoreFooters = true;
    }
    let end: number;
    if (!noMoreFooters && footer !== null) {
      end = footer.index + footer[0].length;
    } else {
      end = truncatedBodyEnd(s, headerEnd);
    }
    out.push(s.slice(h.index, end));
    PEM_HEADER.lastIndex = end;
  }
  return out;
}

/** End of the base64 body lines after a header when no END line follows. */
function truncatedBodyEnd(s: string, from: number): number {
  const re = /(?:\r?\n|\\r?\\n)(?:[ \t]{0,12}\d{1,6}(?:\u2192|\\u2192|\t))?([A-Za-z0-9+/=]{1,200}|(?:Proc-Type|DEK-Info|Comment):[^\n\\]{0,200})(?=\r?\n|\\[rn]|$)/y;
  let end = from;
  re.lastIndex = from;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) end = re.lastIndex;
  return end;
}

export const RULES: Rule[] = [
  // ── AWS ────────────────────────────────────────────────────────────────
  { id: 'aws-access-key-id', family: 'aws', keywords: ['akia', 'asia', 'abia', 'acca', 'a3t'],
    regex: String.raw`${B}((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})`, entropy: 3, allowlist: [/EXAMPLE$/] },
  { id: 'aws-secret-access-key', family: 'aws', keywords: ['aws'], flags: 'i',
    regex: assign(String.raw`aws_?(?:secret_?(?:access_?)?key|secret)`, String.raw`[A-Za-z0-9/+=]{40}`, String.raw`(?![A-Za-z0-9/+=])`) },
  { id: 'aws-session-token', family: 'aws', keywords: ['session_token', 'sessiontoken', 'security-token'], flags: 'i',
    regex: assign(String.raw`(?:aws_?session_?token|x-amz-security-token)`, String.raw`[A-Za-z0-9/+=]{100,3000}`, String.raw`(?![A-Za-z0-9/+=])`) },
  { id: 'aws-bedrock-api-key', family: 'aws', keywords: ['absk'],
    regex: String.raw`${B}(ABSK[A-Za-z0-9+/]{109,269}={0,2})` },
  { id: 'aws-mws-key', family: 'aws', keywords: ['amzn.mws.'],
    regex: String.raw`amzn\.mws\.${UUID}` },

  // ── Google / GCP ───────────────────────────────────────────────────────
  { id: 'gcp-api-key', family: 'google', keywords: ['aiza'],
    regex: String.raw`${B}(AIza[\w-]{35})(?![\w-])` },
  { id: 'gcp-oauth-client-secret', family: 'google', keywords: ['gocspx-'],
    regex: String.raw`GOCSPX-[\w-]{28}` },
  { id: 'google-oauth-access-token', family: 'google', keywords: ['ya29.'],
    regex: String.raw`${B}(ya29\.[\w-]{30,2000})` },
  { id: 'google-oauth-refresh-token', family: 'google', keywords: ['1//0'],
    regex: String.raw`(?<![\w/])(1//0[\w-]{40,500})` },

  // ── Azure ──────────────────────────────────────────────────────────────
  { id: 'azure-ad-client-secret', family: 'azure', keywords: ['q~'],
    regex: String.raw`(?<![A-Za-z0-9_~.])([A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34})(?![A-Za-z0-9_~.-])` },
  { id: 'azure-storage-account-key', family: 'azure', keywords: ['accountkey'], flags: 'i',
    regex: String.raw`AccountKey\s{0,3}=\s{0,3}([A-Za-z0-9+/]{86}==)` },
  { id: 'azure-shared-access-key', family: 'azure', keywords: ['sharedaccesskey', 'sharedaccesssignature'], flags: 'i',
    regex: String.raw`SharedAccess(?:Key|Signature)\s{0,3}=\s{0,3}([A-Za-z0-9+/%]{42,200}=?)` },
  { id: 'azure-sas-signature', family: 'azure', keywords: ['sig='],
    regex: String.raw`[?&]sig=([A-Za-z0-9%+/]{40,150}(?:%3D|=){0,2})` },
  { id: 'azure-keyed-secret', family: 'azure', keywords: ['azure'], flags: 'i',
    regex: assign(String.raw`azure[\w.-]{0,30}(?:key|secret|token|password)`, String.raw`[A-Za-z0-9+/=_~.-]{32,100}`), entropy: 3 },

  // ── Other clouds and platforms ─────────────────────────────────────────
  { id: 'alibaba-access-key-id', family: 'alibaba', keywords: ['ltai'],
    regex: String.raw`${B}(LTAI[A-Za-z0-9]{20})(?![A-Za-z0-9])` },
  { id: 'digitalocean-pat', family: 'digitalocean', keywords: ['dop_v1_'],
    regex: String.raw`dop_v1_[a-f0-9]{64}` },
  { id: 'digitalocean-oauth-token', family: 'digitalocean', keywords: ['doo_v1_', 'dor_v1_'],
    regex: String.raw`do[or]_v1_[a-f0-9]{64}` },
  { id: 'heroku-api-key', family: 'heroku', keywords: ['hrku-aa'],
    regex: String.raw`HRKU-AA[\w-]{58}` },
  { id: 'heroku-api-key-legacy', family: 'heroku', keywords: ['heroku'], flags: 'i',
    regex: assign('heroku', UUID) },
  { id: 'flyio-token', family: 'flyio', keywords: ['fo1_', 'fm1a_', 'fm1r_', 'fm2_'],
    regex: String.raw`${B}(fo1_[\w-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,1000}={0,3}|fm2_[A-Za-z0-9+/]{100,1000}={0,3})` },
  { id: 'cloudflare-origin-ca-key', family: 'cloudflare', keywords: ['v1.0-'],
    regex: String.raw`v1\.0-[a-f0-9]{24}-[a-f0-9]{146}` },
  { id: 'cloudflare-api-key', family: 'cloudflare', keywords: ['cloudflare', 'cf_api'], flags: 'i',
    regex: assign(String.raw`(?:cloudflare|cf_api)`, String.raw`[\w-]{37,40}`), entropy: 3 },
  { id: 'doppler-token', family: 'doppler', keywords: ['dp.pt.', 'dp.st.', 'dp.sa.', 'dp.ct.'],
    regex: String.raw`dp\.(?:pt|st|sa|ct)\.[A-Za-z0-9]{40,44}` },
  { id: 'vault-service-token', family: 'hashicorp', keywords: ['hvs.'],
    regex: String.raw`${B}(hvs\.[\w-]{90,120})` },
  { id: 'vault-batch-token', family: 'hashicorp', keywords: ['hvb.'],
    regex: String.raw`${B}(hvb\.[\w-]{138,300})` },
  { id: 'terraform-cloud-token', family: 'hashicorp', keywords: ['atlasv1'], flags: 'i',
    regex: String.raw`${B}([a-z0-9]{14}\.atlasv1\.[a-z0-9_=-]{60,70})` },
  { id: 'pulumi-token', family: 'pulumi', keywords: ['pul-'],
    regex: String.raw`${B}(pul-[a-f0-9]{40})` },
  { id: 'databricks-token', family: 'databricks', keywords: ['dapi'], anchored: true,
    regex: String.raw`${B}(dapi[a-f0-9]{32}(?:-\d)?)(?![a-f0-9])` },
  { id: 'planetscale-token', family: 'planetscale', keywords: ['pscale_'],
    regex: String.raw`pscale_(?:tkn|pw|oauth)_[\w=.-]{32,64}` },
  { id: 'supabase-token', family: 'supabase', keywords: ['sbp_', 'sb_secret_'],
    regex: String.raw`${B}(sbp_[a-f0-9]{40}|sb_secret_[\w-]{31,64})` },
  { id: 'vercel-token', family: 'vercel', keywords: ['vercel'], flags: 'i',
    regex: assign('vercel', String.raw`[A-Za-z0-9]{24}`) },
  { id: 'netlify-token', family: 'netlify', keywords: ['netlify'], flags: 'i',
    regex: assign('netlify', String.raw`[\w-]{40,46}`) },
  { id: 'tailscale-key', family: 'tailscale', keywords: ['tskey-'],
    regex: String.raw`tskey-(?:api|auth|client|webhook|scim)-[A-Za-z0-9]{8,20}-[A-Za-z0-9]{20,40}` },
  { id: 'openshift-token', family: 'openshift', keywords: ['sha256~'],
    regex: String.raw`sha256~[\w-]{43}` },
  { id: 'render-api-key', family: 'render', keywords: ['rnd_'],
    regex: String.raw`${B}(rnd_[A-Za-z0-9]{32})${E}` },

  // ── Source hosting ─────────────────────────────────────────────────────
  { id: 'github-pat', family: 'github', keywords: ['ghp_'], regex: String.raw`ghp_[A-Za-z0-9]{36}` },
  { id: 'github-oauth-token', family: 'github', keywords: ['gho_'], regex: String.raw`gho_[A-Za-z0-9]{36}` },
  { id: 'github-app-token', family: 'github', keywords: ['ghu_', 'ghs_'], regex: String.raw`(?:ghu|ghs)_[A-Za-z0-9]{36}` },
  { id: 'github-refresh-token', family: 'github', keywords: ['ghr_'], regex: String.raw`ghr_[A-Za-z0-9]{36}` },
  { id: 'github-fine-grained-pat', family: 'github', keywords: ['github_pat_'], regex: String.raw`github_pat_\w{82}` },
  { id: 'gitlab-pat', family: 'gitlab', keywords: ['glpat-'], regex: String.raw`glpat-[\w.-]{20,300}` },
  { id: 'gitlab-deploy-token', family: 'gitlab', keywords: ['gldt-'], regex: String.raw`gldt-[\w-]{20,100}` },
  { id: 'gitlab-runner-token', family: 'gitlab', keywords: ['glrt-', 'gr1348941'], regex: String.raw`(?:glrt-|GR1348941)[\w.-]{20,100}` },
  { id: 'gitlab-pipeline-trigger-token', family: 'gitlab', keywords: ['glptt-'], regex: String.raw`glptt-[0-9a-f]{40}` },
  { id: 'gitlab-ci-job-token', family: 'gitlab', keywords: ['glcbt-'], regex: String.raw`glcbt-[0-9a-zA-Z]{1,5}_[\w-]{20,100}` },
  { id: 'gitlab-other-token', family: 'gitlab', keywords: ['gloas-', 'glsoat-', 'glffct-', 'glft-', 'glimt-', 'glagent-'],
    regex: String.raw`(?:gloas|glsoat|glffct|glft|glimt|glagent)-[\w-]{20,100}` },
  { id: 'bitbucket-app-password', family: 'bitbucket', keywords: ['atbb'], regex: String.raw`${B}(ATBB[A-Za-z0-9_=.-]{32})` },
  { id: 'bitbucket-client-secret', family: 'bitbucket', keywords: ['bitbucket'], flags: 'i',
    regex: assign('bitbucket', String.raw`[a-z0-9=_-]{64}`), entropy: 3 },
  { id: 'atlassian-api-token', family: 'atlassian', keywords: ['atatt3'], regex: String.raw`ATATT3[A-Za-z0-9_=-]{186}` },
  { id: 'atlassian-keyed-token', family: 'atlassian', keywords: ['atlassian', 'confluence', 'jira'], flags: 'i',
    regex: assign(String.raw`(?:atlassian|confluence|jira)`, String.raw`[A-Za-z0-9]{24}`), entropy: 3 },
  { id: 'sourcegraph-token', family: 'sourcegraph', keywords: ['sgp_'],
    regex: String.raw`sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}` },

  // ── AI providers ───────────────────────────────────────────────────────
  { id: 'anthropic-api-key', family: 'anthropic', keywords: ['sk-ant-'],
    regex: String.raw`sk-ant-[a-z]{2,8}\d{2}-[\w-]{20,300}` },
  { id: 'openai-api-key', family: 'openai', keywords: ['t3blbkfj'],
    regex: String.raw`${B}(sk-(?:[a-z]{1,10}-)?[\w-]{0,200}T3BlbkFJ[\w-]{16,200})` },
  { id: 'openai-project-key', family: 'openai', keywords: ['sk-proj-', 'sk-svcacct-', 'sk-admin-'],
    regex: String.raw`sk-(?:proj|svcacct|admin)-[\w-]{40,300}` },
  { id: 'openrouter-api-key', family: 'openrouter', keywords: ['sk-or-v1-'], regex: String.raw`sk-or-v1-[a-f0-9]{64}` },
  { id: 'huggingface-token', family: 'huggingface', keywords: ['hf_'], regex: String.raw`${B}(hf_[A-Za-z]{34})${E}` },
  { id: 'huggingface-org-token', family: 'huggingface', keywords: ['api_org_'], regex: String.raw`${B}(api_org_[A-Za-z]{34})${E}` },
  { id: 'cohere-api-key', family: 'cohere', keywords: ['cohere', 'co_api_key'], flags: 'i',
    regex: assign(String.raw`(?:cohere|co_api_key)`, String.raw`[A-Za-z0-9]{40}`), entropy: 3 },
  { id: 'perplexity-api-key', family: 'perplexity', keywords: ['pplx-'], regex: String.raw`pplx-[A-Za-z0-9]{48}` },
  { id: 'groq-api-key', family: 'groq', keywords: ['gsk_'], regex: String.raw`${B}(gsk_[A-Za-z0-9]{52})` },
  { id: 'xai-api-key', family: 'xai', keywords: ['xai-'], regex: String.raw`${B}(xai-[A-Za-z0-9]{80})` },
  { id: 'replicate-token', family: 'replicate', keywords: ['r8_'], regex: String.raw`${B}(r8_[A-Za-z0-9]{37})${E}` },
  { id: 'mistral-api-key', family: 'mistral', keywords: ['mistral'], flags: 'i',
    regex: assign('mistral', String.raw`[A-Za-z0-9]{32}`), entropy: 3 },
  { id: 'langsmith-api-key', family: 'langsmith', keywords: ['lsv2_'], regex: String.raw`lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}` },
  { id: 'pinecone-api-key', family: 'pinecone', keywords: ['pcsk_'], regex: String.raw`${B}(pcsk_[A-Za-z0-9_]{50,120})` },

  // ── Payments ───────────────────────────────────────────────────────────
  { id: 'stripe-secret-key', family: 'stripe', keywords: ['sk_live_', 'sk_test_', 'sk_prod_', 'rk_live_', 'rk_test_', 'rk_prod_'],
    regex: String.raw`${B}((?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,247})` },
  { id: 'stripe-webhook-secret', family: 'stripe', keywords: ['whsec_'], regex: String.raw`whsec_[A-Za-z0-9+/=]{32,100}` },
  { id: 'square-access-token', family: 'square', keywords: ['eaaa', 'sq0atp-'], regex: String.raw`${B}(EAAA[\w-]{60}|sq0atp-[\w-]{22})` },
  { id: 'square-secret', family: 'square', keywords: ['sq0csp-'], regex: String.raw`sq0csp-[\w-]{43}` },
  { id: 'paypal-braintree-token', family: 'paypal', keywords: ['access_token$'],
    regex: String.raw`access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}` },
  { id: 'braintree-private-key', family: 'paypal', keywords: ['braintree'], flags: 'i',
    regex: assign(String.raw`braintree[\w.-]{0,20}(?:private|secret)`, String.raw`[a-f0-9]{32}`) },
  { id: 'flutterwave-secret-key', family: 'flutterwave', keywords: ['flwseck'], regex: String.raw`FLWSECK(?:_TEST)?-[a-h0-9]{32}-X` },
  { id: 'plaid-access-token', family: 'plaid', keywords: ['access-sandbox-', 'access-development-', 'access-production-'],
    regex: String.raw`access-(?:sandbox|development|production)-${UUID}` },
  { id: 'shippo-token', family: 'shippo', keywords: ['shippo_'], regex: String.raw`shippo_(?:live|test)_[a-fA-F0-9]{40}` },
  { id: 'duffel-token', family: 'duffel', keywords: ['duffel_'], regex: String.raw`duffel_(?:test|live)_[A-Za-z0-9_=-]{43}` },
  { id: 'easypost-api-key', family: 'easypost', keywords: ['ezak', 'eztk'], regex: String.raw`${B}(EZ[AT]K[A-Za-z0-9]{54})` },
  { id: 'shopify-token', family: 'shopify', keywords: ['shpat_', 'shpss_', 'shpca_', 'shppa_'], regex: String.raw`shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}` },

  // ── Messaging and email ────────────────────────────────────────────────
  { id: 'slack-bot-token', family: 'slack', keywords: ['xoxb-'], regex: String.raw`xoxb-\d{10,13}-\d{10,13}[A-Za-z0-9-]{0,100}` },
  { id: 'slack-user-token', family: 'slack', keywords: ['xoxp-', 'xoxe-'], regex: String.raw`xox[pe](?:-\d{10,13}){3}-[A-Za-z0-9-]{28,34}` },
  { id: 'slack-app-token', family: 'slack', keywords: ['xapp-'], regex: String.raw`xapp-\d-[A-Z0-9]{1,20}-\d{1,20}-[a-z0-9]{1,100}`, flags: 'i' },
  { id: 'slack-config-token', family: 'slack', keywords: ['xoxe.xox'], regex: String.raw`xoxe\.xox[bp]-\d-[A-Z0-9]{163,166}` },
  { id: 'slack-legacy-token', family: 'slack', keywords: ['xoxo-', 'xoxs-', 'xoxa-', 'xoxr-'], regex: String.raw`xox[osar]-(?:\d{1,20}-){1,3}[A-Za-z0-9]{8,64}` },
  { id: 'slack-webhook-url', family: 'slack', keywords: ['hooks.slack.com'],
    regex: String.raw`hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}` },
  { id: 'discord-webhook-url', family: 'discord', keywords: ['/api/webhooks/'],
    regex: String.raw`discord(?:app)?\.com/api/webhooks/\d{1,30}/[\w-]{60,90}` },
  { id: 'discord-bot-token', family: 'discord', keywords: ['discord', 'bot'], flags: 'i',
    regex: String.raw`(?<![\w-])([MNO][A-Za-z\d_-]{23,25}\.[\w-]{6}\.[\w-]{27,38})(?![\w-])` },
  { id: 'discord-keyed-secret', family: 'discord', keywords: ['discord'], flags: 'i',
    regex: assign('discord', String.raw`[a-f0-9]{64}|[A-Za-z0-9_-]{32}`), entropy: 3 },
  { id: 'telegram-bot-token', family: 'telegram', keywords: [':a'],
    regex: String.raw`(?<![0-9])([0-9]{5,16}:A[\w-]{34})(?![\w-])` },
  { id: 'twilio-api-key', family: 'twilio', keywords: ['sk'], anchored: true, regex: String.raw`${B}(SK[0-9a-fA-F]{32})(?![0-9A-Za-z])` },
  { id: 'sendgrid-api-key', family: 'sendgrid', keywords: ['sg.'], regex: String.raw`${B}(SG\.[\w-]{22}\.[\w-]{43})` },
  { id: 'mailgun-api-key', family: 'mailgun', keywords: ['key-'], regex: String.raw`(?<![A-Za-z0-9_-])((?:pub)?key-[a-f0-9]{32})(?![a-f0-9])` },
  { id: 'mailgun-keyed-secret', family: 'mailgun', keywords: ['mailgun'], flags: 'i',
    regex: assign('mailgun', String.raw`[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}`) },
  { id: 'mailchimp-api-key', family: 'mailchimp', keywords: ['-us'], regex: String.raw`(?<![a-f0-9])([a-f0-9]{32}-us\d{1,2})(?!\d)` },
  { id: 'brevo-api-key', family: 'brevo', keywords: ['xkeysib-', 'xsmtpsib-'], regex: String.raw`x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}` },
  { id: 'mailersend-token', family: 'mailersend', keywords: ['mlsn.'], regex: String.raw`mlsn\.[a-f0-9]{64}` },
  { id: 'resend-api-key', family: 'resend', keywords: ['re_'], anchored: true, regex: String.raw`${B}(re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24})${E}` },
  { id: 'postmark-token', family: 'postmark', keywords: ['postmark'], flags: 'i', regex: assign('postmark', UUID) },
  { id: 'msteams-webhook-url', family: 'microsoft-teams', keywords: ['webhook.office.com'], flags: 'i',
    regex: String.raw`(?<![a-z0-9-])[a-z0-9-]{1,60}\.webhook\.office\.com/webhookb2/[a-z0-9-]{36}@[a-z0-9-]{36}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9-]{36}` },

  // ── Package registries and CI ──────────────────────────────────────────
  { id: 'npm-access-token', family: 'npm', keywords: ['npm_'], regex: String.raw`${B}(npm_[A-Za-z0-9]{36})${E}` },
  { id: 'npmrc-auth-token', family: 'npm', keywords: ['_authtoken', '_auth'],
    regex: String.raw`:_auth(?:Token)?\s{0,3}=\s{0,3}['"]?([\w.+/=-]{20,500})` },
  { id: 'pypi-token', family: 'pypi', keywords: ['pypi-ageichlwas5vcmc', 'pypi-agendgvzdc5wexbplm9yzw'],
    regex: String.raw`pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[\w-]{50,1000}` },
  { id: 'rubygems-token', family: 'rubygems', keywords: ['rubygems_'], regex: String.raw`rubygems_[a-f0-9]{48}` },
  { id: 'nuget-api-key', family: 'nuget', keywords: ['oy2'], regex: String.raw`${B}(oy2[a-z0-9]{43})(?![a-z0-9])` },
  { id: 'clojars-token', family: 'clojars', keywords: ['clojars_'], flags: 'i', regex: String.raw`CLOJARS_[a-z0-9]{60}` },
  { id: 'crates-io-token', family: 'crates-io', keywords: ['cio'], regex: String.raw`${B}(cio[A-Za-z0-9]{32})${E}`, entropy: 3 },
  { id: 'artifactory-token', family: 'jfrog', keywords: ['akcp', 'cmvmdgtu'], regex: String.raw`${B}(AKCp[A-Za-z0-9]{69}|cmVmdGtu[A-Za-z0-9]{56})${E}` },
  { id: 'docker-hub-token', family: 'docker', keywords: ['dckr_pat_', 'dckr_oat_'], regex: String.raw`dckr_(?:pat|oat)_[\w-]{27,64}` },
  { id: 'circleci-token', family: 'circleci', keywords: ['ccipat_'], regex: String.raw`CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}` },
  { id: 'buildkite-token', family: 'buildkite', keywords: ['bkua_'], regex: String.raw`bkua_[a-f0-9]{40}` },
  { id: 'octopus-deploy-api-key', family: 'octopus-deploy', keywords: ['api-'], regex: String.raw`${B}(API-[A-Z0-9]{26})${E}` },
  { id: 'sonar-token', family: 'sonar', keywords: ['squ_', 'sqp_', 'sqa_'], regex: String.raw`${B}((?:squ|sqp|sqa)_[a-f0-9]{40})${E}` },
  { id: 'prefect-api-key', family: 'prefect', keywords: ['pnu_'], regex: String.raw`${B}(pnu_[A-Za-z0-9]{36})${E}` },

  // ── Observability ──────────────────────────────────────────────────────
  { id: 'datadog-api-key', family: 'datadog', keywords: ['datadog', 'dd_api', 'dd_app', 'dd-api', 'dd-app'], flags: 'i',
    regex: assign(String.raw`(?:datadog|dd[_-]api|dd[_-]app)`, String.raw`[a-f0-9]{32}|[a-f0-9]{40}`) },
  { id: 'sentry-org-token', family: 'sentry', keywords: ['sntrys_'], regex: String.raw`sntrys_eyJpYXQiO[A-Za-z0-9+/=_-]{60,600}` },
  { id: 'sentry-user-token', family: 'sentry', keywords: ['sntryu_'], regex: String.raw`sntryu_[a-f0-9]{64}` },
  { id: 'sentry-dsn', family: 'sentry', keywords: ['sentry.io'], flags: 'i',
    regex: String.raw`https?://([a-f0-9]{32})(?::[a-f0-9]{32})?@[a-z0-9.-]{1,100}sentry\.io` },
  { id: 'newrelic-api-key', family: 'newrelic', keywords: ['nrak-', 'nrjs-', 'nrii-'], regex: String.raw`NRAK-[A-Z0-9]{27}|NRJS-[a-f0-9]{19}|NRII-[\w-]{32}` },
  { id: 'newrelic-license-key', family: 'newrelic', keywords: ['nral'], regex: String.raw`${B}([a-f0-9]{36}NRAL)${E}` },
  { id: 'grafana-service-account-token', family: 'grafana', keywords: ['glsa_'], regex: String.raw`glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}` },
  { id: 'grafana-cloud-token', family: 'grafana', keywords: ['glc_'], regex: String.raw`${B}(glc_[A-Za-z0-9+/]{32,400}={0,2})` },
  { id: 'grafana-api-key', family: 'grafana', keywords: ['eyjrijoi'], regex: String.raw`eyJrIjoi[A-Za-z0-9]{70,400}={0,2}` },
  { id: 'dynatrace-token', family: 'dynatrace', keywords: ['dt0c01.'], regex: String.raw`dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}` },

  // ── SaaS tools ─────────────────────────────────────────────────────────
  { id: 'linear-api-key', family: 'linear', keywords: ['lin_api_', 'lin_oauth_'], regex: String.raw`lin_api_[A-Za-z0-9]{40}|lin_oauth_[a-f0-9]{64}` },
  { id: 'notion-token', family: 'notion', keywords: ['ntn_', 'secret_'], anchored: true, regex: String.raw`${B}(ntn_[A-Za-z0-9]{46}|secret_[A-Za-z0-9]{43})${E}` },
  { id: 'airtable-pat', family: 'airtable', keywords: ['pat'], anchored: true, regex: String.raw`${B}(pat[A-Za-z0-9]{14}\.[a-f0-9]{64})` },
  { id: 'figma-token', family: 'figma', keywords: ['figd_'], regex: String.raw`figd_[\w-]{40}` },
  { id: 'postman-api-key', family: 'postman', keywords: ['pmak-'], regex: String.raw`PMAK-[a-f0-9]{24}-[a-f0-9]{34}` },
  { id: 'dropbox-token', family: 'dropbox', keywords: ['sl.'], regex: String.raw`${B}(sl\.(?:u\.)?[A-Za-z0-9_=-]{130,1000})` },
  { id: 'contentful-token', family: 'contentful', keywords: ['cfpat-'], regex: String.raw`CFPAT-[\w-]{43}` },
  { id: 'typeform-token', family: 'typeform', keywords: ['tfp_'], regex: String.raw`tfp_[A-Za-z0-9_.=-]{59}` },
  { id: 'adobe-client-secret', family: 'adobe', keywords: ['p8e-'], regex: String.raw`${B}(p8e-[A-Za-z0-9]{32})${E}` },
  { id: 'frameio-token', family: 'frameio', keywords: ['fio-u-'], regex: String.raw`fio-u-[\w=-]{64}` },
  { id: 'readme-api-key', family: 'readme', keywords: ['rdme_'], regex: String.raw`rdme_[a-z0-9]{70}` },
  { id: 'infracost-api-key', family: 'infracost', keywords: ['ico-'], regex: String.raw`${B}(ico-[A-Za-z0-9]{32})${E}` },
  { id: 'intra42-secret', family: 'intra42', keywords: ['s-s4t2'], regex: String.raw`s-s4t2(?:ud|af)-[a-f0-9]{64}` },
  { id: 'settlemint-token', family: 'settlemint', keywords: ['sm_aat_', 'sm_pat_', 'sm_sat_'], regex: String.raw`sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}` },
  { id: 'definednetworking-token', family: 'definednetworking', keywords: ['dnkey-'], regex: String.raw`dnkey-[\w=-]{26}-[\w=-]{52}` },
  { id: 'harness-token', family: 'harness', keywords: ['pat.', 'sat.'], regex: String.raw`${B}((?:pat|sat)\.[\w-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20})` },
  { id: 'hubspot-token', family: 'hubspot', keywords: ['pat-na1-', 'pat-eu1-'], regex: String.raw`pat-(?:na|eu)1-${UUID}` },
  { id: 'mapbox-secret-token', family: 'mapbox', keywords: ['sk.eyj'], regex: String.raw`${B}(sk\.eyJ[\w-]{50,400}\.[\w-]{20,100})` },
  { id: 'facebook-access-token', family: 'facebook', keywords: ['eaam', 'eaac'], flags: 'i', regex: String.raw`${B}(EAA[MC][a-z0-9]{100,500})${E}` },
  { id: 'algolia-api-key', family: 'algolia', keywords: ['algolia'], flags: 'i', regex: assign('algolia', String.raw`[a-z0-9]{32}`), entropy: 3 },
  { id: 'okta-token', family: 'okta', keywords: ['okta'], flags: 'i', regex: assign('okta', String.raw`00[\w=-]{40}`) },
  { id: 'zendesk-token', family: 'zendesk', keywords: ['zendesk'], flags: 'i', regex: assign('zendesk', String.raw`[A-Za-z0-9]{40}`), entropy: 3 },
  { id: 'snyk-token', family: 'snyk', keywords: ['snyk'], flags: 'i', regex: assign('snyk', UUID) },
  { id: 'ngrok-token', family: 'ngrok', keywords: ['ngrok'], flags: 'i', regex: assign('ngrok', String.raw`[A-Za-z0-9]{20,30}_[A-Za-z0-9]{20,30}`) },
  { id: 'onepassword-service-token', family: '1password', keywords: ['ops_eyj'], regex: String.raw`ops_eyJ[A-Za-z0-9+/]{250,2000}={0,3}` },
  { id: 'age-secret-key', family: 'age', keywords: ['age-secret-key-1'], regex: String.raw`AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}` },

  // ── Private keys and tokens of general shape ───────────────────────────
  { id: 'private-key', family: 'private-key', keywords: ['private key'], find: findPrivateKeys },
  { id: 'jwt', family: 'jwt', keywords: ['eyj'], anchored: true,
    regex: String.raw`(?<![\w-])(eyJ[\w-]{10,4000}\.eyJ[\w-]{10,20000}\.[\w-]{10,4000})(?![\w-])` },

  // ── Databases ──────────────────────────────────────────────────────────
  { id: 'postgres-url', family: 'postgres', keywords: ['postgres://', 'postgresql://', 'psql://', 'postgis://'], flags: 'i',
    regex: String.raw`(?:postgres(?:ql)?|psql|postgis)://[^:/?#@\s'"\x60\\]{1,200}:([^@/?#\s'"\x60\\]{1,300})@`, allowlist: [URL_PLACEHOLDER] },
  { id: 'mysql-url', family: 'mysql', keywords: ['mysql://', 'mariadb://', 'mysql2://', 'mysqlx://'], flags: 'i',
    regex: String.raw`(?:mysql[2x]?|mariadb)://[^:/?#@\s'"\x60\\]{1,200}:([^@/?#\s'"\x60\\]{1,300})@`, allowlist: [URL_PLACEHOLDER] },
  { id: 'mongodb-url', family: 'mongodb', keywords: ['mongodb://', 'mongodb+srv://'], flags: 'i',
    regex: String.raw`mongodb(?:\+srv)?://[^:/?#@\s'"\x60\\]{1,200}:([^@/?#\s'"\x60\\]{1,300})@`, allowlist: [URL_PLACEHOLDER] },
  { id: 'redis-url', family: 'redis', keywords: ['redis://', 'rediss://'], flags: 'i',
    regex: String.raw`rediss?://[^:/?#@\s'"\x60\\]{0,200}:([^@/?#\s'"\x60\\]{1,300})@`, allowlist: [URL_PLACEHOLDER] },
  { id: 'amqp-url', family: 'amqp', keywords: ['amqp://', 'amqps://'], flags: 'i',
    regex: String.raw`amqps?://[^:/?#@\s'"\x60\\]{1,200}:([^@/?#\s'"\x60\\]{1,300})@`, allowlist: [URL_PLACEHOLDER] },
  { id: 'mssql-url', family: 'mssql', keywords: ['mssql://', 'sqlserver://'], flags: 'i',
    regex: String.raw`(?:mssql|sqlserver)://[^:/?#@\s'"\x60\\]{1,200}:([^@/?#\s'"\x60\\]{1,300})@`, allowlist: [URL_PLACEHOLDER] },
  { id: 'jdbc-password', family: 'jdbc', keywords: ['jdbc:'], flags: 'i',
    regex: String.raw`jdbc:[a-z0-9]{2,20}:[^\s'"\x60]{0,300}?[;?&:](?:password|pwd)=([^;&\s'"\x60\\]{1,200})`, allowlist: [URL_PLACEHOLDER] },
  { id: 'jdbc-url-credentials', family: 'jdbc', keywords: ['jdbc:'], flags: 'i',
    regex: String.raw`jdbc:[a-z0-9]{2,20}:(?:[a-z0-9]{1,20}:)?(?://[^:/?#@\s'"\x60\\]{1,200}:|[a-z]{1,10}:[^/\s@'"\x60:]{1,100}/)([^@/\s'"\x60\\]{1,200})@`, allowlist: [URL_PLACEHOLDER] },
  { id: 'connection-string-password', family: 'connection-string', keywords: ['password', 'pwd'], flags: 'i', anchored: true, assignment: true,
    regex: String.raw`(?:(?<=;\s{0,3})(?:password|pwd)\s{0,3}=\s{0,3}([^;'"\s\\]{4,200})|(?:password|pwd)\s{0,3}=\s{0,3}([^;'"\s\\]{4,200});)`, allowlist: [URL_PLACEHOLDER] },
  // `user:pass@` after any scheme (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`):
  // ssh://, ftp://, git+https://, mongodb+srv://…; the user may be empty (`https://:token@`).
  // Anchored on `://`, the scheme is checked behind it.
  { id: 'url-credentials', family: 'url-credentials', keywords: ['://'], flags: 'i', anchored: true,
    regex: String.raw`(?<=(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,40})://[^:/?#@\s'"\x60\\]{0,200}:([^@/?#\s'"\x60\\]{3,300})@`, allowlist: [URL_PLACEHOLDER, VAR_REF, WORD_PLACEHOLDER, ENV_PLACEHOLDER], stopwords: GENERIC_STOPWORDS },

  // ── HTTP authorization ─────────────────────────────────────────────────
  { id: 'auth-bearer-token', family: 'http-authorization', keywords: ['bearer'], flags: 'i',
    regex: String.raw`\bBearer\s{1,5}([A-Za-z0-9._~+/-]{16,4000}={0,3})(?![A-Za-z0-9._~+/=-])`, validate: hasDigit, entropy: 3 },
  { id: 'auth-basic-credentials', family: 'http-authorization', keywords: ['basic'], flags: 'i',
    regex: String.raw`\bBasic\s{1,5}([A-Za-z0-9+/]{8,1000}={0,3})(?![A-Za-z0-9+/=])`, validate: isBasicCredential },
  { id: 'auth-header-token', family: 'http-authorization', keywords: ['authorization'], flags: 'i',
    regex: String.raw`Authorization(?:\\?['"])?\s{0,3}[:=]\s{0,3}(?:\\?['"])?(?:(?:Token|Bot|ApiKey|Key|SSWS|Digest)\s{1,5})?([A-Za-z0-9._~+/=-]{16,4000})`, validate: hasDigit },
  // `-u/--user user:pass` (and `-U/--proxy-user`) anywhere in a curl command: right after
  // `curl`, glued (`-uuser:pass`), bundled (`-su`), `--user=`, quoted, across `\` line
  // continuations; the password is the secret, or the user when the password is empty (`-u sk_…:`).
  { id: 'curl-user-credentials', family: 'http-authorization', keywords: ['curl'],
    regex: String.raw`(?<![\w-])curl(?:\.exe)?\s${CMD_REST}(?:-[sSfLkivIgnNjq0-6]{0,6}[uU][ \t]{0,5}|--(?:proxy-)?user(?:=|[ \t]{1,5}))${USER_PASS}`,
    allowlist: [URL_PLACEHOLDER, VAR_REF, WORD_PLACEHOLDER, ENV_PLACEHOLDER], stopwords: GENERIC_STOPWORDS },
  { id: 'wget-password', family: 'http-authorization', keywords: ['wget'],
    regex: String.raw`(?<![\w-])wget(?:\.exe)?\s${CMD_REST}--(?:http-|ftp-|proxy-)?password(?:=|[ \t]{1,5})(?:\\?['"]([^'"\n\\]{1,200})(?=\\?['"])|([^\s'"\\]{1,200}))`,
    allowlist: [URL_PLACEHOLDER, VAR_REF, WORD_PLACEHOLDER, ENV_PLACEHOLDER], stopwords: GENERIC_STOPWORDS },
  // httpie (`http`, `https`) and xh: `-a user:pass`, `--auth user:pass`, `--auth=user:pass`
  // (the command and a space are the keywords: `-a` alone is in every `acme-api` path)
  { id: 'httpie-auth', family: 'http-authorization', keywords: ['http ', 'https ', 'xh ', 'xhs '],
    regex: String.raw`(?<![\w/.-])(?:https?|xhs?) ${CMD_REST}(?:-a[ \t]{0,5}|--auth(?:=|[ \t]{1,5}))${USER_PASS}`,
    allowlist: [URL_PLACEHOLDER, VAR_REF, WORD_PLACEHOLDER, ENV_PLACEHOLDER], stopwords: GENERIC_STOPWORDS },

  // ── Command-line and file formats ──────────────────────────────────────
  { id: 'sshpass-password', family: 'cli-password', keywords: ['sshpass'], regex: String.raw`sshpass\s{1,5}-p\s{0,5}['"]?([^\s'"]{3,200})`, allowlist: [URL_PLACEHOLDER] },
  { id: 'cli-secret-flag', family: 'cli-password', keywords: ['--password', '--passwd', '--token', '--api-key', '--api-token', '--secret', '--client-secret'], flags: 'i',
    regex: String.raw`--(?:password|passwd|token|api-key|api-token|secret|client-secret)(?:=|\s{1,5})['"]?([^\s'"\\-][^\s'"\\]{5,200})`, validate: hasDigit },
  { id: 'netrc-password', family: 'netrc', keywords: ['machine'],
    regex: String.raw`machine\s{1,10}[^\s]{1,200}\s{1,10}login\s{1,10}[^\s]{1,200}\s{1,10}password\s{1,10}([^\s'"]{1,200})`, allowlist: [URL_PLACEHOLDER] },

  // ── Generic assignments ────────────────────────────────────────────────
  { id: 'generic-api-key', family: 'generic', flags: 'i',
    keywords: ['key', 'token', 'secret', 'passw', 'pwd', 'credential', 'creds', 'passphrase'], anchored: true, assignment: true,
    // api_key, access_token, client_secret… are matched from their last word
    regex: String.raw`(?:key|token|secret|passw(?:or)?d|pwd|passphrase|credentials?|creds)${ASSIGN}([A-Za-z0-9_.=+/~-]{10,200})${VALUE_END}`,
    entropy: 3.5, allowlist: [IDENTIFIER, PLACEHOLDER], stopwords: GENERIC_STOPWORDS },
  { id: 'generic-password', family: 'generic', flags: 'i',
    keywords: ['passw', 'pwd', 'passphrase', 'secret'], anchored: true, assignment: true,
    regex: String.raw`(?:passw(?:or)?d|pwd|passphrase|secret)${ASSIGN}(?:([A-Za-z0-9_.=+/~!@#$%^&*?-]{8,200})${VALUE_END}|([^'"\s\\\x60]{8,200})(?=\\?['"\x60]))`,
    entropy: 3, allowlist: [IDENTIFIER, PLACEHOLDER], stopwords: GENERIC_STOPWORDS },
  // SPEC-2 §A.12: a secret-named assignment's value, whatever its shape (see the helpers above)
  { id: 'secret-assignment', family: 'generic', flags: 'i', anchored: true, assignment: true,
    keywords: ['password', 'passwd', 'passphrase', 'secret', 'token', 'api_key', 'apikey', 'api-key', 'private_key', 'privatekey', 'private-key'],
    regex: String.raw`${SECRET_NAME_GLUE}(?:${SECRET_QUOTED}|${SECRET_BARE})`,
    allowlist: [VAR_REF, PLACEHOLDER, URL_PLACEHOLDER], stopwords: GENERIC_STOPWORDS,
    validate: secretAssignmentValue, validateMatch: secretAssignmentContext },
];

/** Number of pattern rules (a test pins it). */
export const RULE_COUNT = RULES.length;

/** Distinct credential families covered. */
export const FAMILIES: readonly string[] = [...new Set(RULES.map((r) => r.family))];
