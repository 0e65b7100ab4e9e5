/** The real-agent tier's drift report (SPEC-2 §G G3), checked on hand-made input. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DriftCollector } from '../real-agents/drift.js';
import { claudeCodeDriver } from '../real-agents/drivers/claude-code.js';
import { geminiDriver } from '../real-agents/drivers/gemini.js';

const dir = mkdtempSync(join(tmpdir(), 'entire-drift-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cli = { package: 'p', pinned: '1', version: '2' };

describe('drift report', () => {
  it('lists payload fields, events and line kinds the captures lack, and nothing the captures have', () => {
    const capture = join(dir, 'hooks.tsv');
    const stop = { session_id: 's', transcript_path: '/t', cwd: '/c', hook_event_name: 'Stop', last_assistant_message: 'x', shiny_new: 1, effort: { level: 'high', novel: true } };
    writeFileSync(
      capture,
      [
        `claude-code\tstop\t${JSON.stringify(stop)}`,
        `claude-code\tnew-verb\t${JSON.stringify({ hook_event_name: 'BrandNewEvent', session_id: 's' })}`,
        // another agent's payload is not this driver's business
        `gemini\tafter-agent\t${JSON.stringify({ hook_event_name: 'Stop', other: 1 })}`,
      ].join('\n') + '\n',
    );
    const transcript = join(dir, 't.jsonl');
    writeFileSync(
      transcript,
      [{ type: 'user' }, { type: 'assistant' }, { type: 'system', subtype: 'stop_hook_summary' }, { type: 'system', subtype: 'warp_drive' }, { type: 'attachment', attachment: { type: 'hologram' } }]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\nnot json\n',
    );
    const d = new DriftCollector(claudeCodeDriver);
    d.addHookCapture(capture);
    d.addTranscripts([transcript]);
    d.addUnknownRoutes(['GET /v1/new']);
    const r = d.report(cli);
    expect(r.newHookFields).toEqual({ Stop: ['effort.novel', 'shiny_new'] });
    expect(r.newHookEvents).toEqual(['BrandNewEvent']);
    expect(r.newLineKinds).toEqual(['attachment/hologram', 'system/warp_drive']);
    expect(r.unknownRoutes).toEqual(['GET /v1/new']);
    expect(r.seen).toEqual({ hookPayloads: 2, transcriptLines: 5 });
  });

  it('names Gemini session-file lines as the captures do', () => {
    const t = join(dir, 'g.jsonl');
    writeFileSync(
      t,
      [{ sessionId: 'x', startTime: 'y', kind: 'main' }, { $set: { lastUpdated: 'z' } }, { id: '1', type: 'user' }, { id: '2', type: 'gemini' }, { $rewindTo: '2' }, { id: '3', type: 'info' }]
        .map((l) => JSON.stringify(l))
        .join('\n'),
    );
    const d = new DriftCollector(geminiDriver);
    d.addTranscripts([t]);
    expect(d.report(cli).newLineKinds).toEqual(['$rewindTo', 'info']);
  });
});
