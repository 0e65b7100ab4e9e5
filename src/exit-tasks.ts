/**
 * Work to finish before a hook process exits (saving caches). Modules that
 * are loaded register here, so the dispatcher never loads a module only to
 * ask whether it has something to save.
 */
const tasks = new Set<() => void>();

export function onExit(task: () => void): void {
  tasks.add(task);
}

export function runExitTasks(): void {
  for (const t of tasks) {
    try {
      t();
    } catch {
      /* best effort: caches only */
    }
  }
  tasks.clear();
}
