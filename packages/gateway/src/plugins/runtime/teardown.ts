/**
 * The process's exit and isolated-vm's isolate teardowns. `isolate.dispose()` returns at once and the
 * isolate is torn down afterwards on isolated-vm's own threads, which at the end tell Node's platform
 * that the isolate is gone (`UnregisterIsolate`). A process that exits during that teardown has
 * already disposed of Node's platform, and the thread crashes it (SIGSEGV: a command that printed its
 * answer ending with status 139, a server's graceful stop with a crash). So every disposal is noted
 * here, and the exits (command.ts) wait until the last one has had `TEARDOWN_MS`, which is hundreds of
 * times what a teardown takes on an idle machine. Kept free of isolated-vm so the command can wait
 * without loading it.
 */

/** What a disposed isolate's teardown is given before the process may exit (ms). */
export const TEARDOWN_MS = 500;

/** When an isolate was last disposed (performance.now()). */
let lastDisposal = Number.NEGATIVE_INFINITY;

/** Notes that an isolate was just disposed (its teardown has started). */
export function isolateDisposed(): void {
  lastDisposal = performance.now();
}

/** Resolves once the last isolate disposed has had TEARDOWN_MS to be torn down (at once when none was). */
export function isolatesTornDown(): Promise<void> {
  const wait = lastDisposal + TEARDOWN_MS - performance.now();
  return wait > 0 ? new Promise((resolve) => setTimeout(resolve, wait)) : Promise.resolve();
}
