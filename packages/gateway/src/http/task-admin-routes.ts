/**
 * Task administration under /api/task (admin envelope {success, message, data}): the task list and
 * details for administrators, resolution of flagged tasks, and every user's own task list and task
 * details (with the task's callback deliveries). Thin:
 * decode, call services.tasks.admin, encode.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireUser } from './auth.ts';
import type { Obj } from '../platform/validate.ts';
import { ok } from './envelope.ts';

export async function taskAdminRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const tasks = deps.services.tasks.admin;
  const anyUser = { onRequest: requireUser(deps, 'user') };
  const adminOnly = { onRequest: requireUser(deps, 'admin') };
  const q = (req: FastifyRequest) => (req.query ?? {}) as Obj;
  const idOf = (req: FastifyRequest) => (req.params as { id: string }).id;

  await app.register(async (api) => {
    api.setErrorHandler(familyErrorHandler('admin'));

    api.get('/api/task/self', anyUser, async (req) => {
      const p = tasks.parseQuery(q(req), true);
      return ok(await tasks.listOwn(req.user!.id, p.filter, p));
    });
    api.get('/api/task/self/:id', anyUser, async (req) => ok(await tasks.getOwn(req.user!.id, idOf(req))));
    api.get('/api/task', adminOnly, async (req) => {
      const p = tasks.parseQuery(q(req), false);
      return ok(await tasks.list(p.filter, p, req.user));
    });
    api.get('/api/task/:id', adminOnly, async (req) => ok(await tasks.get(idOf(req), req.user)));
    api.post('/api/task/:id/resolve', adminOnly, async (req) => {
      const out = await tasks.resolve(idOf(req), tasks.parseResolve(req.body), req.user!);
      return ok(out.task, out.changed ? 'task resolved' : 'already resolved this way; nothing changed');
    });
  });
}
