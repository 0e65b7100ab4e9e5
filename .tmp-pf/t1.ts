import { inflateZlib } from '../src/git/inflate.js';
import { readFileSync } from 'node:fs';
const f = process.argv[2]!;
const t0 = process.hrtime.bigint();
try { const o = inflateZlib(readFileSync(f)); console.log('ok', o.length, o.subarray(0, 20).toString()); } catch (e) { console.log('ERR', (e as Error).message); }
console.log((Number(process.hrtime.bigint() - t0) / 1e6).toFixed(2), 'ms', 'zlib loaded:', process.moduleLoadList.some((m) => m.includes('zlib')));
