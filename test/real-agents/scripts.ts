/**
 * What the scripted model does, independent of any API dialect.
 *
 * The reply is a pure function of the request: the LAST user message carrying
 * a marker (`ETIER-<NAME>`) picks the script, and the number of assistant
 * messages after it picks the step. Nothing is remembered between requests,
 * so resumed sessions, subagents and retries all get the answer their
 * conversation calls for.
 */

/** A tool call or an answer, in agent-neutral terms; dialects map it to their tools. */
export type Action =
  | { kind: 'write'; path: string; content: string }
  | { kind: 'shell'; command: string; description: string }
  | { kind: 'read'; path: string }
  | { kind: 'edit'; path: string; oldText: string; newText: string }
  | { kind: 'task'; description: string; prompt: string; background: boolean }
  | { kind: 'text'; text: string };

/** A request reduced to what scripts need: who said what, in order. */
export interface Conversation {
  messages: { role: 'user' | 'assistant'; texts: string[] }[];
}

export interface Usage {
  input: number;
  cacheCreation: number;
  cacheRead: number;
  output: number;
}

export interface Plan {
  script: string;
  step: number;
  action: Action;
  usage: Usage;
}

/** The README every driver's repository starts with; the standard turn edits its first line. */
export const README_START = '# agents tier\n';
export const README_EDITED = '# agents tier\n\nhello.txt holds the greeting.\n';

export const MARKER_RE = /\bETIER-([A-Z0-9]+(?:-[A-Z0-9]+)*)\b/g;

/** The prompts the tests send (each carries its script's marker). */
export const PROMPTS = {
  standard: 'ETIER-STD create hello.txt, commit it, then mention it in README.md',
  second: 'ETIER-SECOND add notes.txt and tell me what we did before',
  foreground: 'ETIER-FG have a foreground subagent write fg.txt',
  background: 'ETIER-BG have a background subagent write bg.txt',
  // SPEC-2 §F.1–F.3: a task's first turn, its continuation by `resume --task --exec`, and the
  // ask of the fallback's new session
  task: 'ETIER-TASK create task.txt and commit it',
  taskContinue: 'ETIER-TASKCONT continue the task and say what was done before',
  taskFresh: 'ETIER-TASKFRESH continue the task from the context you were given',
  // issue 25, point 8: a commit made without hooks, then one with hooks, in one turn
  hooklessThenHooked: 'ETIER-HOOKLESS commit a.go, then b.go with the hooks on',
} as const;

type Step = Action | ((c: Conversation) => Action);

const SCRIPTS: Record<string, Step[]> = {
  // G1's standard turn: write, commit mid-turn from the shell, edit, answer
  STD: [
    { kind: 'write', path: 'hello.txt', content: 'hello from the agent\n' },
    { kind: 'shell', command: 'git add hello.txt && git commit -m "Add hello.txt"', description: 'Commit hello.txt' },
    // Claude's Edit refuses a file the session has not read
    { kind: 'read', path: 'README.md' },
    { kind: 'edit', path: 'README.md', oldText: README_START, newText: README_EDITED },
    { kind: 'text', text: 'Done: hello.txt is committed and README.md mentions it.' },
  ],
  // a later prompt of the same session (after a resume): says whether the
  // earlier turn is in the conversation it was sent
  SECOND: [
    { kind: 'write', path: 'notes.txt', content: 'notes from the second prompt\n' },
    (c) => ({
      kind: 'text',
      text: conversationHas(c, 'ETIER-STD')
        ? 'Continued: notes.txt added; earlier we created hello.txt (context present).'
        : 'Continued: notes.txt added; I see no earlier turn (context missing).',
    }),
  ],
  // a task's first turn: write and commit from the shell
  TASK: [
    { kind: 'write', path: 'task.txt', content: 'the task file\n' },
    { kind: 'shell', command: 'git add task.txt && git commit -m "Add task.txt"', description: 'Commit task.txt' },
    { kind: 'text', text: 'Done: task.txt is committed.' },
  ],
  // the task continued in its thread: answers whether the first turn was sent along
  TASKCONT: [
    (c) => ({ kind: 'text', text: conversationHas(c, 'ETIER-TASK ') ? 'Task continued (context present).' : 'Task continued (context missing).' }),
  ],
  // the fallback's new thread: answers whether the Execution Register came with the ask
  TASKFRESH: [
    (c) => ({ kind: 'text', text: conversationHas(c, '## Execution Register') ? 'Fresh start (register present).' : 'Fresh start (register missing).' }),
  ],
  // the agent's shell commits a.go as it does (Gemini CLI: hooks off), then b.go with the
  // repository's hooks on: b.go's post-commit must link a.go's commit too (issue 25, point 8)
  HOOKLESS: [
    { kind: 'write', path: 'a.go', content: 'package a\n' },
    { kind: 'shell', command: 'git add a.go && git commit -m "Add a.go"', description: 'Commit a.go' },
    { kind: 'write', path: 'b.go', content: 'package b\n' },
    { kind: 'shell', command: 'git add b.go && git -c core.hooksPath=.git/hooks commit -m "Add b.go"', description: 'Commit b.go with the hooks on' },
    { kind: 'text', text: 'Done: a.go and b.go are committed.' },
  ],
  FG: [
    { kind: 'task', description: 'Write fg.txt', prompt: 'ETIER-SUBFG write fg.txt with one line', background: false },
    { kind: 'text', text: 'Done: the foreground subagent wrote fg.txt.' },
  ],
  SUBFG: [
    { kind: 'write', path: 'fg.txt', content: 'written by a foreground subagent\n' },
    { kind: 'text', text: 'subagent finished fg' },
  ],
  BG: [
    { kind: 'task', description: 'Write bg.txt', prompt: 'ETIER-SUBBG write bg.txt with one line', background: true },
    { kind: 'text', text: 'Done: the background subagent is on it.' },
    // after the <task-notification> turn
    { kind: 'text', text: 'Done: the background subagent wrote bg.txt.' },
  ],
  // the background subagent first waits in its shell so that its write lands
  // after the main agent's first Stop (B.5's interesting case)
  SUBBG: [
    { kind: 'shell', command: 'sleep 5', description: 'Wait a moment' },
    { kind: 'write', path: 'bg.txt', content: 'written by a background subagent\n' },
    { kind: 'text', text: 'subagent finished bg' },
  ],
};

export function conversationHas(c: Conversation, needle: string): boolean {
  return c.messages.some((m) => m.texts.some((t) => t.includes(needle)));
}

/** The marker of one message (the last one in it), else null. */
function markerOf(texts: string[]): string | null {
  let found: string | null = null;
  for (const t of texts) for (const m of t.matchAll(MARKER_RE)) if (m[1] !== undefined && SCRIPTS[m[1]]) found = m[1];
  return found;
}

/**
 * Token usage reported for a step: fixed figures, so tests can assert the
 * sums Entire records (input 10, cache creation 100, cache read 1000, output 20 per call).
 */
export const USAGE_PER_CALL: Usage = { input: 10, cacheCreation: 100, cacheRead: 1000, output: 20 };

/** The reply a conversation calls for, or null when no script applies (a side request). */
export function planReply(c: Conversation): Plan | null {
  for (let i = c.messages.length - 1; i >= 0; i--) {
    const m = c.messages[i]!;
    if (m.role !== 'user') continue;
    const script = markerOf(m.texts);
    if (script === null) continue;
    const steps = SCRIPTS[script]!;
    const step = c.messages.slice(i + 1).filter((x) => x.role === 'assistant').length;
    const s = steps[Math.min(step, steps.length - 1)]!;
    // past the end: keep answering the final text (a harmless extra turn)
    const action = typeof s === 'function' ? s(c) : s;
    return { script, step, action: step < steps.length ? action : finalText(steps, c), usage: USAGE_PER_CALL };
  }
  return null;
}

function finalText(steps: Step[], c: Conversation): Action {
  const last = steps[steps.length - 1]!;
  const a = typeof last === 'function' ? last(c) : last;
  return a.kind === 'text' ? a : { kind: 'text', text: 'Done.' };
}
