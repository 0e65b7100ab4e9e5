import { describe, it, expect, afterAll } from 'vitest';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { cleanupAll } from '../helpers/repo.js';
import { world, stateOf, shadowBranches } from './helpers.js';

afterAll(cleanupAll);

describe('subagents (SPEC §6.8)', () => {
  it('pre-task then post-task writes a subagent step with the redacted subagent transcript', () => {
    const { r, agent } = world();
    agent.prompt('delegate the config file');
    const toolUseId = 'toolu_01Pt4Sk6Ag8En1Ts3Pr5Eq7T';
    expect(agent.hook('pre-task', { tool_use_id: toolUseId, tool_input: { description: 'Write config', prompt: 'write it', subagent_type: 'general' } }).status).toBe(0);
    // the subagent writes a file and has its own transcript beside the main one
    writeFileSync(join(r.dir, 'config.yml'), 'key: value\n');
    const sub = join(dirname(agent.transcriptPath), 'agent-a7f3c91.jsonl');
    mkdirSync(dirname(sub), { recursive: true });
    writeFileSync(
      sub,
      JSON.stringify({
        type: 'assistant',
        uuid: 's1',
        message: { id: 'sm1', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Write', input: { file_path: join(r.dir, 'config.yml'), content: 'token ghp_FaKe7T0kEnF0rTeStS9xQ2mZ7vR1bN8kL3pJ' } }] },
      }) + '\n',
    );
    const post = agent.hook('post-task', {
      tool_use_id: toolUseId,
      tool_input: { description: 'Write config', prompt: 'write it', subagent_type: 'general' },
      tool_response: { status: 'completed', agentId: 'a7f3c91', content: [{ type: 'text', text: 'done' }] },
    });
    expect(post.status, post.stderr).toBe(0);
    const [branch] = shadowBranches(r);
    expect(branch).toBeDefined();
    const files = r.git(['ls-tree', '-r', '--name-only', branch!]);
    expect(files).toContain('config.yml');
    expect(files).toContain(`.entire/metadata/${agent.sessionId}/tasks/${toolUseId}/agent-a7f3c91.jsonl`);
    const subCopy = r.git(['show', `${branch}:.entire/metadata/${agent.sessionId}/tasks/${toolUseId}/agent-a7f3c91.jsonl`]);
    expect(subCopy).not.toContain('ghp_FaKe7T0kEnF0rTeStS9xQ2mZ7vR1bN8kL3pJ');
    expect(r.git(['log', '-1', '--format=%B', branch!])).toContain(`Entire-Metadata-Task: .entire/metadata/${agent.sessionId}/tasks/${toolUseId}`);
    expect(stateOf(r, agent.sessionId)['files_touched']).toEqual(['config.yml']);
    // an invalid tool_use_id is refused without a trace
    const bad = agent.hook('pre-task', { tool_use_id: '../../etc', tool_input: {} });
    expect(bad.status).toBe(0);
    expect(bad.stderr.split('\n').filter(Boolean).length).toBeLessThanOrEqual(1);
  });
});
