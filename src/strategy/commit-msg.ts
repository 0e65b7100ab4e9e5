/**
 * commit-msg (SPEC §6.4): a message that is only our trailer is emptied so
 * git aborts the commit as it would without us; always exit 0.
 */
import { writeFileSync } from 'node:fs';
import type { HookContext } from './context.js';
import { messageBody } from '../checkpoint/trailers.js';
import { commentCharOf, readMessageFile } from './commit-message.js';


/** SPEC §6.4: a message that is only our trailer is emptied so git aborts; always exit 0. */
export async function commitMsg(ctx: HookContext, args: string[]): Promise<void> {
  const file = args[0];
  if (!file) return;
  const { text, encoding } = readMessageFile(file);
  const cc = await commentCharOf(ctx);
  const body = messageBody(text, { commentChar: cc });
  const content = body.split('\n').filter((l) => l.trim() !== '' && !(cc && l.startsWith(cc)));
  if (content.length === 0 || !content.every((l) => /^Entire-Checkpoint:/.test(l))) return;
  const out = text
    .split('\n')
    .filter((l) => !/^Entire-Checkpoint:/.test(l.replace(/\r$/, '')))
    .join('\n');
  writeFileSync(file, out, encoding);
}

