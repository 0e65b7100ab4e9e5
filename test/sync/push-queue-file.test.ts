/**
 * SPEC-3 §A.6: the push-queue file module (src/sync/push-queue.ts) on its own:
 * shape validation of every line, the read caps, append, and the locked
 * temp + rename rewrite. The end-to-end drain is test/sync/push-queue.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, tempDir } from '../helpers/repo.js';
import { goRef, ulid } from '../helpers/go-refs.js';
import { appendToPushQueue, MAX_QUEUE_LINES, parseQueue, PUSH_QUEUE_FILE, PUSH_QUEUE_LOCK, queueLineRef, readPushQueue, rewritePushQueue } from '../../src/sync/push-queue.js';

afterAll(() => cleanupAll());

const line = (ref: string): string => JSON.stringify({ ref });

describe('push queue file', () => {
  it('accepts only checkpoint refs by shape (hex and ULID ids)', () => {
    const u = ulid(1);
    expect(queueLineRef(line(goRef(u)))).toBe(goRef(u));
    expect(queueLineRef(line('refs/entire/checkpoints/f6/a1b2c3d4e5f6'))).toBe('refs/entire/checkpoints/f6/a1b2c3d4e5f6');
    for (const bad of [
      line('refs/heads/main'),
      line(`+${goRef(u)}`),
      line(`refs/entire/checkpoints/XX/${u}`),
      line(`${goRef(u)}/x`),
      line('refs/entire/checkpoints/../heads/x'),
      line('--exec=sh'),
      line(`refs/entire/checkpoints/${u.slice(-2)}/--upload-pack=x`),
      JSON.stringify({ ref: 42 }),
      JSON.stringify([goRef(u)]),
      'null',
      '{"ref":',
      JSON.stringify({ ref: goRef(u), pad: 'x'.repeat(2000) }),
    ]) {
      expect(queueLineRef(bad), bad).toBeNull();
    }
  });

  it('de-duplicates, counts skipped lines, and stops at the line cap (the rest kept verbatim)', () => {
    const a = goRef(ulid(1));
    const b = goRef(ulid(2));
    expect(parseQueue([line(a), 'junk', line(b), line(a), ''].join('\n'))).toEqual({ refs: [a, b], skipped: 1, unread: '' });
    const many = Array.from({ length: MAX_QUEUE_LINES + 2 }, () => line(a)).join('\n') + '\n';
    const q = parseQueue(many);
    expect(q.refs).toEqual([a]);
    expect(q.unread).toBe(`${line(a)}\n${line(a)}\n`);
  });

  it('appends compact lines (mode 0600) and rewrites under the lock, keeping refs that may not leave', async () => {
    const dir = tempDir();
    const [a, b, c] = [goRef(ulid(1)), goRef(ulid(2)), goRef(ulid(3))];
    await appendToPushQueue(dir, [a, 'refs/heads/main', b]);
    await appendToPushQueue(dir, [c]);
    const path = join(dir, PUSH_QUEUE_FILE);
    expect(readFileSync(path, 'utf8')).toBe(`{"ref":"${a}"}\n{"ref":"${b}"}\n{"ref":"${c}"}\n`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    writeFileSync(path, readFileSync(path, 'utf8') + 'not json\n');
    expect(readPushQueue(dir)).toMatchObject({ refs: [a, b, c], skipped: 1 });
    const left = await rewritePushQueue(dir, async (ref) => ref === b);
    expect(left).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe(`{"ref":"${a}"}\n{"ref":"${c}"}\n`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("waits for a live lock and takes over another tool's lock file once it is stale", async () => {
    const dir = tempDir();
    const a = goRef(ulid(1));
    const lock = join(dir, PUSH_QUEUE_LOCK);
    // a lock file without our fields (as another tool may leave it), 60 s old: stale
    writeFileSync(lock, '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    await appendToPushQueue(dir, [a]);
    expect(readPushQueue(dir).refs).toEqual([a]);
    // a fresh one is a holder: the append gives up after its bounded wait and changes nothing
    writeFileSync(lock, '');
    await expect(appendToPushQueue(dir, [goRef(ulid(2))])).rejects.toThrow(/timed out/);
    expect(readPushQueue(dir).refs).toEqual([a]);
  });
});
