/**
 * Node built-ins that hooks load only when they use them. Loading
 * child_process (with net, stream and dgram behind it) costs about 5 ms and
 * crypto about 4 ms on the bench VM, which is a tenth of a hook that needs
 * neither; a top-level `import` would pay that on every run.
 */
type Builtins = {
  'node:child_process': typeof import('node:child_process');
  'node:crypto': typeof import('node:crypto');
  'node:zlib': typeof import('node:zlib');
  'node:readline': typeof import('node:readline');
  'node:os': typeof import('node:os');
  'node:tty': typeof import('node:tty');
};

// Not node:module's createRequire: loading node:module pulls in the ESM
// loader and the source-map support (about 1 ms a hook, measured).
function load<K extends keyof Builtins>(id: K): Builtins[K] {
  // Node ≥ 20.16
  const get = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (get) return get(id) as Builtins[K];
  // older Node 20: the bundle is CommonJS, whose require resolves built-ins
  if (typeof require === 'function') return require(id) as Builtins[K];
  throw new Error(`cannot load ${id}: Node 20.16 or later is needed here`);
}

export const childProcess = (): Builtins['node:child_process'] => load('node:child_process');
export const crypto = (): Builtins['node:crypto'] => load('node:crypto');
export const zlib = (): Builtins['node:zlib'] => load('node:zlib');
/** Also light, but only a missing HOME needs it. */
export const os = (): Builtins['node:os'] => load('node:os');
export const readline = (): Builtins['node:readline'] => load('node:readline');
/** node:tty loads net (about 3.5 ms): only a line that needs to know about a terminal pays it. */
export const tty = (): Builtins['node:tty'] => load('node:tty');
