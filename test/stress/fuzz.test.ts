/**
 * Property-based fuzzing (issue 6 §5) with fast-check: the trailer parser,
 * the agents' transcript parsers and the JSONL redaction walk. Inputs are
 * shaped like the real thing (commit messages with comments, scissors and
 * CRLF; transcript lines with the agents' fields; JSON with odd spacing and
 * \u escapes) as well as arbitrary text.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  addCheckpointTrailer,
  removeCheckpointTrailers,
  checkpointIdsInFinalBlock,
  lastCheckpointIdInFinalBlock,
  finalTrailerBlock,
  allCheckpointIds,
  messageBody,
} from '../../src/checkpoint/trailers.js';
import { claudeCodeAgent } from '../../src/agents/claude-code/index.js';
import { geminiAgent } from '../../src/agents/gemini/index.js';
import { cursorAgent } from '../../src/agents/cursor/index.js';
import { redactString, redactJsonLine, redactJsonl, redactJsonDocument } from '../../src/redact/index.js';
import { RULE_EXAMPLES } from '../redact/rule-examples.js';
import { count } from './helpers.js';

/** `ENTIRE_FUZZ_FACTOR=10` runs ten times as many cases (for a longer local hunt). */
function runs(n: number): { numRuns: number } {
  const k = Math.max(1, Number(process.env['ENTIRE_FUZZ_FACTOR'] ?? '1') || 1);
  count('fuzz runs', n * k);
  return { numRuns: n * k };
}

// ---------------------------------------------------------------------------
// Trailers

const hexId = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 12, maxLength: 12 });
const commentChar = fc.constantFrom<string | null | undefined>('#', ';', null, undefined);
const messageLine = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 30 }) },
  fc.constantFrom('', ' ', '\t', '\r', 'Subject', 'feat: x', 'Signed-off-by: A <a@b.c>', 'Co-authored-by: B <b@c.d>', '  continued', '# comment', '; comment'),
  hexId.map((id) => `Entire-Checkpoint: ${id}`),
  hexId.map((id) => `Entire-Checkpoint:\t${id} `),
  fc.constantFrom('Entire-Checkpoint: nothex', 'entire-checkpoint: 0123456789ab', 'Entire-Checkpoint:'),
  fc.constantFrom('# ------------------------ >8 ------------------------', '; ------------------------ >8 ------------------------'),
);
const message = fc
  .tuple(fc.array(messageLine, { maxLength: 14 }), fc.constantFrom('\n', '\r\n'), fc.boolean())
  .map(([lines, eol, trailingEol]) => lines.join(eol) + (trailingEol ? eol : ''));
const anyMessage = fc.oneof(message, fc.string(), fc.string({ unit: 'binary' }));

describe('trailer parser', () => {
  it('never throws on any message and comment char', () => {
    fc.assert(
      fc.property(anyMessage, commentChar, hexId, (m, cc, id) => {
        const o = { commentChar: cc };
        messageBody(m, o);
        finalTrailerBlock(m, o);
        checkpointIdsInFinalBlock(m, o);
        lastCheckpointIdInFinalBlock(m, o);
        allCheckpointIds(m);
        removeCheckpointTrailers(m, o);
        removeCheckpointTrailers(m, { ...o, keep: id });
        addCheckpointTrailer(m, id, o);
      }),
      runs(3000),
    );
  });

  it('adding a trailer, then reading the final block, finds the id (and readers find it too)', () => {
    fc.assert(
      fc.property(anyMessage, commentChar, hexId, (m, cc, id) => {
        const o = { commentChar: cc };
        const out = addCheckpointTrailer(m, id, o);
        expect(checkpointIdsInFinalBlock(out, o), JSON.stringify({ m, cc, out })).toContain(id);
        expect(lastCheckpointIdInFinalBlock(out, o)).toBe(id);
        expect(allCheckpointIds(out)).toContain(id);
      }),
      runs(3000),
    );
  });

  it('removing leaves no id in the final block, and touches nothing outside Entire-Checkpoint lines', () => {
    fc.assert(
      fc.property(anyMessage, commentChar, (m, cc) => {
        const o = { commentChar: cc };
        const out = removeCheckpointTrailers(m, o);
        expect(checkpointIdsInFinalBlock(out, o), JSON.stringify({ m, cc, out })).toEqual([]);
        // only whole lines went away, each an Entire-Checkpoint line or a blank separator
        const inLines = m.split('\n');
        let j = 0;
        for (const l of out === '' ? [] : out.split('\n')) {
          while (j < inLines.length && inLines[j] !== l) {
            expect(/^Entire-Checkpoint:/i.test(inLines[j]!) || inLines[j]!.trim() === '', `dropped ${JSON.stringify(inLines[j])} from ${JSON.stringify(m)}`).toBe(true);
            j++;
          }
          expect(j < inLines.length, JSON.stringify({ m, out })).toBe(true);
          j++;
        }
      }),
      runs(3000),
    );
  });

  it('a message with two trailer paragraphs (e.g. copied by -C) keeps no old id in the final block', () => {
    const m = 'subject\n\nEntire-Checkpoint: aaaaaaaaaaaa\n\nEntire-Checkpoint: bbbbbbbbbbbb\n';
    expect(checkpointIdsInFinalBlock(removeCheckpointTrailers(m))).toEqual([]);
    expect(checkpointIdsInFinalBlock(addCheckpointTrailer(removeCheckpointTrailers(m), 'cccccccccccc'))).toEqual(['cccccccccccc']);
  });

  it('remove then add yields exactly the new id in the final block', () => {
    fc.assert(
      fc.property(anyMessage, commentChar, hexId, (m, cc, id) => {
        const o = { commentChar: cc };
        const out = addCheckpointTrailer(removeCheckpointTrailers(m, o), id, o);
        expect(checkpointIdsInFinalBlock(out, o), JSON.stringify({ m, cc, out })).toEqual([id]);
      }),
      runs(2000),
    );
  });
});

// ---------------------------------------------------------------------------
// Transcript parsers

const str = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'Task', 'write_file', 'replace', 'StrReplace', '/abs/path/a.ts', 'rel/b.ts', ''));
const junk = fc.oneof(fc.jsonValue({ maxDepth: 3 }), str, fc.constant(null));
const block = fc.record(
  {
    type: fc.oneof(fc.constantFrom('text', 'tool_use', 'tool_result', 'image', 'thinking'), junk),
    text: junk,
    name: fc.oneof(str, junk),
    id: junk,
    input: fc.oneof(fc.record({ file_path: fc.oneof(str, junk), notebook_path: junk, path: junk, content: junk }, { requiredKeys: [] }), junk),
    content: junk,
  },
  { requiredKeys: [] },
);
const usage = fc.record({ input_tokens: junk, output_tokens: fc.oneof(fc.nat(), junk), cache_read_input_tokens: junk, cache_creation_input_tokens: junk }, { requiredKeys: [] });
const claudeLine = fc.record(
  {
    type: fc.oneof(fc.constantFrom('user', 'assistant', 'progress', 'system', 'summary'), junk),
    uuid: fc.oneof(fc.uuid(), junk),
    parentUuid: junk,
    timestamp: junk,
    message: fc.oneof(
      fc.record(
        {
          id: fc.oneof(fc.constantFrom('m1', 'm2', 'm3'), junk),
          role: junk,
          content: fc.oneof(fc.array(fc.oneof(block, junk), { maxLength: 4 }), str, junk),
          usage: fc.oneof(usage, junk),
        },
        { requiredKeys: [] },
      ),
      junk,
    ),
    toolUseResult: fc.oneof(fc.record({ agentId: fc.oneof(str, junk) }, { requiredKeys: [] }), junk),
  },
  { requiredKeys: [] },
);
const jsonlText = fc
  .array(fc.oneof({ weight: 4, arbitrary: claudeLine.map((l) => JSON.stringify(l)) }, fc.string({ maxLength: 40 }), fc.jsonValue().map((v) => JSON.stringify(v)), fc.constantFrom('', '{', '{"type":"assistant","message":', '\u0000')), { maxLength: 12 })
  .chain((lines) => fc.constantFrom('\n', '\r\n').map((eol) => lines.join(eol)))
  .chain((t) => fc.boolean().map((end) => (end ? t + '\n' : t)));

const geminiMessage = fc.record(
  {
    id: junk,
    type: fc.oneof(fc.constantFrom('user', 'gemini', 'info', 'error'), junk),
    content: fc.oneof(str, fc.array(fc.oneof(fc.record({ text: junk }, { requiredKeys: [] }), junk), { maxLength: 3 }), junk),
    toolCalls: fc.oneof(fc.array(fc.record({ name: fc.oneof(str, junk), args: fc.oneof(fc.record({ file_path: junk, path: junk, filename: junk }, { requiredKeys: [] }), junk) }, { requiredKeys: [] }), { maxLength: 3 }), junk),
    tokens: fc.oneof(fc.record({ input: junk, output: junk, cached: junk }, { requiredKeys: [] }), junk),
  },
  { requiredKeys: [] },
);
const geminiText = fc.oneof(
  fc.record({ sessionId: junk, messages: fc.oneof(fc.array(fc.oneof(geminiMessage, junk), { maxLength: 6 }), junk) }, { requiredKeys: [] }).map((d) => JSON.stringify(d)),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string(),
);

describe('transcript parsers never throw', () => {
  for (const agent of [claudeCodeAgent, cursorAgent]) {
    it(`${agent.key}: JSONL shaped and arbitrary, from any offset`, () => {
      fc.assert(
        fc.property(fc.oneof(jsonlText, fc.string(), fc.string({ unit: 'binary' })), fc.option(fc.integer({ min: -3, max: 20 })), (text, from) => {
          const a = agent.analyzeTranscript(text, from === null ? {} : { from });
          expect(Array.isArray(a.modifiedFiles)).toBe(true);
          expect(Array.isArray(a.prompts)).toBe(true);
        }),
        runs(1500),
      );
    });
  }

  it('gemini: documents shaped and arbitrary, from any offset', () => {
    fc.assert(
      fc.property(geminiText, fc.option(fc.integer({ min: -3, max: 10 })), (text, from) => {
        try {
          const a = geminiAgent.analyzeTranscript(text, from === null ? {} : { from });
          expect(Array.isArray(a.modifiedFiles)).toBe(true);
        } catch (e) {
          // a document that is not a Gemini transcript may be refused, but only with our own error
          expect((e as { code?: string }).code, String(e)).toBeTypeOf('string');
        }
      }),
      runs(1500),
    );
  });
});

// ---------------------------------------------------------------------------
// JSONL redaction walk

const SECRETS = Object.values(RULE_EXAMPLES)
  .map((e) => e.pos)
  .slice(0, 60);
const secretText = fc.oneof(fc.constantFrom(...SECRETS), fc.tuple(fc.string({ maxLength: 8 }), fc.constantFrom(...SECRETS), fc.string({ maxLength: 8 })).map(([a, s, b]) => `${a} ${s} ${b}`));
const leaf = fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: 20 }) }, secretText, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (Object.is(d, -0) ? 0 : d)), fc.boolean(), fc.constant(null));
const value = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('id', 'uuid', 'tool_use_id', 'signature', 'type', 'content', 'text', 'identify', 'signatures', 'data')), tie('v'), { maxKeys: 4 }),
  ),
})).v;

/** JSON text of `v` with random spacing and random \u escapes: the walk must keep every byte it does not rewrite. */
function oddJson(v: unknown, rnd: () => number): string {
  const sp = () => [' ', '', '  ', '\t', ''][Math.floor(rnd() * 5)]!;
  const s = (x: string) =>
    '"' +
    [...x]
      .map((ch) => {
        const plain = JSON.stringify(ch).slice(1, -1);
        if (rnd() < 0.15) return [...ch].map((c) => (c.length === 1 ? '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0') : c)).join('');
        if (rnd() < 0.05) {
          const code = ch.codePointAt(0)!;
          if (code < 0x10000) return '\\u' + code.toString(16).toUpperCase().padStart(4, '0');
        }
        return plain;
      })
      .join('') +
    '"';
  const go = (x: unknown): string => {
    if (typeof x === 'string') return s(x);
    if (Array.isArray(x)) return `[${sp()}${x.map((y) => go(y)).join(`${sp()},${sp()}`)}${sp()}]`;
    if (x !== null && typeof x === 'object') return `{${sp()}${Object.entries(x).map(([k, y]) => `${s(k)}${sp()}:${sp()}${go(y)}`).join(`,${sp()}`)}${sp()}}`;
    return JSON.stringify(x);
  };
  return go(v);
}

function hasFinding(v: unknown, key = ''): boolean {
  const k = key.toLowerCase();
  if (typeof v === 'string') return !(key === 'signature' || k.endsWith('id') || k.endsWith('ids')) && redactString(v) !== v;
  if (Array.isArray(v)) return v.some((x) => hasFinding(x, ''));
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const t = typeof o['type'] === 'string' ? (o['type'] as string) : '';
    if (t.startsWith('image') || t === 'base64') return false;
    return Object.entries(o).some(([kk, x]) => hasFinding(x, kk));
  }
  return false;
}

function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => strings(x, out));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) (out.push(k), strings(x, out));
  return out;
}

describe('JSONL redaction walk', () => {
  it('odd spacing and \\u escapes: never throws, idempotent, unchanged without a finding, output parses, keys kept', () => {
    fc.assert(
      fc.property(value, fc.integer(), (v, seed) => {
        let x = seed | 0 || 1;
        const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) | 0) >>> 8) / 0x1000000;
        const line = oddJson(v, rnd);
        expect(JSON.parse(line)).toEqual(v);
        const out = redactJsonLine(line);
        const parsed = JSON.parse(out) as unknown;
        expect(redactJsonLine(out), 'not idempotent').toBe(out);
        if (!hasFinding(v)) expect(out, 'changed a line without a finding').toBe(line);
        // structure and keys survive; only string values change
        const keysOf = (y: unknown): string => JSON.stringify(y, (_k, val: unknown) => (typeof val === 'string' ? '' : val));
        expect(keysOf(parsed)).toBe(keysOf(v));
      }),
      runs(1500),
    );
  });

  it('no planted secret survives in a decoded value, however it is escaped', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SECRETS), fc.integer(), fc.constantFrom('content', 'text', 'input', 'stdout'), (pos, seed, key) => {
        let x = seed | 0 || 7;
        const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) | 0) >>> 8) / 0x1000000;
        const entry = Object.values(RULE_EXAMPLES).find((e) => e.pos === pos)!;
        const line = oddJson({ type: 'assistant', message: { [key]: [{ type: 'text', text: pos }] } }, rnd);
        const out = redactJsonLine(line);
        for (const s of strings(JSON.parse(out))) expect(s, `secret of ${line}`).not.toContain(entry.secret);
        expect(out).not.toContain(entry.secret);
      }),
      runs(800),
    );
  });

  it('whole JSONL texts: never throws, same line count, idempotent, parseable lines stay parseable', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(value.map((v) => JSON.stringify(v)), fc.string({ maxLength: 30 }), secretText, fc.constant('')), { maxLength: 8 }), (lines) => {
        const text = lines.join('\n');
        const out = redactJsonl(text);
        const outLines = out.split('\n');
        expect(outLines.length).toBe(text.split('\n').length);
        expect(redactJsonl(out)).toBe(out);
        for (const [i, l] of text.split('\n').entries()) {
          let ok = true;
          try {
            JSON.parse(l);
          } catch {
            ok = false;
          }
          if (ok) JSON.parse(outLines[i]!);
          if (redactString(l) === l && !hasFindingText(l)) expect(outLines[i]).toBe(l);
        }
      }),
      runs(800),
    );
  });

  it('a one-document transcript (Gemini) walks as one value: parses, idempotent', () => {
    fc.assert(
      fc.property(value, (v) => {
        const doc = JSON.stringify({ messages: [{ type: 'user', content: v }] }, null, 2);
        const out = redactJsonDocument(doc);
        JSON.parse(out);
        expect(redactJsonDocument(out)).toBe(out);
        if (!hasFinding(v)) expect(out).toBe(doc);
      }),
      runs(500),
    );
  });
});

function hasFindingText(line: string): boolean {
  try {
    return hasFinding(JSON.parse(line));
  } catch {
    return redactString(line) !== line;
  }
}
