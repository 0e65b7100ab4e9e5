/**
 * Redaction throughput benchmark (SPEC §10: ≥ 25 MB/s of JSONL,
 * single-threaded). `benchRedaction()` builds a realistic agent JSONL
 * transcript in memory (the line shapes of the fixtures in
 * test/fixtures/transcripts: prompts, thinking with signatures, tool uses
 * carrying file contents, tool results, progress lines; every line with
 * fresh uuids; generated source code that mentions keys, tokens and
 * passwords the way real code does; a planted secret every ~150 lines) and
 * times `redactJsonl` over it.
 *
 * The per-string cache is cleared before each run, and generated text is
 * unique per line, so the figure is not a cache artefact.
 */
import { clearRedactionCache } from './engine.js';
import { redactJsonl } from './json.js';

export interface BenchResult {
  /** Megabytes (10^6 bytes) of JSONL per second, median run. */
  mbPerSec: number;
  /** Input size in bytes (UTF-8). */
  bytes: number;
  /** Median wall time of one full redaction, ms. */
  ms: number;
  /** Every run's time, ms. */
  runsMs: number[];
  lines: number;
  /** Lines the redaction changed. */
  changedLines: number;
}

/** Small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'request response handler server client config token key secret password user session cache ' +
  'limit rate window count retry timeout error result value data items list map index offset ' +
  'headers body status message payload options params query route path file name id build sha ' +
  'env process auth apiKey accessToken refreshToken secretKey passwordHash middleware express ' +
  'logger metrics queue worker job schedule database pool connection transaction commit rollback'
).split(' ');

const PROSE = (
  'the of and to in is that for it with as was on be at by this have from or one had not but what all ' +
  'were when we there can an your which their said if do will each about how up out them then she many ' +
  'some so these would other into has more her two like him see time could no make than first been its ' +
  'who now people my made over did down only way find use may water long little very after words called ' +
  'just where most know get through back much before go good new write our used me man too any day same ' +
  'right look think also around another came come work three word must because does part even place well'
).split(' ');

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

function hex(r: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += '0123456789abcdef'[Math.floor(r() * 16)];
  return s;
}

function alnum(r: () => number, n: number): string {
  const cs = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < n; i++) s += cs[Math.floor(r() * cs.length)];
  return s;
}

function uuid(r: () => number): string {
  return `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-a${hex(r, 3)}-${hex(r, 12)}`;
}

function ident(r: () => number): string {
  const a = pick(r, WORDS);
  const b = pick(r, WORDS);
  return a + b.charAt(0).toUpperCase() + b.slice(1);
}

function codeLine(r: () => number): string {
  const k = Math.floor(r() * 8);
  const a = ident(r);
  const b = ident(r);
  switch (k) {
    case 0:
      return `  const ${a} = await ${b}.${pick(r, WORDS)}(${pick(r, WORDS)}, ${Math.floor(r() * 1000)});`;
    case 1:
      return `  if (!${a}.${pick(r, WORDS)}) throw new Error('${pick(r, PROSE)} ${pick(r, PROSE)} ${pick(r, WORDS)}');`;
    case 2:
      return `import { ${a}, ${b} } from './${pick(r, WORDS)}/${ident(r)}.js';`;
    case 3:
      return `  ${a}.${pick(r, WORDS)} = process.env.${pick(r, WORDS).toUpperCase()}_${pick(r, WORDS).toUpperCase()} ?? '${pick(r, WORDS)}';`;
    case 4:
      return `  // ${pick(r, PROSE)} ${pick(r, PROSE)} ${pick(r, WORDS)} ${pick(r, PROSE)} ${pick(r, WORDS)} ${pick(r, PROSE)}`;
    case 5:
      return `export function ${a}(${b}: ${pick(r, ['string', 'number', 'Request', 'Options'])}): ${pick(r, ['void', 'boolean', 'Promise<void>'])} {`;
    case 6:
      return `  return { ${pick(r, WORDS)}: ${a}, ${pick(r, WORDS)}: ${b}.${pick(r, WORDS)}, key: '${pick(r, WORDS)}' };`;
    default:
      return '}';
  }
}

function codeBlock(r: () => number, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(codeLine(r));
  return out.join('\n') + '\n';
}

function prose(r: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(i % 11 === 3 ? '`' + ident(r) + '`' : pick(r, PROSE));
  return out.join(' ') + '.';
}

const PLANTED = [
  (r: () => number) => `AKIA${alnum(r, 16).toUpperCase().replace(/[0189]/g, 'Q')}`,
  (r: () => number) => `ghp_${alnum(r, 36)}`,
  (r: () => number) => `sk-ant-api03-${alnum(r, 40)}`,
  (r: () => number) => `postgres://app:${alnum(r, 20)}@db.internal:5432/app`,
  (r: () => number) => `xoxb-${Math.floor(r() * 1e12)}-${Math.floor(r() * 1e12)}-${alnum(r, 24)}`,
];

/** One transcript line (without newline). */
function line(r: () => number, n: number, sid: string, cwd: string): string {
  const base = {
    parentUuid: uuid(r),
    isSidechain: false,
    userType: 'external',
    cwd,
    sessionId: sid,
    version: '2.0.76',
    gitBranch: 'feat/rate-limit',
  };
  const ts = new Date(1770000000000 + n * 1500).toISOString();
  const usage = {
    input_tokens: Math.floor(r() * 20),
    cache_creation_input_tokens: Math.floor(r() * 5000),
    cache_read_input_tokens: Math.floor(r() * 100000),
    cache_creation: { ephemeral_5m_input_tokens: Math.floor(r() * 5000), ephemeral_1h_input_tokens: 0 },
    output_tokens: Math.floor(r() * 900),
    service_tier: 'standard',
  };
  const msgId = `msg_01${alnum(r, 22)}`;
  const toolId = `toolu_01${alnum(r, 22)}`;
  const planted = n % 150 === 7 ? ` ${pick(r, PLANTED)(r)}` : '';
  const file = `${cwd}/src/${pick(r, WORDS)}/${ident(r)}.ts`;
  const k = Math.floor(r() * 10);
  let obj: unknown;
  if (k === 0) {
    obj = { ...base, type: 'user', message: { role: 'user', content: prose(r, 25) + planted }, uuid: uuid(r), timestamp: ts };
  } else if (k === 1) {
    obj = {
      ...base,
      type: 'assistant',
      message: {
        model: 'model-sonnet-4-5-20250929', id: msgId, type: 'message', role: 'assistant',
        content: [{ type: 'thinking', thinking: prose(r, 60), signature: alnum(r, 300) + '==' }],
        stop_reason: null, stop_sequence: null, usage,
      },
      requestId: `req_011${alnum(r, 21)}`, uuid: uuid(r), timestamp: ts,
    };
  } else if (k === 2 || k === 3) {
    const content = codeBlock(r, 40 + Math.floor(r() * 120)) + (planted ? `// ${planted}\n` : '');
    obj = {
      ...base,
      type: 'assistant',
      message: {
        model: 'model-sonnet-4-5-20250929', id: msgId, type: 'message', role: 'assistant',
        content: [{ type: 'tool_use', id: toolId, name: 'Write', input: { file_path: file, content } }],
        stop_reason: 'tool_use', stop_sequence: null, usage,
      },
      requestId: `req_011${alnum(r, 21)}`, uuid: uuid(r), timestamp: ts,
    };
  } else if (k === 4 || k === 5) {
    const body = codeBlock(r, 40 + Math.floor(r() * 150));
    const numbered = body.split('\n').map((l, i) => `${String(i + 1).padStart(6)}→${l}`).join('\n');
    obj = {
      ...base,
      type: 'user',
      message: { role: 'user', content: [{ tool_use_id: toolId, type: 'tool_result', content: numbered + planted }] },
      uuid: uuid(r), timestamp: ts,
      toolUseResult: { type: 'text', file: { filePath: file, content: body, numLines: 100, startLine: 1, totalLines: 100 } },
    };
  } else if (k === 6) {
    const out = `> acme-api@1.4.0 test\n> vitest run\n\n ✓ test/${ident(r)}.test.ts (${Math.floor(r() * 20)} tests) ${Math.floor(r() * 900)}ms\n\n Test Files  ${Math.floor(r() * 9)} passed\n      Tests  ${Math.floor(r() * 90)} passed\n   Duration  2.${Math.floor(r() * 99)}s\n${planted}`;
    obj = {
      ...base,
      type: 'user',
      message: { role: 'user', content: [{ tool_use_id: toolId, type: 'tool_result', content: out }] },
      uuid: uuid(r), timestamp: ts,
      toolUseResult: { stdout: out, stderr: '', interrupted: false, isImage: false },
    };
  } else if (k === 7) {
    obj = {
      ...base,
      type: 'assistant',
      message: {
        model: 'model-sonnet-4-5-20250929', id: msgId, type: 'message', role: 'assistant',
        content: [{ type: 'text', text: prose(r, 80) + planted }],
        stop_reason: 'end_turn', stop_sequence: null, usage,
      },
      requestId: `req_011${alnum(r, 21)}`, uuid: uuid(r), timestamp: ts,
    };
  } else if (k === 8) {
    obj = {
      ...base,
      type: 'assistant',
      message: {
        model: 'model-sonnet-4-5-20250929', id: msgId, type: 'message', role: 'assistant',
        content: [{ type: 'tool_use', id: toolId, name: 'Bash', input: { command: `npm test -- ${file}${planted}`, description: 'Run the tests' } }],
        stop_reason: 'tool_use', stop_sequence: null, usage,
      },
      requestId: `req_011${alnum(r, 21)}`, uuid: uuid(r), timestamp: ts,
    };
  } else {
    obj = {
      ...base,
      type: 'progress',
      data: { type: 'hook_progress', hookEvent: 'PostToolUse', hookName: 'PostToolUse:Write', command: 'entire hooks agent post-tool-use' },
      parentToolUseID: toolId, toolUseID: toolId, uuid: uuid(r), timestamp: ts,
    };
  }
  return JSON.stringify(obj);
}

/** A realistic agent JSONL transcript (the default agent's shapes) of about `bytes` bytes (ends with a newline). */
export function buildBenchTranscript(bytes = 50 * 1024 * 1024, seed = 42): string {
  const r = rng(seed);
  const sid = uuid(r);
  const cwd = '/home/dev/projects/acme-api';
  const parts: string[] = [];
  let size = 0;
  for (let n = 0; size < bytes; n++) {
    const l = line(r, n, sid, cwd);
    parts.push(l);
    size += Buffer.byteLength(l) + 1;
  }
  return parts.join('\n') + '\n';
}

/** Times `redactJsonl` on a generated transcript; returns the median of `runs`. */
export function benchRedaction(opts: { bytes?: number; runs?: number; seed?: number; text?: string } = {}): BenchResult {
  const text = opts.text ?? buildBenchTranscript(opts.bytes ?? 50 * 1024 * 1024, opts.seed ?? 42);
  const bytes = Buffer.byteLength(text);
  const runs = Math.max(1, opts.runs ?? 3);
  const runsMs: number[] = [];
  let out = '';
  for (let i = 0; i < runs; i++) {
    clearRedactionCache();
    const t0 = process.hrtime.bigint();
    out = redactJsonl(text);
    runsMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const sorted = [...runsMs].sort((a, b) => a - b);
  const ms = sorted[Math.floor(sorted.length / 2)]!;
  const inLines = text.split('\n');
  const outLines = out.split('\n');
  let changedLines = 0;
  for (let i = 0; i < inLines.length; i++) if (inLines[i] !== outLines[i]) changedLines++;
  return { mbPerSec: bytes / 1e6 / (ms / 1000), bytes, ms, runsMs, lines: inLines.length - 1, changedLines };
}
