import { inflateRaw2 } from './inflate2.js';
import { inflateRaw } from '../src/git/inflate.js';
import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
const which = process.argv[3];
const z = readFileSync(process.argv[2]!);
const raw = z.subarray(2);
const h = () => process.hrtime.bigint();
const t0 = h();
const r = which === 'new' ? inflateRaw2(raw, 0) : inflateRaw(raw, 0).data;
const t1 = h();
const r2 = which === 'new' ? inflateRaw2(raw, 0) : inflateRaw(raw, 0).data;
const t2 = h();
process.stderr.write(`${which} first ${(Number(t1 - t0) / 1e6).toFixed(3)} second ${(Number(t2 - t1) / 1e6).toFixed(3)} len ${r.length}\n`);
if (process.argv[4] === 'verify') {
  for (let i = 0; i < 3000; i++) { const len = (i * 7919) % 20000; const b = Buffer.from(Array.from({ length: len }, (_, k) => 'abc tree blob\n'[(k * k + i) % 14]).join('')); for (const level of [0, 1, 6, 9]) { const d = deflateSync(b, { level, strategy: i % 5 }); const x = inflateRaw2(d.subarray(2), 0); if (!Buffer.from(x).equals(b)) throw new Error('mismatch ' + i); } }
  console.log('verified');
}
