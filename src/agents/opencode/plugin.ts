/**
 * The OpenCode side of Entire: a plugin in `.opencode/plugins/entire.ts`
 * (SPEC-2 §C.2) that OpenCode loads from the project. It turns OpenCode's
 * events into `entire hooks opencode <verb>` runs, one JSON line on stdin
 * each, and fails open: without `entire` on PATH nothing happens.
 * Install writes exactly that file (byte-identical on rerun); uninstall
 * removes only it. The `npm install` OpenCode runs in `.opencode/`
 * (`.gitignore`, `package.json`, `package-lock.json`, `node_modules/`) is
 * OpenCode's and never touched.
 */
import { lstatSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { EntireError } from '../../errors.js';
import { readFileNoFollow, removeConfined, writeFileUnder } from '../../trust/confined.js';
import type { HookInstallOptions, HookInstallResult, HookUninstallResult } from '../types.js';

export const OPENCODE_PLUGIN_FILE = '.opencode/plugins/entire.ts';
/** On the first line of every version of our plugin: how install and uninstall know the file is ours. */
export const OPENCODE_PLUGIN_MARKER = 'entire-opencode-plugin';
/**
 * The version `enable` writes (`// entire-opencode-plugin v<N>` on the first line): v1 reported
 * no subagent tasks; v2 added `tool.execute.before/after` of `task` (pre-task / post-task).
 */
export const OPENCODE_PLUGIN_VERSION = 2;

/**
 * The plugin. Spawns synchronously: `opencode run` exits without awaiting a
 * plugin's async work, so an async spawn could lose the turn end. Its own
 * init spawns nothing (OpenCode also loads it for `export` and `import`).
 */
export const OPENCODE_PLUGIN_SOURCE = `// ${OPENCODE_PLUGIN_MARKER} v${OPENCODE_PLUGIN_VERSION}: links OpenCode sessions to git commits (Entire).
// Written by \`entire enable --agent opencode\` and rewritten by it: edits here are lost.
// \`entire disable --uninstall\` removes it. Without \`entire\` on PATH it does nothing.
import { spawnSync } from "node:child_process";

export const EntirePlugin = async ({ directory }: { directory: string }) => {
  // the sessions this process reported, and the subagent (child) sessions it saw created
  const sessions = new Set<string>();
  const children = new Set<string>();
  const main = (id: unknown): id is string => typeof id === "string" && id !== "" && !children.has(id);
  const send = (verb: string, payload: Record<string, unknown>, timeout = 15_000): void => {
    try {
      // synchronous: \`opencode run\` exits without awaiting a plugin's async work
      spawnSync("entire", ["hooks", "opencode", verb], {
        cwd: directory,
        input: JSON.stringify(payload) + "\\n",
        stdio: ["pipe", "ignore", "ignore"],
        timeout,
      });
    } catch {
      // Entire missing or failing: OpenCode carries on
    }
  };
  // what Entire records of a task call: its label and kind, not its prompt
  const taskInput = (args: any) => ({
    description: typeof args?.description === "string" ? args.description : undefined,
    subagent_type: typeof args?.subagent_type === "string" ? args.subagent_type : undefined,
  });
  return {
    event: async ({ event }: { event: { type: string; properties?: any } }) => {
      try {
        const p = event.properties ?? {};
        if (event.type === "session.created") {
          if (p.info?.parentID) children.add(p.info.id);
          else if (main(p.info?.id)) {
            sessions.add(p.info.id);
            send("session-start", { session_id: p.info.id });
          }
        } else if (event.type === "session.status") {
          // once per turn (session.idle follows in the same millisecond)
          if (p.status?.type === "idle" && main(p.sessionID)) send("turn-end", { session_id: p.sessionID }, 120_000);
        } else if (event.type === "session.compacted") {
          if (main(p.sessionID)) send("compaction", { session_id: p.sessionID });
        } else if (event.type === "session.deleted") {
          if (main(p.info?.id)) {
            sessions.delete(p.info.id);
            send("session-end", { session_id: p.info.id }, 60_000);
          }
        } else if (event.type === "server.instance.disposed") {
          for (const id of sessions) send("session-end", { session_id: id }, 60_000);
          sessions.clear();
        }
      } catch {
        // never in OpenCode's way
      }
    },
    // a subagent: the \`task\` tool runs a child session and returns when it is done; its call id
    // names the task, the child session (\`metadata.sessionId\`) holds the subagent's transcript
    "tool.execute.before": async (input: any, output: any) => {
      try {
        if (input?.tool !== "task" || !main(input.sessionID)) return;
        send("pre-task", { session_id: input.sessionID, tool_use_id: input.callID, tool_input: taskInput(output?.args) });
      } catch {
        // never in OpenCode's way
      }
    },
    "tool.execute.after": async (input: any, output: any) => {
      try {
        if (input?.tool !== "task" || !main(input.sessionID)) return;
        const child = output?.metadata?.sessionId;
        send(
          "post-task",
          { session_id: input.sessionID, tool_use_id: input.callID, tool_input: taskInput(input.args), subagent_id: typeof child === "string" ? child : undefined },
          120_000,
        );
      } catch {
        // never in OpenCode's way
      }
    },
    // the earliest point with the prompt (the part event comes seconds later)
    "chat.message": async (input: any, output: any) => {
      try {
        const id = input?.sessionID;
        if (!main(id)) return;
        sessions.add(id);
        const parts = Array.isArray(output?.parts) ? output.parts : [];
        const prompt = parts
          .filter((x: any) => x?.type === "text" && !x.synthetic && !x.ignored && typeof x.text === "string")
          .map((x: any) => x.text)
          .join("\\n\\n");
        const m = output?.message?.model;
        send("turn-start", { session_id: id, prompt, model: m?.providerID && m?.modelID ? \`\${m.providerID}/\${m.modelID}\` : undefined });
      } catch {
        // never in OpenCode's way
      }
    },
  };
};
`;

function isOurs(content: Buffer | null): boolean {
  if (content === null) return false;
  const firstLine = content.subarray(0, 200).toString('utf8').split('\n')[0] ?? '';
  return firstLine.includes(OPENCODE_PLUGIN_MARKER);
}

function readPlugin(repoRoot: string): Buffer | null {
  return readFileNoFollow(join(repoRoot, OPENCODE_PLUGIN_FILE), 1024 * 1024);
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

export function installOpenCodePlugin(repoRoot: string, _options: HookInstallOptions = {}): HookInstallResult {
  const file = OPENCODE_PLUGIN_FILE;
  const path = join(repoRoot, file);
  const current = readPlugin(repoRoot);
  if (current !== null && current.toString('utf8') === OPENCODE_PLUGIN_SOURCE) return { file, path, changed: false };
  if (current === null ? exists(path) : !isOurs(current)) {
    throw new EntireError('INVALID_SETTINGS', `${file} exists and is not Entire's plugin: move it away and run enable again`, { detail: { path } });
  }
  writeFileUnder(repoRoot, path, OPENCODE_PLUGIN_SOURCE, 0o644);
  return { file, path, changed: true };
}

export function uninstallOpenCodePlugin(repoRoot: string): HookUninstallResult {
  if (!isOurs(readPlugin(repoRoot))) return { files: [], changed: false };
  removeConfined(repoRoot, OPENCODE_PLUGIN_FILE);
  // the directories only when nothing else (another plugin, OpenCode's npm files) is in them
  for (const dir of ['.opencode/plugins', '.opencode']) {
    try {
      rmdirSync(join(repoRoot, dir));
    } catch {
      break;
    }
  }
  return { files: [OPENCODE_PLUGIN_FILE], changed: true };
}

/** The version on an installed plugin's first line (ours only), null when none is readable. */
export function installedOpenCodePluginVersion(repoRoot: string): number | null {
  try {
    const content = readPlugin(repoRoot);
    if (!isOurs(content)) return null;
    const m = /entire-opencode-plugin v(\d{1,6})\b/.exec(content!.subarray(0, 200).toString('utf8').split('\n')[0] ?? '');
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** status / doctor: our plugin as an older Entire wrote it keeps that version until `enable` runs again. */
export function openCodePluginOutdated(repoRoot: string): string[] {
  const v = installedOpenCodePluginVersion(repoRoot);
  if (v === null || v >= OPENCODE_PLUGIN_VERSION) return [];
  const missing = v < 2 ? ' (it reports no subagent tasks)' : '';
  return [
    `! OpenCode's plugin ${OPENCODE_PLUGIN_FILE} is v${v}, this Entire writes v${OPENCODE_PLUGIN_VERSION}${missing}: run \`entire enable --agent opencode\` again`,
  ];
}

export function openCodePluginInstalled(repoRoot: string): boolean {
  try {
    return isOurs(readPlugin(repoRoot));
  } catch {
    return false;
  }
}
