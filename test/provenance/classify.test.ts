/**
 * SPEC-3 §B.2's line classes (src/provenance/classify.ts), pure: plain data in (blame's lines,
 * links, agent edits, hunks), a class and evidence per line out. Mirrors the conformance cases
 * P1–P3, C.2's foreign links, uncommitted lines, partial edits and overrides, plus properties.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentEdit } from '../../src/agents/edits.js';
import {
  aiShare,
  type BlamedLine,
  type CommitInfo,
  classifyLines,
  type EditRecord,
  type LinkedSession,
  summarize,
  ZERO_COMMIT,
} from '../../src/provenance/classify.js';

const C1 = '1'.repeat(40);
const C2 = '2'.repeat(40);
const CP = 'a1b2c3d4e5f6';
const PATH = 'src/hello.go';

let seq = 0;
function edit(turn: number, tool: string, kind: EditRecord['kind'], added: string[], removed: string[] = [], more: Partial<EditRecord> = {}): EditRecord {
  seq++;
  return { turn, promptIndex: turn - 1, position: seq * 10, toolUseId: `toolu_${seq}`, tool, path: PATH, kind, added, removed, ...more };
}

/** Blame lines all from one commit, numbered as in that commit's version. */
function blame(commit: string, text: readonly string[]): BlamedLine[] {
  return text.map((t, i) => ({ line: i + 1, text: t, commit, origLine: i + 1 }));
}

function session(edits: readonly EditRecord[], more: Partial<LinkedSession> = {}): LinkedSession {
  return { sessionId: 'sess-1', agent: 'claude-code', model: 'claude-sonnet-4', transcript: 'ok', edits, ...more };
}

function linked(sessions: LinkedSession[], hunks?: CommitInfo['hunks']): CommitInfo {
  return hunks ? { links: [{ kind: 'checkpoint', checkpointId: CP, sessions }], hunks } : { links: [{ kind: 'checkpoint', checkpointId: CP, sessions }] };
}

const AGENT_FILE = ['package hello', '', 'func Hello() string {', '\treturn "hello"', '}', '', 'func Bye() {}'];
// the person changed two agent lines (4 and 7) and added one (3) before committing
const COMMITTED = ['package hello', '', '// Hello greets.', 'func Hello() string {', '\treturn "hello, world"', '}', '', 'func Bye() { log() }'];

describe('SPEC-3 §B.2 classes', () => {
  it('P1: untouched agent lines ai with turn 1, the two edited lines mixed, the added line human', () => {
    const write = edit(1, 'Write', 'write', AGENT_FILE);
    const out = classifyLines({
      path: PATH,
      lines: blame(C1, COMMITTED),
      commits: { [C1]: linked([session([write])], [{ start: 1, lines: COMMITTED }]) },
    });
    expect(out.map((l) => l.class)).toEqual(['ai', 'ai', 'human', 'ai', 'mixed', 'ai', 'ai', 'mixed']);
    expect(out[0]).toMatchObject({
      turn: 1,
      prompt_index: 0,
      tool: 'Write',
      tool_use_id: write.toolUseId,
      checkpoint_id: CP,
      session_id: 'sess-1',
      agent: 'claude-code',
      model: 'claude-sonnet-4',
    });
    expect(out[0]!.evidence).toEqual({ kind: 'agent-edit', text: `turn 1: Write ${write.toolUseId} added this line` });
    expect(out[4]).toMatchObject({ class: 'mixed', agent_text: '\treturn "hello"', turn: 1, tool_use_id: write.toolUseId });
    expect(out[4]!.evidence.kind).toBe('agent-line-edited');
    expect(out[4]!.evidence.text).toContain('"\\treturn \\"hello\\""');
    expect(out[2]!.evidence).toEqual({ kind: 'no-agent-edit', text: `linked (${CP}) but in no agent edit of ${PATH}` });
    expect(summarize(out)).toEqual({ ai: 5, mixed: 2, human: 1, unknown: 0, uncommitted: 0 });
    expect(aiShare(summarize(out))).toBeCloseTo(7 / 8);
  });

  it("P1 without the commit's hunks: blame's runs stand for them, same classes", () => {
    const out = classifyLines({
      path: PATH,
      lines: blame(C1, COMMITTED),
      commits: new Map([[C1, linked([session([edit(1, 'Write', 'write', AGENT_FILE)])])]]),
    });
    expect(out.map((l) => l.class)).toEqual(['ai', 'ai', 'human', 'ai', 'mixed', 'ai', 'ai', 'mixed']);
  });

  it('mixed needs the same hunk position: an edited line moved elsewhere is human', () => {
    // the edited "return" line now sits after the added comment at the end, not at its place
    const moved = ['package hello', '', 'func Hello() string {', '}', '', 'func Bye() {}', '\treturn "hello, world"'];
    const out = classifyLines({ path: PATH, lines: blame(C1, moved), commits: { [C1]: linked([session([edit(1, 'Write', 'write', AGENT_FILE)])]) } });
    expect(out[6]!.class).toBe('human');
  });

  it('P2: a later human-only commit changing one line makes it human with that commit', () => {
    const lines = blame(C1, AGENT_FILE);
    lines[3] = { line: 4, text: '\treturn "bonjour"', commit: C2, origLine: 4 };
    const out = classifyLines({
      path: PATH,
      lines,
      commits: { [C1]: linked([session([edit(1, 'Write', 'write', AGENT_FILE)])]), [C2]: { links: [], hunks: [{ start: 4, lines: ['\treturn "bonjour"'] }] } },
    });
    expect(out.map((l) => l.class)).toEqual(['ai', 'ai', 'ai', 'human', 'ai', 'ai', 'ai']);
    expect(out[3]).toMatchObject({ commit: C2, evidence: { kind: 'no-agent-link', text: `commit ${C2.slice(0, 7)} has no agent link` } });
    expect(out[3]!.turn).toBeUndefined();
  });

  it("P3: the checkpoint's transcript removed → that commit's lines unknown, naming why", () => {
    for (const [status, kind] of [
      ['missing', 'transcript-missing'],
      ['unreadable', 'transcript-unreadable'],
      ['over-budget', 'transcript-over-budget'],
    ] as const) {
      const out = classifyLines({ path: PATH, lines: blame(C1, COMMITTED), commits: { [C1]: linked([session([], { transcript: status })]) } });
      expect(out.every((l) => l.class === 'unknown')).toBe(true);
      expect(out[0]).toMatchObject({ evidence: { kind }, checkpoint_id: CP, session_id: 'sess-1', agent: 'claude-code' });
    }
  });

  it("two sessions on one checkpoint, one transcript gone: the readable one's lines still ai, the rest unknown (not human)", () => {
    const out = classifyLines({
      path: PATH,
      lines: blame(C1, COMMITTED),
      commits: { [C1]: linked([session([edit(1, 'Write', 'write', AGENT_FILE)]), session([], { sessionId: 'sess-2', transcript: 'missing' })]) },
    });
    expect(out.map((l) => l.class)).toEqual(['ai', 'ai', 'unknown', 'ai', 'mixed', 'ai', 'ai', 'mixed']);
    expect(out[2]).toMatchObject({ session_id: 'sess-2', evidence: { kind: 'transcript-missing' } });
  });

  it('linked, but edits of another file or of turns the checkpoint does not cover give no ai', () => {
    const other = edit(1, 'Write', 'write', AGENT_FILE, [], { path: 'src/other.go' });
    const early = edit(1, 'Write', 'write', AGENT_FILE, [], { position: 5 });
    const out = classifyLines({
      path: PATH,
      lines: blame(C1, AGENT_FILE),
      commits: { [C1]: linked([session([other, early], { covers: { fromPosition: 6 } })]) },
    });
    expect(out.every((l) => l.class === 'human' && l.evidence.kind === 'no-agent-edit')).toBe(true);
    const byTurn = classifyLines({ path: PATH, lines: blame(C1, AGENT_FILE), commits: { [C1]: linked([session([early], { covers: { turns: [2, 3] } })]) } });
    expect(byTurn.every((l) => l.class === 'human')).toBe(true);
    const covered = classifyLines({
      path: PATH,
      lines: blame(C1, AGENT_FILE),
      commits: { [C1]: linked([session([early], { covers: { turns: [1], fromPosition: 0, toPosition: 6 } })]) },
    });
    expect(covered.every((l) => l.class === 'ai')).toBe(true);
  });

  it('a later agent edit overrides an earlier one of the same line: evidence names the later edit', () => {
    const write = edit(1, 'Write', 'write', AGENT_FILE);
    const fix = edit(3, 'apply_patch', 'patch', ['\treturn "hello, world"'], ['\treturn "hello"']);
    const again = edit(4, 'apply_patch', 'patch', ['func Bye() {}'], ['func Bye() {}']); // rewrites the same text
    const lines = blame(C1, ['package hello', '', 'func Hello() string {', '\treturn "hello, world"', '}', '', 'func Bye() {}']);
    const out = classifyLines({ path: PATH, lines, commits: { [C1]: linked([session([write, fix, again])]) } });
    expect(out.map((l) => l.class)).toEqual(Array(7).fill('ai'));
    expect(out[3]).toMatchObject({ turn: 3, tool: 'apply_patch', tool_use_id: fix.toolUseId });
    expect(out[6]).toMatchObject({ turn: 4, tool_use_id: again.toolUseId });
    expect(out[0]).toMatchObject({ turn: 1, tool_use_id: write.toolUseId });
  });

  it('the same text added by two edits (neither removing it): the later edit is named', () => {
    const a = edit(1, 'apply_patch', 'patch', ['x()']);
    const b = edit(2, 'apply_patch', 'patch', ['y()', 'x()']);
    const out = classifyLines({ path: PATH, lines: blame(C1, ['x()', 'y()']), commits: { [C1]: linked([session([a, b])]) } });
    expect(out[0]).toMatchObject({ class: 'ai', turn: 2, tool_use_id: b.toolUseId });
  });

  it("a line the agent took out again is no longer its own: put back by a person it is mixed against the agent's last version", () => {
    const write = edit(1, 'Write', 'write', AGENT_FILE);
    const fix = edit(2, 'apply_patch', 'patch', ['\treturn "hello, world"'], ['\treturn "hello"']);
    const out = classifyLines({ path: PATH, lines: blame(C1, AGENT_FILE), commits: { [C1]: linked([session([write, fix])]) } });
    expect(out[3]).toMatchObject({ class: 'mixed', agent_text: '\treturn "hello, world"', turn: 2 });
  });

  it('a write or delete drops the earlier agent lines of the file', () => {
    const first = edit(1, 'Write', 'write', ['old line one', 'old line two']);
    const second = edit(2, 'Write', 'write', ['new content']);
    const out = classifyLines({ path: PATH, lines: blame(C1, ['new content', 'old line one']), commits: { [C1]: linked([session([first, second])]) } });
    expect(out.map((l) => l.class)).toEqual(['ai', 'human']);
    const del = edit(3, 'Delete', 'delete', []);
    const after = classifyLines({ path: PATH, lines: blame(C1, ['new content']), commits: { [C1]: linked([session([first, second, del])]) } });
    expect(after[0]!.class).toBe('human');
  });

  it("partial edits: a line containing the Edit tool's new string is ai, evidence names the fragment", () => {
    const e = edit(2, 'Edit', 'edit', ['return "hello, world"'], ['return "hello"'], { partial: true });
    const lines = blame(C1, ['func Hello() string {', '\treturn "hello, world" // greet', '}']);
    const out = classifyLines({ path: PATH, lines, commits: { [C1]: linked([session([e])], [{ start: 2, lines: ['\treturn "hello, world" // greet'] }]) } });
    expect(out[1]).toMatchObject({ class: 'ai', turn: 2, tool: 'Edit', tool_use_id: e.toolUseId, evidence: { kind: 'agent-fragment' } });
    expect(out[1]!.evidence.text).toContain('"return \\"hello, world\\""');
    expect(out[0]!.class).toBe('human');
    // a blank fragment matches nothing; a later edit removing the fragment takes it back
    const blank = edit(2, 'Edit', 'edit', ['   '], [], { partial: true });
    const undo = edit(3, 'Edit', 'edit', ['x'], ['return "hello, world"'], { partial: true });
    const out2 = classifyLines({ path: PATH, lines, commits: { [C1]: linked([session([blank, e, undo])]) } });
    expect(out2.map((l) => l.class)).toEqual(['human', 'human', 'human']);
  });

  it("a renamed file: a commit's agent edits are read under the path blame gives for that commit", () => {
    const w = edit(1, 'Write', 'write', ['moved()'], [], { path: 'src/old.go' });
    const lines: BlamedLine[] = [{ line: 1, text: 'moved()', commit: C1, origLine: 1, origPath: 'src/old.go' }];
    expect(classifyLines({ path: PATH, lines, commits: { [C1]: linked([session([w])]) } })[0]).toMatchObject({ class: 'ai', tool_use_id: w.toolUseId });
    expect(classifyLines({ path: PATH, lines: [{ ...lines[0]!, origPath: undefined }], commits: { [C1]: linked([session([w])]) } })[0]!.class).toBe('human');
  });

  it('a foreign trailer alone → unknown naming it, never ai', () => {
    const url = 'https://agents.example/logs/42';
    const out = classifyLines({
      path: PATH,
      lines: blame(C1, AGENT_FILE),
      commits: { [C1]: { links: [{ kind: 'foreign', source: 'Agent-Logs-Url', label: url }] } },
    });
    expect(out.every((l) => l.class === 'unknown')).toBe(true);
    expect(out[0]).toMatchObject({
      source: 'Agent-Logs-Url',
      evidence: { kind: 'foreign-no-lines', text: `Agent-Logs-Url: ${url} links the commit, without line data` },
    });
  });

  it("a trailer beside a checkpoint: one naming the linked session's own agent changes nothing, another tool's leaves unexplained lines unknown", () => {
    const write = edit(1, 'Write', 'write', AGENT_FILE);
    const run = (agent: string) =>
      classifyLines({
        path: PATH,
        lines: blame(C1, COMMITTED),
        commits: {
          [C1]: { links: [...linked([session([write])]).links, { kind: 'foreign', source: 'Co-authored-by', label: 'Claude <noreply@anthropic.com>', agent }] },
        },
      }).map((l) => l.class);
    expect(run('claude-code')).toEqual(['ai', 'ai', 'human', 'ai', 'mixed', 'ai', 'ai', 'mixed']);
    expect(run('devin')).toEqual(['ai', 'ai', 'unknown', 'ai', 'mixed', 'ai', 'ai', 'mixed']);
  });

  it('a foreign record with line ranges → ai (or mixed) in its ranges, naming the tool; human outside them', () => {
    const out = classifyLines({
      path: PATH,
      lines: blame(C1, AGENT_FILE),
      commits: {
        [C1]: {
          links: [
            {
              kind: 'foreign',
              source: 'git-ai',
              label: 'refs/notes/ai',
              agent: 'cursor',
              ranges: [
                { start: 2, end: 4, label: 's_c9883b05a2487d::t_9f8e7d6c5b4a32', model: 'gpt-5' },
                { start: 7, end: 7, contributor: 'mixed' },
              ],
            },
          ],
        },
      },
    });
    expect(out.map((l) => l.class)).toEqual(['human', 'ai', 'ai', 'ai', 'human', 'human', 'mixed']);
    expect(out[1]).toMatchObject({ source: 'git-ai', agent: 'cursor', model: 'gpt-5', evidence: { kind: 'foreign-range' } });
    expect(out[1]!.evidence.text).toBe(`git-ai refs/notes/ai marks lines 2-4 of ${PATH} as ai (s_c9883b05a2487d::t_9f8e7d6c5b4a32)`);
    expect(out[0]!.evidence.kind).toBe('no-agent-edit');
  });

  it("uncommitted lines: uncommitted, or ai with uncommitted: true when a live session's edits hold them", () => {
    const lines: BlamedLine[] = [
      { line: 1, text: 'package hello', commit: C1, origLine: 1 },
      { line: 2, text: 'func New() {}', commit: ZERO_COMMIT, origLine: 2 },
      { line: 3, text: '// typed by hand', commit: ZERO_COMMIT, origLine: 3 },
    ];
    const live = edit(5, 'replace', 'edit', ['func New() {}'], [], { partial: true });
    const out = classifyLines({ path: PATH, lines, commits: { [C1]: { links: [] } }, live: [{ sessionId: 'live-1', agent: 'gemini', edits: [live] }] });
    expect(out.map((l) => l.class)).toEqual(['human', 'ai', 'uncommitted']);
    expect(out[1]).toMatchObject({ uncommitted: true, session_id: 'live-1', agent: 'gemini', turn: 5, tool: 'replace', evidence: { kind: 'live-edit' } });
    expect(out[1]!.checkpoint_id).toBeUndefined();
    expect(out[2]).toMatchObject({ evidence: { kind: 'uncommitted' } });
    expect(out[2]!.uncommitted).toBeUndefined();
    expect(classifyLines({ path: PATH, lines, commits: {} }).map((l) => l.class)).toEqual(['human', 'uncommitted', 'uncommitted']);
  });

  it('evidence quotes are bounded', () => {
    const long = `x = "${'a'.repeat(300)}"`;
    const e = edit(1, 'Edit', 'edit', [long], [], { partial: true });
    const out = classifyLines({ path: PATH, lines: blame(C1, [long]), commits: { [C1]: linked([session([e])]) } });
    expect(out[0]!.evidence.text.length).toBeLessThan(160);
    const trailer = classifyLines({
      path: PATH,
      lines: blame(C1, ['x']),
      commits: { [C1]: { links: [{ kind: 'foreign', source: 'Agent-Logs-Url', label: `https://x/${'y'.repeat(5000)}` }] } },
    });
    expect(trailer[0]!.evidence.text.length).toBeLessThan(400);
  });

  it('the AI share leaves unknown and uncommitted apart', () => {
    expect(aiShare({ ai: 3, mixed: 1, human: 4, unknown: 100, uncommitted: 7 })).toBe(0.5);
    expect(aiShare({ ai: 0, mixed: 0, human: 0, unknown: 5, uncommitted: 0 })).toBeUndefined();
  });
});

describe('types', () => {
  it("an AgentEdit is an EditRecord (the adapters' edits go in as they are)", () => {
    const a: AgentEdit = { turn: 1, promptIndex: 0, position: 3, toolUseId: 't', tool: 'Write', path: PATH, kind: 'write', added: ['x'], removed: [] };
    const edits: AgentEdit[] = [a];
    const out = classifyLines({ path: PATH, lines: blame(C1, ['x']), commits: { [C1]: linked([session(edits)]) } });
    expect(out[0]!.class).toBe('ai');
  });
});

describe('properties', () => {
  const text = fc.constantFrom('a', 'b', 'c()', '}', '', 'return x', 'return y', 'let z = 1');
  const arb = fc.record({
    agentLines: fc.array(fc.array(text, { maxLength: 6 }), { maxLength: 4 }),
    partial: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    file: fc.array(fc.record({ text, commit: fc.constantFrom(C1, C2, ZERO_COMMIT) }), { maxLength: 20 }),
    transcript: fc.constantFrom('ok', 'ok', 'missing'),
    c2: fc.constantFrom('none', 'trailer', 'ranges'),
  });

  it('one result per line, summary counts add up to the line count, never ai without an edit that holds it', () => {
    fc.assert(
      fc.property(arb, ({ agentLines, partial, file, transcript, c2 }) => {
        const edits = agentLines.map((added, i) => edit(i + 1, 'Edit', i === 0 ? 'write' : 'edit', added, [], partial[i] ? { partial: true } : {}));
        const lines = file.map((f, i) => ({ line: i + 1, text: f.text, commit: f.commit, origLine: i + 1 }));
        const commits: Record<string, CommitInfo> = {
          [C1]: linked([session(edits, { transcript: transcript as LinkedSession['transcript'] })]),
          [C2]:
            c2 === 'none'
              ? { links: [] }
              : { links: [{ kind: 'foreign', source: 'agent-trace', label: 'x', ...(c2 === 'ranges' ? { ranges: [{ start: 1, end: 5 }] } : {}) }] },
        };
        const out = classifyLines({ path: PATH, lines, commits, live: [{ sessionId: 'live', edits }] });
        expect(out).toHaveLength(lines.length);
        const s = summarize(out);
        expect(s.ai + s.mixed + s.human + s.unknown + s.uncommitted).toBe(lines.length);
        out.forEach((l, i) => {
          expect(l.line).toBe(lines[i]!.line);
          if (l.class === 'ai' && l.source === undefined) {
            const e = edits.find((x) => x.toolUseId === l.tool_use_id);
            expect(e, 'an ai line names an edit').toBeDefined();
            expect(e!.added.some((a) => (e!.partial ? a.trim() !== '' && l.text.includes(a.trim()) : a.trimEnd() === l.text.trimEnd()))).toBe(true);
          }
          if (l.class === 'ai' && l.source !== undefined) expect(l.commit).toBe(C2);
          if (l.commit === C2 && c2 !== 'ranges') expect(['human', 'unknown']).toContain(l.class);
          if (l.commit === C1 && transcript !== 'ok') expect(l.class).toBe('unknown');
          if (l.commit === ZERO_COMMIT) expect(l.class === 'uncommitted' || (l.class === 'ai' && l.uncommitted === true)).toBe(true);
          if (l.class === 'mixed' && l.source === undefined) expect(l.distance).toBeLessThanOrEqual(0.4);
        });
        const share = aiShare(s);
        if (share !== undefined) expect(share).toBeGreaterThanOrEqual(0), expect(share).toBeLessThanOrEqual(1);
      }),
    );
  });
});
