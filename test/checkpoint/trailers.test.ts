import { describe, it, expect } from 'vitest';
import {
  finalTrailerBlock,
  checkpointIdsInFinalBlock,
  lastCheckpointIdInFinalBlock,
  allCheckpointIds,
  addCheckpointTrailer,
  removeCheckpointTrailers,
} from '../../src/checkpoint/trailers.js';

const ID = 'a1b2c3d4e5f6';
const OLD = '0123456789ab';

describe('final trailer block (SPEC §2.2)', () => {
  it('is the last paragraph when it is not the subject and every line is a trailer', () => {
    expect(finalTrailerBlock('feat: x\n')).toBeNull();
    expect(finalTrailerBlock('Entire-Checkpoint: a1b2c3d4e5f6\n')).toBeNull(); // subject only
    expect(finalTrailerBlock('feat\n\nbody text\n')).toBeNull();
    expect(finalTrailerBlock('feat\n\nSigned-off-by: A <a@b>\nEntire-Checkpoint: a1b2c3d4e5f6\n')?.lines).toEqual([
      'Signed-off-by: A <a@b>',
      'Entire-Checkpoint: a1b2c3d4e5f6',
    ]);
    expect(finalTrailerBlock('feat\n\nKey: value\n  continued\n')?.lines).toHaveLength(2);
  });

  it('ignores comment lines, trailing blanks, CRLF and everything below a scissors line', () => {
    const msg = `feat\r\n\r\nEntire-Checkpoint: ${ID}\r\n\r\n# comment\n# ------------------------ >8 ------------------------\nEntire-Checkpoint: ${OLD}\n`;
    expect(checkpointIdsInFinalBlock(msg)).toEqual([ID]);
  });

  it('honours core.commentChar', () => {
    const msg = `feat\n\nEntire-Checkpoint: ${ID}\n; a comment\n`;
    expect(checkpointIdsInFinalBlock(msg, { commentChar: ';' })).toEqual([ID]);
    expect(checkpointIdsInFinalBlock(msg, { commentChar: '#' })).toEqual([]);
  });

  it('does not see IDs embedded in a squash message body', () => {
    const squash = `Squashed commit of the following:\n\ncommit abc\n\n    feat\n\n    Entire-Checkpoint: ${OLD}\n\nfix it\n`;
    expect(checkpointIdsInFinalBlock(squash)).toEqual([]);
    // readers still link every well-formed line anywhere
    expect(allCheckpointIds(`x\n\nEntire-Checkpoint: ${OLD}\n\nbody\nEntire-Checkpoint: ${ID}\nEntire-Checkpoint: ${OLD}\n`)).toEqual([OLD, ID]);
  });

  it('returns the last ID of the block for amend', () => {
    expect(lastCheckpointIdInFinalBlock(`x\n\nEntire-Checkpoint: ${OLD}\nEntire-Checkpoint: ${ID}\n`)).toBe(ID);
  });
});

describe('adding and removing trailers', () => {
  it('never treats the subject as a trailer block (SPEC §11.44)', () => {
    expect(addCheckpointTrailer('feat: x', ID)).toBe(`feat: x\n\nEntire-Checkpoint: ${ID}\n`);
    expect(addCheckpointTrailer('feat: x\n', ID)).toBe(`feat: x\n\nEntire-Checkpoint: ${ID}\n`);
  });

  it('joins an existing trailer block on the next line', () => {
    expect(addCheckpointTrailer('feat\n\nSigned-off-by: A <a@b>\n', ID)).toBe(`feat\n\nSigned-off-by: A <a@b>\nEntire-Checkpoint: ${ID}\n`);
  });

  it('keeps git comment lines after the trailer', () => {
    const out = addCheckpointTrailer('feat\n\n# Please enter the commit message\n# Lines starting with # are ignored\n', ID);
    expect(out).toBe(`feat\n\nEntire-Checkpoint: ${ID}\n\n# Please enter the commit message\n# Lines starting with # are ignored\n`);
    expect(checkpointIdsInFinalBlock(out)).toEqual([ID]);
  });

  it('starts an empty message with two blank lines', () => {
    const out = addCheckpointTrailer('\n# Please enter\n', ID);
    expect(out.startsWith(`\n\nEntire-Checkpoint: ${ID}\n`)).toBe(true);
    expect(out).toContain('# Please enter');
  });

  it('removes copied IDs from the final block only', () => {
    const msg = `feat\n\nbody Entire-Checkpoint: ${OLD}\n\nSigned-off-by: A <a@b>\nEntire-Checkpoint: ${OLD}\n`;
    expect(removeCheckpointTrailers(msg)).toBe(`feat\n\nbody Entire-Checkpoint: ${OLD}\n\nSigned-off-by: A <a@b>\n`);
    expect(removeCheckpointTrailers(`feat\n\nEntire-Checkpoint: ${OLD}\n`)).toBe('feat\n');
    expect(removeCheckpointTrailers(`feat\n\nEntire-Checkpoint: ${OLD}\nEntire-Checkpoint: ${ID}\n`, { keep: ID })).toBe(`feat\n\nEntire-Checkpoint: ${ID}\n`);
  });
});
