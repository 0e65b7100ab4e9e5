/**
 * Collects what the stress files tried (fault points, races, bad inputs)
 * across worker processes and prints the totals once, after every file ran,
 * whatever reporter is used.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'entire-stress-counts-'));
  process.env['ENTIRE_STRESS_COUNTS_DIR'] = dir;
  return () => {
    const totals: Record<string, number> = { 'fault points': 0, races: 0, 'bad inputs': 0, 'secrets planted': 0, 'fuzz runs': 0 };
    for (const f of readdirSync(dir)) {
      for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
        if (!line) continue;
        const [kind, n] = line.split('\t');
        totals[kind!] = (totals[kind!] ?? 0) + Number(n);
      }
    }
    rmSync(dir, { recursive: true, force: true });
    console.log(`\nstress suite tried: ${Object.entries(totals).map(([k, v]) => `${v} ${k}`).join(', ')}\n`);
  };
}
