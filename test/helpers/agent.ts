/**
 * A scripted Claude Code session: writes a transcript the way Claude Code
 * does and calls the installed hook commands with Claude-shaped stdin, so
 * end-to-end tests drive the CLI exactly as the agent would.
 */
import { appendFileSync, mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { SpawnSyncReturns } from 'node:child_process';
import type { TempRepo } from './repo.js';

export class FakeClaude {
  readonly transcriptPath: string;
  private lastUuid: string | null = null;
  /** The text of the last assistant line, when that line is text (Stop's `last_assistant_message`). */
  private lastText: string | undefined;
  private msgCounter = 0;

  constructor(
    readonly repo: TempRepo,
    readonly sessionId: string = randomUUID(),
    opts: { cwd?: string } = {},
  ) {
    const root = opts.cwd ?? repo.dir;
    this.cwd = root;
    const dir = join(repo.home, '.claude', 'projects', root.replace(/[^A-Za-z0-9]/g, '-'));
    mkdirSync(dir, { recursive: true });
    this.transcriptPath = join(dir, `${this.sessionId}.jsonl`);
    if (!existsSync(this.transcriptPath)) writeFileSync(this.transcriptPath, '');
  }

  readonly cwd: string;
  /** Environment every hook of this session runs with (e.g. `ENTIRE_TASK_ID`). */
  hookEnv: Record<string, string | undefined> = {};
  /** The model assistant lines name (`message.model`), when set. */
  model: string | undefined;

  private line(obj: Record<string, unknown>): void {
    if (obj['type'] === 'assistant') {
      this.lastText = undefined;
      if (this.model !== undefined) obj = { ...obj, message: { model: this.model, ...(obj['message'] as Record<string, unknown>) } };
    }
    const uuid = randomUUID();
    const full = { parentUuid: this.lastUuid, sessionId: this.sessionId, cwd: this.cwd, uuid, timestamp: new Date().toISOString(), ...obj };
    this.lastUuid = uuid;
    appendFileSync(this.transcriptPath, JSON.stringify(full) + '\n');
  }

  hook(verb: string, extra: Record<string, unknown> = {}, env: Record<string, string | undefined> = {}): SpawnSyncReturns<string> {
    const input = JSON.stringify({
      session_id: this.sessionId,
      transcript_path: this.transcriptPath,
      cwd: this.cwd,
      hook_event_name: verb,
      ...extra,
    });
    return this.repo.entire(['hooks', 'claude-code', verb], { input, env: { ...this.hookEnv, ...env }, cwd: this.cwd });
  }

  sessionStart(): SpawnSyncReturns<string> {
    return this.hook('session-start', { source: 'startup' });
  }

  /** The person types a prompt: UserPromptSubmit fires, then the line lands in the transcript. */
  prompt(text: string): SpawnSyncReturns<string> {
    const r = this.hook('user-prompt-submit', { prompt: text });
    this.line({ type: 'user', message: { role: 'user', content: text } });
    return r;
  }

  say(text: string, usage = { input_tokens: 3, cache_creation_input_tokens: 10, cache_read_input_tokens: 100, output_tokens: 20 }): void {
    this.msgCounter++;
    this.line({
      type: 'assistant',
      message: { id: `msg_${this.sessionId.slice(0, 8)}_${this.msgCounter}`, role: 'assistant', content: [{ type: 'text', text }], usage },
    });
    this.lastText = text;
  }

  /** The agent writes a file with its Write tool. */
  write(rel: string, content: string): void {
    const abs = join(this.cwd, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
    this.msgCounter++;
    this.line({
      type: 'assistant',
      message: {
        id: `msg_${this.sessionId.slice(0, 8)}_${this.msgCounter}`,
        role: 'assistant',
        content: [{ type: 'tool_use', id: `toolu_${this.msgCounter}`, name: 'Write', input: { file_path: abs, content } }],
        usage: { input_tokens: 2, cache_creation_input_tokens: 5, cache_read_input_tokens: 50, output_tokens: 10 },
      },
    });
    this.line({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${this.msgCounter}`, content: 'ok' }] } });
  }

  /** The agent runs a shell command (only recorded in the transcript). */
  bash(command: string, output = ''): void {
    this.msgCounter++;
    this.line({
      type: 'assistant',
      message: {
        id: `msg_${this.sessionId.slice(0, 8)}_${this.msgCounter}`,
        role: 'assistant',
        content: [{ type: 'tool_use', id: `toolu_${this.msgCounter}`, name: 'Bash', input: { command } }],
        usage: { input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 10, output_tokens: 5 },
      },
    });
    this.line({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${this.msgCounter}`, content: output }] } });
  }

  stop(env: Record<string, string | undefined> = {}): SpawnSyncReturns<string> {
    this.line({ type: 'progress', data: { type: 'hook_progress', hookEvent: 'Stop', command: 'entire hooks claude-code stop' } });
    // like Claude Code 2.1.332: the answer in the payload equals the last assistant text on disk
    return this.hook('stop', { stop_hook_active: false, ...(this.lastText !== undefined ? { last_assistant_message: this.lastText } : {}) }, env);
  }

  sessionEnd(): SpawnSyncReturns<string> {
    return this.hook('session-end', { reason: 'prompt_input_exit' });
  }
}
