/**
 * SPEC-2 §F.4 rendering: the Execution Register (≤ 300 tokens, caps relaxed in stages until it
 * fits) and the Cognitive Cache (≤ 500 tokens, round-robin by priority), then the file with the
 * v1 prompt section last, unchanged.
 */
import type { Derived, CacheItem } from './derive.js';
import { cut, tokens, oneLine } from './text.js';

export const L1_MAX_TOKENS = 300;
export const L2_MAX_TOKENS = 500;
const L2_MAX_ITEMS = 40;
const L2_ITEM_CHARS = 200;

/** (goal, state, item, blocker, files, items): the first that fits wins. */
const CAPS: readonly (readonly [number, number, number, number, number, number])[] = [
  [200, 300, 170, 200, 8, 3],
  [170, 250, 150, 170, 6, 3],
  [140, 200, 130, 140, 5, 2],
  [120, 170, 110, 120, 4, 2],
  [100, 140, 100, 110, 3, 1],
];

const basename = (p: string): string => p.slice(p.lastIndexOf('/') + 1);

function stateLine(d: Derived): string {
  const t = d.lastActive;
  const n = d.turnCount;
  if (!t) return d.last ? `Turn ${d.last.index} of ${n} ("${cut(d.last.prompt, 50)}"): no agent activity yet` : 'no agent activity yet';
  const parts: string[] = [];
  if (t.edits.length > 0) {
    const shown = t.edits.slice(0, 2).map(basename).join(', ');
    parts.push(`edited ${shown}${t.edits.length > 2 ? ` +${t.edits.length - 2}` : ''}`);
  }
  if (t.commands > 0) {
    const last = t.lastCommand ? ` (last \`${t.lastCommand.key}\` ${t.lastCommand.ok ? 'ok' : 'FAILED'})` : '';
    parts.push(`ran ${t.commands} command${t.commands === 1 ? '' : 's'}${last}`);
  }
  if (t.committed || t.pushed) parts.push(t.committed && t.pushed ? 'committed and pushed' : t.committed ? 'committed' : 'pushed');
  if (t.rejected.length > 0) parts.push(`user rejected ${t.rejected[t.rejected.length - 1]}`);
  const head = t.prompt ? `Turn ${t.index} of ${n} ("${cut(t.prompt, 50)}")` : `Turn ${t.index} of ${n}`;
  const did = parts.length > 0 ? `: ${parts.join('; ')}.` : ': answered.';
  const reply = t.lastReply ? ` Last reply: "${cut(t.lastReply, 150)}"` : '';
  return `${head}${did}${reply}`;
}

/** Bullets under a "Next steps"/"TODO" heading of the final message, else its offer or closing question. */
function finalMessageItems(text: string): string[] {
  if (!text) return [];
  const lines = text.split('\n');
  const out: string[] = [];
  let inSteps = false;
  for (const raw of lines) {
    const l = raw.trim();
    if (/^(#+\s*|\*\*)?(next steps?|todo|remaining|follow[- ]ups?)\b/i.test(l)) {
      inSteps = true;
      continue;
    }
    if (!inSteps) continue;
    const bullet = /^(?:[-*\u2022]|\d+[.)])\s+(.+)$/.exec(l);
    if (bullet) out.push(bullet[1]!.replace(/\*\*/g, ''));
    else if (l !== '' && out.length > 0) break;
  }
  if (out.length > 0) return out;
  const flat = oneLine(text);
  const offer = /\b(?:would you like me to|do you want me to|shall i|should i)\s+([^?]+)\?/i.exec(flat);
  if (offer) return [`Offered to ${offer[1]!.trim()} (awaiting the user's answer)`];
  if (flat.endsWith('?')) {
    const q = flat.split(/(?<=[.!])\s+/).pop() ?? flat;
    return [`Get the user's answer: "${q}"`];
  }
  return [];
}

function nextActions(d: Derived): string[] {
  const out: string[] = [];
  if (d.awaiting) {
    if (d.awaiting.feedback) out.push(`Address user feedback: "${d.awaiting.feedback}"`);
    else out.push(d.awaiting.interrupt ? 'Ask the user how to proceed (they interrupted the agent)' : `Ask the user how to proceed (they ${d.awaiting.what})`);
  }
  if (d.todos && d.todos.length > 0) {
    const open = d.todos.filter((t) => t.status !== 'completed');
    const done = d.todos.length - open.length;
    const active = d.todos.find((t) => t.status === 'in_progress');
    const pending = d.todos.find((t) => t.status === 'pending');
    const pick = active ?? pending;
    if (pick) {
      const more = open.length - 1;
      const tail = ` (${more > 0 ? `+${more} open, ` : ''}${done}/${d.todos.length} done)`;
      out.push(`${active ? 'Continue' : 'Start'} todo: ${pick.text}${tail}`);
    }
  }
  const planAwaited = d.awaiting !== null && d.rejectedPlan !== null && d.awaiting.feedback === d.rejectedPlan.feedback && d.awaiting.what === 'rejected the plan';
  if (d.rejectedPlan && !planAwaited) out.push(`Revise the rejected plan${d.rejectedPlan.feedback ? `: "${d.rejectedPlan.feedback}"` : ''}`);
  const blocker = openBlocker(d);
  if (blocker) out.push(`Fix \`${blocker.key}\`${blocker.error ? `: ${blocker.error}` : ''}`);
  // the final message speaks for the last turn only when the agent had the last word
  if (d.lastActive && d.last && d.lastActive.index === d.last.index && !d.awaiting) out.push(...finalMessageItems(d.finalText));
  if (d.compactionNext) out.push(d.compactionNext);
  if (out.length === 0) out.push(d.last && !d.last.activity && d.last.prompt ? 'Respond to the latest request' : 'none pending');
  const seen = new Set<string>();
  return out.filter((x) => (seen.has(x) ? false : (seen.add(x), true)));
}

function openBlocker(d: Derived): { key: string; error: string } | null {
  const turn = d.lastActive?.index;
  if (turn === undefined) return null;
  const f = d.failures.find((x) => x.open && x.turn === turn);
  return f ? { key: f.key, error: f.error } : null;
}

function blockerLine(d: Derived): string {
  const f = openBlocker(d);
  if (f) return `\`${f.key}\` failing${f.error ? `: ${f.error}` : ''}`;
  if (d.awaiting) return `awaiting user \u2014 ${d.awaiting.what}${d.awaiting.feedback ? `: "${d.awaiting.feedback}"` : ''}`;
  return 'none';
}

/** The Execution Register, without a trailing newline. */
export function renderRegister(d: Derived): string {
  const state = stateLine(d);
  const actions = nextActions(d);
  const blocker = blockerLine(d);
  let text = '';
  for (const [goalCap, stateCap, itemCap, blockerCap, filesCap, itemsCap] of CAPS) {
    const lines = ['## Execution Register', ''];
    lines.push(`- **Goal:** ${d.goal ? cut(d.goal, goalCap) : 'none stated'}`);
    if (d.currentAsk && d.currentAsk !== d.goal) lines.push(`- **Current ask:** ${cut(d.currentAsk, goalCap)}`);
    lines.push(`- **State:** ${cut(state, stateCap)}`);
    const items = actions.slice(0, itemsCap).map((a) => cut(a, itemCap));
    lines.push(`- **Next action:** ${items[0]}`);
    for (const more of items.slice(1)) lines.push(`  - ${more}`);
    const files = d.activeFiles.slice(0, filesCap).map((f) => `\`${cut(f, 80)}\``);
    const extra = d.activeFiles.length - files.length;
    lines.push(`- **Active files:** ${files.length > 0 ? files.join(', ') + (extra > 0 ? ` (+${extra} more)` : '') : 'none'}`);
    lines.push(`- **Blocker:** ${cut(blocker, blockerCap)}`);
    text = lines.join('\n');
    if (tokens(text) <= L1_MAX_TOKENS) return text;
  }
  // the last stage still too long (only with pathological file names): cut the whole
  return cutToTokens(text, L1_MAX_TOKENS);
}

function cutToTokens(text: string, max: number): string {
  const cps = Array.from(text);
  return cps.length <= max * 4 ? text : cps.slice(0, max * 4 - 1).join('') + '\u2026';
}

function shown(item: CacheItem): string {
  const suffix = item.count > 1 ? ` (\u00d7${item.count})` : '';
  return `- ${cut(item.text, L2_ITEM_CHARS - suffix.length)}${suffix}`;
}

/** The Cognitive Cache, without a trailing newline; `''` when it would be empty. */
export function renderCache(d: Derived): string {
  const lists: [string, CacheItem[]][] = [
    ['Constraints', d.constraints],
    ['Decisions', d.decisions],
    ['Failed approaches', d.failed],
  ];
  const picked: string[][] = [[], [], []];
  const header = (k: number) => `### ${lists[k]![0]}\n\n`;
  // round-robin, skipping any item that would take the section past its budget
  let used = tokens('## Cognitive Cache\n\n');
  const cursor = [0, 0, 0];
  let count = 0;
  for (let progressed = true; progressed && count < L2_MAX_ITEMS; ) {
    progressed = false;
    for (let k = 0; k < 3 && count < L2_MAX_ITEMS; k++) {
      const list = lists[k]![1];
      while (cursor[k]! < list.length) {
        const line = shown(list[cursor[k]!]!);
        cursor[k]!++;
        const cost = tokens(line + '\n') + (picked[k]!.length === 0 ? tokens('\n' + header(k)) : 0);
        if (used + cost > L2_MAX_TOKENS) continue;
        used += cost;
        picked[k]!.push(line);
        count++;
        progressed = true;
        break;
      }
    }
  }
  const blocks = picked.map((items, k) => (items.length > 0 ? header(k) + items.join('\n') : '')).filter((b) => b !== '');
  if (blocks.length === 0) return '';
  const text = '## Cognitive Cache\n\n' + blocks.join('\n\n');
  return tokens(text) <= L2_MAX_TOKENS ? text : cutToTokens(text, L2_MAX_TOKENS);
}

export interface Layers {
  /** `## Execution Register` block. */
  l1: string;
  /** `## Cognitive Cache` block, `''` when empty. */
  l2: string;
}

export function renderLayers(d: Derived): Layers | null {
  if (!d.activity && d.turnCount === 0) return null;
  return { l1: renderRegister(d), l2: renderCache(d) };
}
