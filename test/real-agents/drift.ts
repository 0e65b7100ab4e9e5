/**
 * What a run saw that the committed captures do not show (SPEC-2 §G G3):
 * hook payload fields per event, transcript line kinds, and model-API routes
 * the scripted server did not know. Written per agent as JSON for the
 * compatibility table (scripts/agents-test.mjs); never a test failure by itself.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './world.js';
import type { AgentDriver } from './drivers/types.js';

interface KnownShapes {
  [agent: string]: { version: string; hookFields: Record<string, string[]>; lineKinds: string[] };
}

export interface DriftReport {
  agent: string;
  package: string;
  pinned: string;
  version: string;
  /** event → fields no capture shows */
  newHookFields: Record<string, string[]>;
  /** hook events no capture shows */
  newHookEvents: string[];
  newLineKinds: string[];
  unknownRoutes: string[];
  /** How many hook payloads and transcript lines were looked at. */
  seen: { hookPayloads: number; transcriptLines: number };
}

const KNOWN_FILE = join(PROJECT_ROOT, 'test', 'fixtures', 'real-agents', 'known-shapes.json');

/** Top-level keys, plus `key.sub` for keys of object-valued fields (as scripts/agents-known-shapes.mjs). */
export function payloadFields(payload: Record<string, unknown>): string[] {
  const fields: string[] = [];
  for (const [k, v] of Object.entries(payload)) {
    fields.push(k);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) for (const s of Object.keys(v)) fields.push(`${k}.${s}`);
  }
  return fields;
}

function parseLines(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const l of text.split('\n')) {
    if (l.trim() === '') continue;
    try {
      const v: unknown = JSON.parse(l);
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      /* a torn or foreign line: not a shape */
    }
  }
  return out;
}

export class DriftCollector {
  private readonly fields = new Map<string, Set<string>>();
  private readonly kinds = new Set<string>();
  private readonly routes = new Set<string>();
  private payloads = 0;
  private lines = 0;

  constructor(private readonly driver: AgentDriver) {}

  /** The shim's capture file: `<agent>\t<verb>\t<json>` per hook call. */
  addHookCapture(file: string): void {
    if (!existsSync(file)) return;
    for (const row of readFileSync(file, 'utf8').split('\n')) {
      const [agent, verb, json] = row.split('\t');
      if (agent !== this.driver.key || json === undefined) continue;
      let p: unknown;
      try {
        p = JSON.parse(json);
      } catch {
        continue;
      }
      if (p === null || typeof p !== 'object' || Array.isArray(p)) continue;
      const payload = p as Record<string, unknown>;
      const event = typeof payload['hook_event_name'] === 'string' ? payload['hook_event_name'] : `verb:${verb}`;
      const set = this.fields.get(event) ?? new Set<string>();
      for (const f of payloadFields(payload)) set.add(f);
      this.fields.set(event, set);
      this.payloads++;
    }
  }

  addTranscripts(files: string[]): void {
    for (const f of files) {
      if (!existsSync(f)) continue;
      for (const line of parseLines(readFileSync(f, 'utf8'))) {
        this.kinds.add(this.driver.lineKind(line));
        this.lines++;
      }
    }
  }

  addUnknownRoutes(routes: string[]): void {
    for (const r of routes) this.routes.add(r);
  }

  report(cli: { package: string; pinned: string; version: string }): DriftReport {
    const known = (JSON.parse(readFileSync(KNOWN_FILE, 'utf8')) as KnownShapes)[this.driver.key];
    const newHookFields: Record<string, string[]> = {};
    const newHookEvents: string[] = [];
    for (const [event, fields] of [...this.fields].sort(([a], [b]) => a.localeCompare(b))) {
      const knownFields = known?.hookFields[event];
      if (knownFields === undefined) {
        newHookEvents.push(event);
        continue;
      }
      const extra = [...fields].filter((f) => !knownFields.includes(f)).sort();
      if (extra.length > 0) newHookFields[event] = extra;
    }
    return {
      agent: this.driver.key,
      ...cli,
      newHookFields,
      newHookEvents,
      newLineKinds: [...this.kinds].filter((k) => !(known?.lineKinds ?? []).includes(k)).sort(),
      unknownRoutes: [...this.routes].sort(),
      seen: { hookPayloads: this.payloads, transcriptLines: this.lines },
    };
  }
}

export function writeDriftReport(dir: string, report: DriftReport): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${report.agent}.drift.json`), JSON.stringify(report, null, 2) + '\n');
}
