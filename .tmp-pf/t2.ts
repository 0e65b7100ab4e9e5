import { inflateZlib } from '../src/git/inflate.js';
import { readFileSync } from 'node:fs';
const b = readFileSync(process.argv[2]!);
for (let i = 0; i < 5; i++) {
  const t0 = process.hrtime.bigint();
  inflateZlib(b);
  console.log(i, (Number(process.hrtime.bigint() - t0) / 1e6).toFixed(3), 'ms');
}
const t0 = process.hrtime.bigint(); const x = new Int32Array(512); const y = new Uint16Array(16); console.log('alloc', (Number(process.hrtime.bigint() - t0) / 1e6).toFixed(3));
