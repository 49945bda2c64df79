/**
 * Task reads for callers: a task by its public id, the caller's own task (404 for anything else), its
 * public view with the callback delivery, and waiting for a task to end.
 */
import { fail } from '../../platform/errors.ts';
import type { Task } from './context.ts';
import type { TaskEnv } from './env.ts';
import { publicTask, TERMINAL, type PublicTask } from './states.ts';
import type { CallbackView } from '../callbacks/service.ts';

export class TaskReads {
  constructor(private readonly env: TaskEnv) {}

  async byPublicId(publicId: string): Promise<Task | undefined> {
    return this.env.store.byPublicId(publicId);
  }

  /** The caller's own, retained task; 404 for anything else. */
  async own(userId: number | null, publicId: string): Promise<Task> {
    const t = typeof publicId === 'string' && publicId.length <= 64 ? await this.byPublicId(publicId) : undefined;
    if (!t || t.retain !== 1 || (userId !== null && Number(t.user_id) !== userId)) {
      throw fail('task_not_found', `task ${String(publicId).slice(0, 64)} not found`);
    }
    return t;
  }

  /** The caller's task view, with its callback delivery when it has one. */
  async get(userId: number, publicId: string): Promise<PublicTask & { callback?: CallbackView }> {
    const t = await this.own(userId, publicId);
    const callback = this.env.callbacks ? await this.env.callbacks.view(t.id) : null;
    return callback ? { ...publicTask(t), callback } : publicTask(t);
  }

  /**
   * Resolves when the task reaches SUCCESS or FAILURE, or with its current view at `timeoutMs`.
   * Background polling keeps going regardless of the caller.
   */
  async waitForTerminal(
    publicId: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<{ task: PublicTask; row: Task; timedOut: boolean }> {
    const deadline = Date.now() + timeoutMs;
    const step = Math.max(20, Math.min(this.env.pollIntervalMs(), 1000));
    for (;;) {
      const t = await this.byPublicId(publicId);
      if (!t) throw fail('task_not_found', `task ${publicId} not found`);
      if (TERMINAL.has(t.status) || Date.now() >= deadline || signal?.aborted)
        return { task: publicTask(t), row: t, timedOut: !TERMINAL.has(t.status) };
      await new Promise((r) => setTimeout(r, Math.min(step, Math.max(1, deadline - Date.now()))));
    }
  }
}
