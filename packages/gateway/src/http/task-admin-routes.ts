/**
 * Task administration under /api/task (admin envelope {success, message, data}): the task list and
 * details for administrators, resolution of flagged tasks, and every user's own task list and task
 * details (with the task's callback deliveries). Each route declares its schemas
 * (http/schemas/tasks.ts): Fastify checks requests and writes answers with them. Thin: decode, call
 * services.tasks.admin, encode.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TSchema } from 'typebox';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireUser } from './auth.ts';
import { Envelope, Paged, adminErrors, loggedIn, ref } from './schemas/common.ts';
import {
  AdminTask,
  AdminTaskDetail,
  AdminTaskQuery,
  OwnTask,
  OwnTaskDetail,
  OwnTaskQuery,
  TASK_SCHEMAS,
  TaskIdParams,
  TaskResolve,
} from './schemas/tasks.ts';
import { ok } from './envelope.ts';

/** A task administration operation: tagged, behind a login, its answer and error answers. */
const op = <M extends object = object>(summary: string, answer: TSchema, more?: M) => ({
  tags: ['tasks'],
  summary,
  security: loggedIn,
  ...(more as M),
  response: { 200: answer, ...adminErrors },
});

export async function taskAdminRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const tasks = deps.services.tasks.admin;
  const anyUser = { onRequest: requireUser(deps, 'user') };
  const adminOnly = { onRequest: requireUser(deps, 'admin') };
  for (const s of TASK_SCHEMAS) app.addSchema(s);
  const byId = { params: TaskIdParams };

  await app.register(async (scope) => {
    scope.setErrorHandler(familyErrorHandler('admin'));
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();

    api.get(
      '/api/task/self',
      { ...anyUser, schema: op('Your own tasks (no upstream ids, no channels)', Paged(ref(OwnTask)), { querystring: OwnTaskQuery }) },
      async (req) => {
        const p = tasks.parseQuery(req.query, true);
        return ok(await tasks.listOwn(req.user!.id, p.filter, p));
      },
    );
    api.get(
      '/api/task/self/:id',
      { ...anyUser, schema: op('One of your own tasks with its callback deliveries', Envelope(ref(OwnTaskDetail)), byId) },
      async (req) => ok(await tasks.getOwn(req.user!.id, req.params.id)),
    );
    api.get(
      '/api/task',
      {
        ...adminOnly,
        schema: op('List tasks (admins: tasks of users and their own; root: all) (admin)', Paged(ref(AdminTask)), {
          querystring: AdminTaskQuery,
        }),
      },
      async (req) => {
        const p = tasks.parseQuery(req.query, false);
        return ok(await tasks.list(p.filter, p, req.user));
      },
    );
    api.get(
      '/api/task/:id',
      { ...adminOnly, schema: op('One task with its ledger movements (admin)', Envelope(ref(AdminTaskDetail)), byId) },
      async (req) => ok(await tasks.get(req.params.id, req.user)),
    );
    api.post(
      '/api/task/:id/resolve',
      {
        ...adminOnly,
        schema: op(
          'Resolve a flagged task (409 when not flagged or resolved differently; a repeat of the same resolution changes nothing) (admin)',
          Envelope(ref(AdminTaskDetail)),
          { ...byId, body: ref(TaskResolve) },
        ),
      },
      async (req) => {
        const out = await tasks.resolve(req.params.id, tasks.parseResolve(req.body), req.user!);
        return ok(out.task, out.changed ? 'task resolved' : 'already resolved this way; nothing changed');
      },
    );
  });
}
