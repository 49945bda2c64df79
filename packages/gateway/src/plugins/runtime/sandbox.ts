/**
 * One plugin version in V8 isolates (isolated-vm): a small pool of isolates, each with the module
 * evaluated once, called with a JSON string in and a JSON string out. A timed-out or memory-killed
 * isolate is thrown away and replaced on demand; other isolates and plugins are not affected.
 */
import ivm from 'isolated-vm';
import { isolateDisposed } from './teardown.ts';
import { PRELUDE } from './prelude.ts';
import * as hu from './host-utils.ts';
import { PluginCallError, cleanMessage } from './errors.ts';

export interface SandboxOptions {
  /** `key@version`, for messages and logs. */
  label: string;
  key: string;
  timeoutMs: number;
  memoryMb: number;
  poolSize: number;
  /** Waiting time for a free isolate before the call fails (default = timeoutMs). */
  admissionTimeoutMs?: number;
  /** Largest JSON result, in characters (default 8 MiB). */
  maxResultChars?: number;
  capabilities: readonly string[];
  /** Unix seconds (injectable in tests). */
  now?: () => number;
  log?: (line: string) => void;
}

interface Slot {
  isolate: ivm.Isolate;
  context: ivm.Context;
  dispatch: ivm.Reference<(hook: string, args: string) => string>;
}

export interface Describe {
  exports: Record<string, string>;
  native: Record<string, string> | null;
  protocols: Record<string, Record<string, string> | string> | null;
  batchParams: string[];
  meta: unknown;
  metaError: string | null;
  /** An exported `tools` array as JSON (MCP tool plugins), else null. */
  tools?: unknown;
}

export class PluginSandbox {
  private readonly idle: Slot[] = [];
  private live = 0;
  private readonly waiters: Array<{ resolve: (s: Slot) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }> = [];
  private cachedData: ivm.ExternalCopy<ArrayBuffer> | undefined;
  private retired = false;
  private disposed = false;
  /** Isolates replaced after a timeout or memory kill (for status and tests). */
  replaced = 0;

  private constructor(
    private readonly source: string,
    private readonly opts: SandboxOptions,
  ) {}

  /** Compiles and evaluates the module once, returning the sandbox and what the module exports. */
  static async create(source: string, opts: SandboxOptions): Promise<{ sandbox: PluginSandbox; describe: Describe }> {
    const sb = new PluginSandbox(source, opts);
    const slot = await sb.newSlot();
    try {
      const out = await slot.dispatch.apply(undefined, ['\u0000describe', '[]'], { timeout: opts.timeoutMs });
      if (typeof out !== 'string' || out[0] !== 'R') throw new Error(`module inspection failed: ${String(out).slice(1)}`);
      const describe = JSON.parse(out.slice(1)) as Describe;
      sb.live++;
      sb.idle.push(slot);
      return { sandbox: sb, describe };
    } catch (e) {
      disposeIsolate(slot.isolate);
      throw e;
    }
  }

  private async newSlot(): Promise<Slot> {
    const o = this.opts;
    const isolate = new ivm.Isolate({ memoryLimit: Math.max(8, o.memoryMb) });
    try {
      const context = await isolate.createContext();
      const now = o.now ?? (() => Math.floor(Date.now() / 1000));
      const log = o.log ?? (() => {});
      const make = context.evalClosureSync(
        PRELUDE,
        [
          new ivm.Callback((m: string, s: string) => hu.hmacSHA256(m, s)),
          new ivm.Callback((c: string, s: string) => hu.jwtSignHS256(c, s)),
          new ivm.Callback((s: string) => hu.base64(s)),
          new ivm.Callback((s: string) => hu.base64URL(s)),
          new ivm.Callback((s: string) => hu.base64URLDecode(s)),
          new ivm.Callback((r: string) => hu.volcSignV4(r, now())),
          new ivm.Callback(() => now()),
          new ivm.Callback(() => hu.uuid()),
          new ivm.Callback((line: string) => log(`[plugin:${o.label}] ${line}`)),
          JSON.stringify(o.capabilities),
          o.maxResultChars ?? 8 * 1024 * 1024,
        ],
        { result: { reference: true }, timeout: 1000 },
      ) as ivm.Reference<(ns: unknown) => unknown>;
      const mod = await isolate.compileModule(this.source, {
        filename: `file:///plugins/${o.label}.js`,
        ...(this.cachedData ? { cachedData: this.cachedData } : { produceCachedData: true }),
      });
      if (!this.cachedData && (mod as unknown as { cachedData?: ivm.ExternalCopy<ArrayBuffer> }).cachedData) {
        this.cachedData = (mod as unknown as { cachedData: ivm.ExternalCopy<ArrayBuffer> }).cachedData;
      }
      await mod.instantiate(context, (spec) => {
        throw new Error(`plugins cannot import modules ("${spec}")`);
      });
      await mod.evaluate({ timeout: o.timeoutMs });
      const dispatch = make.applySync(undefined, [mod.namespace.derefInto()], {
        result: { reference: true },
        timeout: 1000,
      }) as unknown as ivm.Reference<(hook: string, args: string) => string>;
      make.release();
      return { isolate, context, dispatch };
    } catch (e) {
      const msg = isolate.isDisposed
        ? 'the module exceeded the memory limit while loading'
        : cleanMessage((e as Error).message ?? String(e));
      disposeIsolate(isolate);
      throw new Error(/timed out/i.test(msg) ? `module evaluation timed out after ${o.timeoutMs} ms` : msg);
    }
  }

  private acquire(hook: string): Promise<Slot> {
    if (this.disposed) return Promise.reject(new PluginCallError(this.opts.key, hook, 'runtime', 'the plugin runtime was shut down'));
    const s = this.idle.pop();
    if (s) return Promise.resolve(s);
    if (this.live < Math.max(1, this.opts.poolSize)) {
      this.live++;
      return this.newSlot().catch((e) => {
        this.live--;
        this.wakeNext();
        throw new PluginCallError(this.opts.key, hook, 'runtime', `could not start the plugin: ${cleanMessage((e as Error).message)}`);
      });
    }
    return new Promise((resolve, reject) => {
      const w = {
        resolve,
        reject,
        timer: setTimeout(() => {
          const i = this.waiters.indexOf(w);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(new PluginCallError(this.opts.key, hook, 'admission', 'plugin call admission timed out (all isolates busy)'));
        }, this.opts.admissionTimeoutMs ?? this.opts.timeoutMs),
      };
      w.timer.unref?.();
      this.waiters.push(w);
    });
  }

  private release(slot: Slot): void {
    const w = this.waiters.shift();
    if (w) {
      clearTimeout(w.timer);
      w.resolve(slot);
      return;
    }
    if (this.retired || this.disposed) {
      this.live--;
      this.drop(slot);
      return;
    }
    this.idle.push(slot);
  }

  /** A slot died: start a replacement for a waiter, if any. */
  private wakeNext(): void {
    const w = this.waiters[0];
    if (!w || this.disposed || this.live >= Math.max(1, this.opts.poolSize)) return;
    this.waiters.shift();
    clearTimeout(w.timer);
    this.live++;
    this.newSlot().then(w.resolve, (e) => {
      this.live--;
      w.reject(new PluginCallError(this.opts.key, 'call', 'runtime', cleanMessage((e as Error).message)));
    });
  }

  private drop(slot: Slot): void {
    try {
      slot.dispatch.release();
    } catch {
      /* already gone */
    }
    try {
      disposeIsolate(slot.isolate);
    } catch {
      /* already gone */
    }
  }

  /**
   * Calls `hook` (dotted for members) with `argsJson` (a JSON array). Resolves the result JSON, or
   * `undefined` when the hook does not exist. Rejects with PluginCallError.
   */
  async call(hook: string, argsJson: string): Promise<string | undefined> {
    const slot = await this.acquire(hook);
    let out: unknown;
    try {
      out = await slot.dispatch.apply(undefined, [hook, argsJson], { timeout: this.opts.timeoutMs });
    } catch (e) {
      const dead = slot.isolate.isDisposed;
      const msg = String((e as Error)?.message ?? e);
      this.live--;
      this.replaced++;
      this.drop(slot);
      this.wakeNext();
      if (dead || /memory limit|disposed/i.test(msg))
        throw new PluginCallError(this.opts.key, hook, 'memory', `the hook exceeded the plugin memory limit (${this.opts.memoryMb} MB)`);
      if (/timed out/i.test(msg))
        throw new PluginCallError(this.opts.key, hook, 'timeout', `the hook timed out after ${this.opts.timeoutMs} ms`);
      throw new PluginCallError(this.opts.key, hook, 'runtime', cleanMessage(msg));
    }
    this.release(slot);
    const s = out as string;
    switch (s[0]) {
      case 'R':
        return s.slice(1);
      case 'N':
        return undefined;
      case 'E':
        throw new PluginCallError(this.opts.key, hook, 'thrown', cleanMessage(s.slice(1), 500));
      default:
        throw new PluginCallError(this.opts.key, hook, 'invalid_result', cleanMessage(s.slice(1)));
    }
  }

  /** No longer in the newest generation: calls still work, but isolates are not kept idle. */
  retire(): void {
    this.retired = true;
    while (this.idle.length) {
      this.live--;
      this.drop(this.idle.pop()!);
    }
  }

  dispose(): void {
    this.disposed = true;
    this.retire();
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(new PluginCallError(this.opts.key, 'call', 'runtime', 'the plugin runtime was shut down'));
    }
  }

  get stats() {
    return { live: this.live, idle: this.idle.length, waiting: this.waiters.length, replaced: this.replaced, retired: this.retired };
  }
}

/**
 * Disposes an isolate not yet disposed and notes it for the process's exit (teardown.ts); one that
 * isolated-vm disposed itself (its memory limit) is noted too, as its teardown may still be running.
 */
function disposeIsolate(isolate: ivm.Isolate): void {
  if (!isolate.isDisposed) isolate.dispose();
  isolateDisposed();
}
