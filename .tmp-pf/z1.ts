import * as z from 'zod/mini';
if (process.env.JITLESS) z.config({ jitless: true });
const t0 = process.hrtime.bigint();
(globalThis as any).zz = z.string;
if (process.env.MODE !== 'import') {
  const zStr = z.nullish(z.string()); const zInt = z.nullish(z.int()); const zStrArr = z.nullish(z.array(z.string()));
  const P = z.looseObject({ checkpoint_id: z.string(), commit: zStr, files: zStrArr, a: zInt, b: zInt, c: zInt, d: zStr, e: zStr, f: zInt, g: zStr, h: zStr });
  const S = z.looseObject({ a1: zStr, a2: zStr, a3: zStr, a4: zStr, a5: zStr, a6: zStr, a7: zStr, a8: zStr, a9: zStr, b1: zStr, b2: zStrArr, b3: zStr, b4: zInt, b5: zInt, b6: zInt, b7: zInt, b8: zStrArr, b9: zStrArr, c1: zStr, c2: zStr, c3: z.nullish(z.unknown()), c4: zStr, c5: zStr, c6: zStr, c7: z.nullish(z.array(z.unknown())), c8: z.nullish(z.unknown()), c9: z.nullish(z.array(P)), d1: z.nullish(z.record(z.string(), P)) });
  const T = z.looseObject({ strategy: z.nullish(z.string()), enabled: z.nullish(z.boolean()), local_dev: z.nullish(z.boolean()), log_level: z.nullish(z.string()), strategy_options: z.nullish(z.record(z.string(), z.unknown())), telemetry: z.nullish(z.boolean()) });
  if (process.env.MODE === 'parse') { S.safeParse({ a1: 'x', b2: ['a', 'b'], b4: 3, c9: [] }); T.safeParse({ enabled: true }); }
}
process.stderr.write(`${process.env.MODE} ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(2)}\n`);
