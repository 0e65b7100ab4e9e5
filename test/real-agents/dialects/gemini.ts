/**
 * Gemini API, as Gemini CLI calls it
 * (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`; SPEC-2 §G).
 */
import type { ServerResponse } from 'node:http';
import { planReply, type Action, type Conversation, type Plan } from '../scripts.js';
import { inWorkdir, sendJson, sendSse, type Answer, type Dialect, type DialectRequest } from './types.js';

interface Part {
  text?: string;
  functionCall?: unknown;
  functionResponse?: unknown;
}
interface Content {
  role?: string;
  parts?: Part[];
}
interface GenerateBody {
  contents?: Content[];
  tools?: { functionDeclarations?: { name?: string }[] }[];
}

export function geminiConversation(body: GenerateBody): Conversation {
  return {
    messages: (body.contents ?? [])
      .filter((c) => c.role === 'user' || c.role === 'model')
      .map((c) => ({
        role: c.role === 'model' ? ('assistant' as const) : ('user' as const),
        texts: (c.parts ?? []).filter((p) => typeof p.text === 'string').map((p) => p.text!),
      })),
  };
}

/** The first workspace directory of Gemini's `<session_context>`. */
export function geminiWorkdir(body: GenerateBody): string | null {
  const m = /Workspace Directories:\*\*\s*\n\s*-\s*(\/[^\n]+)/.exec(
    (body.contents ?? []).flatMap((c) => (c.parts ?? []).map((p) => p.text ?? '')).join('\n'),
  );
  return m?.[1]?.trim() ?? null;
}

function partFor(action: Action, workdir: string | null): Part {
  const call = (name: string, args: Record<string, unknown>): Part => ({ functionCall: { name, args } });
  switch (action.kind) {
    case 'write':
      return call('write_file', { file_path: inWorkdir(workdir, action.path), content: action.content });
    case 'shell':
      return call('run_shell_command', { command: action.command, description: action.description });
    case 'read':
      return call('read_file', { file_path: inWorkdir(workdir, action.path) });
    case 'edit':
      return call('replace', {
        file_path: inWorkdir(workdir, action.path),
        instruction: 'apply the scripted edit',
        old_string: action.oldText,
        new_string: action.newText,
      });
    case 'task':
      // Gemini CLI has no subagent tool the scripts use
      return { text: `(no subagent tool: ${action.description})` };
    case 'text':
      return { text: action.text };
  }
}

function sendGenerate(res: ServerResponse, model: string, plan: Plan | null, workdir: string | null, stream: boolean): void {
  const part = plan === null ? { text: 'ok' } : partFor(plan.action, workdir);
  const u = plan?.usage ?? { input: 1, cacheCreation: 0, cacheRead: 0, output: 1 };
  // Gemini counts cached tokens inside the prompt count
  const prompt = u.input + u.cacheRead;
  const chunk = {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: prompt,
      candidatesTokenCount: u.output,
      cachedContentTokenCount: u.cacheRead,
      totalTokenCount: prompt + u.output,
    },
    modelVersion: model,
  };
  if (stream) sendSse(res, [{ data: chunk }]);
  else sendJson(res, 200, chunk);
}

export const geminiDialect: Dialect = {
  name: 'gemini',
  handle(req: DialectRequest, res: ServerResponse): Answer | null {
    const m = /^\/v1(?:beta|alpha|)\/models\/([^:/?]+):([A-Za-z]+)/.exec(req.url);
    if (req.method !== 'POST' || m === null) return null;
    const [, model, method] = m as unknown as [string, string, string];
    const body = (req.body ?? {}) as GenerateBody;
    if (method === 'countTokens') {
      sendJson(res, 200, { totalTokens: 100 });
      return { route: 'countTokens' };
    }
    if (method !== 'streamGenerateContent' && method !== 'generateContent') return null;
    const conversation = geminiConversation(body);
    const tools = (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name ?? '?'));
    const plan = tools.length > 0 ? planReply(conversation) : null;
    sendGenerate(res, model, plan, geminiWorkdir(body), method === 'streamGenerateContent');
    return { route: method, conversation, plan, tools };
  },
};
