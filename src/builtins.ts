/**
 * Node built-ins that hooks load only when they use them. Loading
 * child_process (with net, stream and dgram behind it) costs about 5 ms and
 * crypto about 4 ms on the bench VM, which is a tenth of a hook that needs
 * neither; a top-level `import` would pay that on every run.
 */
import { createRequire } from 'node:module';

type Builtins = {
  'node:child_process': typeof import('node:child_process');
  'node:crypto': typeof import('node:crypto');
  'node:zlib': typeof import('node:zlib');
  'node:readline': typeof import('node:readline');
};

let req: NodeJS.Require | undefined;

function load<K extends keyof Builtins>(id: K): Builtins[K] {
  // Node ≥ 20.16; a require works everywhere (built-ins resolve from any path)
  const get = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (get) return get(id) as Builtins[K];
  req ??= createRequire(process.execPath);
  return req(id) as Builtins[K];
}

export const childProcess = (): Builtins['node:child_process'] => load('node:child_process');
export const crypto = (): Builtins['node:crypto'] => load('node:crypto');
export const zlib = (): Builtins['node:zlib'] => load('node:zlib');
export const readline = (): Builtins['node:readline'] => load('node:readline');
