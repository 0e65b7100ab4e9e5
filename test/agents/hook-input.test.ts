import { describe, expect, it } from 'vitest';
import { parseClaudeHookInput } from '../../src/agents/claude-code/hook-input.js';
import { parseGeminiHookInput } from '../../src/agents/gemini/hook-input.js';
import { parseCursorHookInput } from '../../src/agents/cursor/hook-input.js';
import { isEntireError } from '../../src/errors.js';
import type { AgentKey } from '../../src/agents/types.js';

const PARSERS: Record<string, (verb: string, stdin: string) => ReturnType<typeof parseClaudeHookInput>> = {
  'claude-code': parseClaudeHookInput,
  gemini: parseGeminiHookInput,
  cursor: parseCursorHookInput,
};
function parseHookInput(agent: AgentKey, verb: string, stdin: string) {
  return PARSERS[agent]!(verb, stdin);
}

const SID = '7c1e4f2a-9b3d-4e8a-a1f6-2d5c8e0b4f71';
const TP = `/home/dev/.claude/projects/-home-dev-projects-acme-api/${SID}.jsonl`;
const CWD = '/home/dev/projects/acme-api';
const base = { session_id: SID, transcript_path: TP, cwd: CWD, permission_mode: 'default' };

function errorOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

function expectInvalid(agent: AgentKey, verb: string, stdin: string, message: RegExp): void {
  const e = errorOf(() => parseHookInput(agent, verb, stdin));
  expect(isEntireError(e, 'INVALID_INPUT'), String(e)).toBe(true);
  expect((e as Error).message).toMatch(message);
}

describe('Claude Code stdin (hook-inputs.md)', () => {
  it('session-start', () => {
    const ev = parseHookInput('claude-code', 'session-start', JSON.stringify({ ...base, hook_event_name: 'SessionStart', source: 'startup' }));
    expect(ev).toEqual({ kind: 'session-start', agent: 'claude-code', verb: 'session-start', sessionId: SID, transcriptPath: TP, cwd: CWD, source: 'startup' });
  });

  it('user-prompt-submit: turn start with the prompt cleaned and the raw prompt kept', () => {
    const raw = '<ide_opened_file>The user opened src/server.ts</ide_opened_file>\nAlso include the build sha.';
    const ev = parseHookInput('claude-code', 'user-prompt-submit', JSON.stringify({ ...base, hook_event_name: 'UserPromptSubmit', prompt: raw }));
    expect(ev.kind).toBe('turn-start');
    expect(ev.prompt).toBe('Also include the build sha.');
    expect(ev.rawPrompt).toBe(raw);
  });

  it('stop: turn end', () => {
    const ev = parseHookInput('claude-code', 'stop', JSON.stringify({ ...base, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'done' }));
    expect(ev.kind).toBe('turn-end');
    expect(ev.sessionId).toBe(SID);
    expect(ev.transcriptPath).toBe(TP);
    expect(ev.response).toBe('done');
  });

  it('pre-task / post-task carry tool_use_id, tool_input and the subagent id', () => {
    const toolInput = { description: 'Find all route registrations', prompt: 'List every express route', subagent_type: 'Explore' };
    const pre = parseHookInput(
      'claude-code',
      'pre-task',
      JSON.stringify({ ...base, hook_event_name: 'PreToolUse', tool_name: 'Task', tool_input: toolInput, tool_use_id: 'toolu_01Pt4Sk6Ag8En1Ts3Pr5Eq7T' }),
    );
    expect(pre).toMatchObject({
      kind: 'pre-task',
      toolUseId: 'toolu_01Pt4Sk6Ag8En1Ts3Pr5Eq7T',
      toolName: 'Task',
      subagentType: 'Explore',
      taskDescription: 'Find all route registrations',
      toolInput,
    });
    const post = parseHookInput(
      'claude-code',
      'post-task',
      JSON.stringify({
        ...base,
        hook_event_name: 'PostToolUse',
        tool_name: 'Task',
        tool_input: toolInput,
        tool_response: { status: 'completed', agentId: 'a7f3c91', totalTokens: 24517 },
        tool_use_id: 'toolu_01Pt4Sk6Ag8En1Ts3Pr5Eq7T',
      }),
    );
    expect(post.kind).toBe('post-task');
    expect(post.subagentId).toBe('a7f3c91');
  });

  it('post-todo carries the todos', () => {
    const todos = [{ content: 'Scan src/ for routes', status: 'completed', activeForm: 'Scanning' }];
    const ev = parseHookInput(
      'claude-code',
      'post-todo',
      JSON.stringify({ ...base, tool_name: 'TodoWrite', tool_input: { todos }, tool_response: { oldTodos: [], newTodos: [] }, tool_use_id: 'toolu_01Td9Wr2It4Ee6Aa8Bb1Cc3D' }),
    );
    expect(ev.kind).toBe('post-todo');
    expect(ev.todos).toEqual(todos);
  });

  it('session-end; without a session id it is a no-op (as in Go)', () => {
    expect(parseHookInput('claude-code', 'session-end', JSON.stringify({ ...base, reason: 'prompt_input_exit' }))).toMatchObject({
      kind: 'session-end',
      reason: 'prompt_input_exit',
    });
    expect(parseHookInput('claude-code', 'session-end', JSON.stringify({ session_id: '' })).kind).toBe('noop');
  });

  it('ignores unknown fields and null optional fields', () => {
    const ev = parseHookInput('claude-code', 'stop', JSON.stringify({ session_id: SID, transcript_path: null, brand_new_field: { x: 1 } }));
    expect(ev.transcriptPath).toBeUndefined();
    expect(ev.sessionId).toBe(SID);
  });
});

describe('bad input', () => {
  it('empty or whitespace stdin', () => {
    expectInvalid('claude-code', 'stop', '', /empty hook input/);
    expectInvalid('claude-code', 'stop', ' \n', /empty hook input/);
  });

  it('non-JSON and non-object JSON', () => {
    expectInvalid('claude-code', 'stop', '{session_id: x}', /not valid JSON/);
    expectInvalid('gemini', 'after-agent', '[1]', /must be a JSON object/);
    expectInvalid('cursor', 'stop', 'null', /must be a JSON object/);
  });

  it('missing or mistyped session id', () => {
    expectInvalid('claude-code', 'user-prompt-submit', JSON.stringify({ prompt: 'x' }), /no session_id/);
    expectInvalid('claude-code', 'stop', JSON.stringify({ session_id: 42 }), /session_id/);
    expectInvalid('gemini', 'before-agent', JSON.stringify({ prompt: 'x' }), /no session_id/);
    expectInvalid('cursor', 'stop', JSON.stringify({ session_id: '' }), /no conversation_id/);
  });

  it('session ids that could escape a directory', () => {
    expectInvalid('claude-code', 'stop', JSON.stringify({ session_id: '../../etc' }), /invalid session_id/);
    expectInvalid('claude-code', 'stop', JSON.stringify({ session_id: '..' }), /invalid session_id/);
    expectInvalid('claude-code', 'stop', JSON.stringify({ session_id: 'a\nb' }), /invalid session_id/);
  });

  it('task hooks need a safe tool_use_id', () => {
    expectInvalid('claude-code', 'pre-task', JSON.stringify({ session_id: SID }), /no tool_use_id/);
    expectInvalid('claude-code', 'pre-task', JSON.stringify({ session_id: SID, tool_use_id: '../x' }), /invalid tool_use_id/);
    expectInvalid('claude-code', 'post-task', JSON.stringify({ session_id: SID, tool_use_id: 'a b' }), /invalid tool_use_id/);
    expectInvalid('claude-code', 'pre-task', JSON.stringify({ session_id: SID, tool_use_id: 'ok', tool_input: 'str' }), /tool_input/);
  });

  it('unknown verbs are usage errors', () => {
    const e = errorOf(() => parseHookInput('claude-code', 'bogus', '{}'));
    expect(isEntireError(e, 'INVALID_USAGE')).toBe(true);
    expect(isEntireError(errorOf(() => parseHookInput('gemini', 'stop', '{}')), 'INVALID_USAGE')).toBe(true);
  });
});

describe('Gemini CLI stdin', () => {
  const gbase = {
    session_id: '5b2e9d41-7c3a-4f68-b1d0-93e6a4c8f215',
    transcript_path: '/home/dev/.gemini/tmp/db55/chats/session-2026-02-13T08-40-5b2e9d41.json',
    cwd: CWD,
    timestamp: '2026-02-13T08:41:05.981Z',
  };

  it('before-agent is turn start, after-agent turn end', () => {
    const start = parseHookInput('gemini', 'before-agent', JSON.stringify({ ...gbase, hook_event_name: 'BeforeAgent', prompt: 'Make the README mention the new endpoint.' }));
    expect(start).toMatchObject({ kind: 'turn-start', sessionId: gbase.session_id, transcriptPath: gbase.transcript_path, prompt: 'Make the README mention the new endpoint.' });
    const end = parseHookInput('gemini', 'after-agent', JSON.stringify({ ...gbase, prompt_response: 'README now lists it.' }));
    expect(end).toMatchObject({ kind: 'turn-end', response: 'README now lists it.' });
    expect(parseHookInput('gemini', 'session-end', JSON.stringify({ ...gbase, reason: 'exit' }))).toMatchObject({ kind: 'session-end', reason: 'exit' });
    expect(parseHookInput('gemini', 'session-start', JSON.stringify({ ...gbase, source: 'startup' })).kind).toBe('session-start');
  });

  it.each(['before-model', 'after-model', 'before-tool-selection', 'before-tool', 'after-tool', 'pre-compress', 'notification'])(
    'Go-installed verb %s is a no-op whatever stdin holds',
    (verb) => {
      expect(parseHookInput('gemini', verb, '')).toEqual({ kind: 'noop', agent: 'gemini', verb, sessionId: '' });
    },
  );
});

describe('Cursor stdin', () => {
  it('sid is conversation_id; workspace root is the cwd; null transcript_path is absent; prompt unwrapped', () => {
    const ev = parseHookInput(
      'cursor',
      'before-submit-prompt',
      JSON.stringify({
        conversation_id: '1f0c7a52-3e4b-4d91-9a8e-6b2d5c0f7e13',
        generation_id: 'g',
        hook_event_name: 'beforeSubmitPrompt',
        workspace_roots: [CWD],
        transcript_path: null,
        prompt: '<user_query>Add a GET /metrics endpoint</user_query>',
      }),
    );
    expect(ev).toMatchObject({ kind: 'turn-start', sessionId: '1f0c7a52-3e4b-4d91-9a8e-6b2d5c0f7e13', cwd: CWD, prompt: 'Add a GET /metrics endpoint' });
    expect(ev.transcriptPath).toBeUndefined();
    expect(parseHookInput('cursor', 'stop', JSON.stringify({ conversation_id: 'c1', status: 'completed' })).kind).toBe('turn-end');
    expect(parseHookInput('cursor', 'session-start', JSON.stringify({ session_id: 'c2' })).sessionId).toBe('c2');
  });
});
