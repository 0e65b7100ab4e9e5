/**
 * Agents are plug-ins (issue 15): everything about one agent lives in
 * `src/agents/<key>/`, and the registry is the only list of agents. This
 * fails when any other source file names an agent: its key in a string or a
 * path, its display name, or its brand (`Gemini`, `Claude`, also inside
 * identifiers such as `isGemini`).
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { listAgents } from '../../src/agents/registry.js';

const SRC = join(import.meta.dirname, '..', '..', 'src');

/** Brands that are also everyday words (a `cursor` into a file): only their key in a string or path counts. */
const EVERYDAY_WORDS = new Set(['cursor']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function patternsFor(key: string, displayName: string): RegExp[] {
  const k = esc(key);
  const out = [new RegExp(`['"\`]${k}['"\`]|/${k}/|\\.${k}/|hooks ${k}\\b`)];
  const brand = displayName.split(' ')[0]!;
  if (!EVERYDAY_WORDS.has(brand.toLowerCase())) {
    out.push(new RegExp(esc(brand), 'i'), new RegExp(esc(displayName)));
  }
  return out;
}

describe('agent plug-in boundary', () => {
  it('no file outside src/agents/<agent>/ and the registry names an agent', () => {
    const agents = listAgents();
    expect(agents.length).toBeGreaterThan(0);
    const own = new Set(agents.map((a) => join(SRC, 'agents', a.key)));
    const files = sourceFiles(SRC).filter((f) => f !== join(SRC, 'agents', 'registry.ts') && ![...own].some((d) => f.startsWith(d + '/')));
    expect(files.length).toBeGreaterThan(50);
    const hits: string[] = [];
    for (const f of files) {
      const lines = readFileSync(f, 'utf8').split('\n');
      for (const a of agents) {
        const pats = patternsFor(a.key, a.displayName);
        lines.forEach((line, i) => {
          if (pats.some((p) => p.test(line))) hits.push(`${relative(SRC, f)}:${i + 1} names ${a.key}: ${line.trim()}`);
        });
      }
    }
    expect(hits).toEqual([]);
  });

  it('the check catches an agent named outside its folder', () => {
    const [claude, gemini, cursor] = [
      patternsFor('claude-code', 'Claude Code'),
      patternsFor('gemini', 'Gemini CLI'),
      patternsFor('cursor', 'Cursor'),
    ];
    const named = (pats: RegExp[], line: string) => pats.some((p) => p.test(line));
    expect(named(gemini, 'const isGemini = agent === x;')).toBe(true);
    expect(named(claude, "const dirs = ['.claude/'];")).toBe(true);
    expect(named(cursor, "if (agent === 'cursor') return;")).toBe(true);
    expect(named(cursor, 'const p = join(root, ".cursor/hooks.json");')).toBe(true);
    expect(named(cursor, 'const cursor = this.best(line); // a TranscriptCursor')).toBe(false);
  });
});
