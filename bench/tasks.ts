/**
 * Task-host benchmarks, run in this process against an in-process gateway (SQLite in a temporary
 * file) and the loopback task vendor of the integration tests (`packages/gateway/test/fakes/vendor`):
 *
 *  - submitThroughput: task submissions per second through `POST /v1/tasks/loopback-video` (a
 *    `per_task` plugin installed through the plugin admin service, a type 61 channel to the vendor,
 *    a price expression): API key, plugin hooks buildSubmitRequest/parseSubmitResponse in the
 *    sandbox, the vendor call, the billing reserve and the task row. Closed loop at concurrency 32,
 *    with p50/p99. The poll interval is long meanwhile, so the poller does not compete.
 *  - pollerPerTask / pollerBatch: tasks brought from submitted to SUCCESS (and settled) per second by
 *    the background poller with `inFlight` tasks due at once, for `loopback-video` (one status call
 *    per task) and `loopback-batch` (one call per claimed batch). The tasks are cloned in bulk from a
 *    really submitted one (rows, vendor tasks and reserve movements), so the setup does not dominate;
 *    every poll, hook call, state change and settlement is the real one. Poll interval 20 ms.
 *  - hookCallUs: one plugin hook call (`parseTaskResult` of loopback-video: JSON in, sandboxed call,
 *    JSON out, result check) through the loaded plugin, in microseconds.
 *
 * The gateway shares this process with the load; the numbers are the task host's capacity on one
 * core, not comparable with the proxy measurements.
 */
import { Pool } from 'undici';
import { percentile } from './stats.ts';

export interface TaskBenchOptions {
  quick: boolean;
  log(msg: string): void;
}

export interface TaskBenchResult {
  status: 'ok' | 'not available';
  reason?: string;
  submitThroughput: { rps: number; p50Ms: number; p99Ms: number; requests: number; concurrency: number } | null;
  pollerPerTask: { tasksPerSecond: number; inFlight: number; seconds: number } | null;
  pollerBatch: { tasksPerSecond: number; inFlight: number; seconds: number } | null;
  hookCallUs: { p50: number; p99: number; calls: number } | null;
}

const empty = (reason: string): TaskBenchResult => ({
  status: 'not available',
  reason,
  submitThroughput: null,
  pollerPerTask: null,
  pollerBatch: null,
  hookCallUs: null,
});

export async function runTaskBench(opts: TaskBenchOptions): Promise<TaskBenchResult> {
  try {
    return await run(opts);
  } catch (e) {
    opts.log(`task host bench failed: ${(e as Error).stack ?? e}`);
    return empty(`failed: ${(e as Error).message}`);
  }
}

const Q = 500_000;

async function run(opts: TaskBenchOptions): Promise<TaskBenchResult> {
  const { log } = opts;
  const prevLevel = process.env.TEST_LOG_LEVEL;
  process.env.TEST_LOG_LEVEL = 'silent';
  // The test helpers are the official setup: plugin upload through the admin service, channels, prices.
  const { startTestGateway } = await import('../packages/gateway/test/harness.ts');
  const { startVendor } = await import('../packages/gateway/test/fakes/vendor/server.ts');
  const fx = await import('../packages/gateway/test/fakes/vendor/fixtures.ts');
  const vendor = await startVendor();
  // The gateway greets a new root account on stdout, where the bench's report goes: send it to stderr.
  const stdoutWrite = process.stdout.write;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  let gw: Awaited<ReturnType<typeof startTestGateway>>;
  try {
    gw = await startTestGateway({
      env: { TASK_POLL_INTERVAL_SECONDS: '3600', TASK_POLL_BACKOFF_MAX_SECONDS: '1', TASK_POLL_LEASE_SECONDS: '600' },
    });
  } finally {
    process.stdout.write = stdoutWrite;
  }
  if (prevLevel === undefined) delete process.env.TEST_LOG_LEVEL;
  else process.env.TEST_LOG_LEVEL = prevLevel;
  const pool = new Pool(gw.url, { connections: 64, pipelining: 1 });
  try {
    await fx.installPlugins(gw, ['loopback-video.js', 'loopback-batch.js']);
    await fx.createTaskChannel(gw, { name: 'lv', plugin: 'loopback-video', baseUrl: vendor.url });
    await fx.createTaskChannel(gw, { name: 'lb', plugin: 'loopback-batch', baseUrl: vendor.url });
    await fx.setTaskPrice(gw, 'lv-1', { expression: 'u("seconds") * 0.01' });
    await fx.setTaskPrice(gw, 'lb-1', { perRequest: 0.01 });
    const user = await fx.createUser(gw, { name: 'bench', quota: 1_000_000 * Q });
    const headers = { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' };
    const submit = async (plugin: string, body: Record<string, unknown>): Promise<string> => {
      const r = await pool.request({ path: `/v1/tasks/${plugin}`, method: 'POST', headers, body: JSON.stringify(body) });
      const text = await r.body.text();
      if (r.statusCode !== 200) throw new Error(`submit ${plugin}: HTTP ${r.statusCode} ${text.slice(0, 200)}`);
      return (JSON.parse(text) as { id: string }).id;
    };

    // ---- submit throughput ----
    const conc = 32;
    const warm = opts.quick ? 100 : 300;
    const total = opts.quick ? 600 : 4000;
    const lvBody = { model: 'lv-1', prompt: 'a lighthouse at dusk', seconds: 5, steps: 1 };
    for (let i = 0; i < warm; i++) await submit('loopback-video', lvBody);
    log(`task host: ${total} submits at concurrency ${conc}`);
    const lat: number[] = [];
    let next = 0;
    const t0 = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: conc }, async () => {
        while (next < total) {
          next++;
          const s = process.hrtime.bigint();
          await submit('loopback-video', lvBody);
          lat.push(Number(process.hrtime.bigint() - s) / 1e6);
        }
      }),
    );
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    lat.sort((a, b) => a - b);
    const submitThroughput = {
      rps: Math.round(total / secs),
      p50Ms: round2(percentile(lat, 50)),
      p99Ms: round2(percentile(lat, 99)),
      requests: total,
      concurrency: conc,
    };
    log(`task host: submit ${submitThroughput.rps}/s, p50 ${submitThroughput.p50Ms} ms, p99 ${submitThroughput.p99Ms} ms`);

    // ---- one hook call ----
    const plugin = gw.services.plugins.current().plugins.get('loopback-video');
    if (!plugin) throw new Error('loopback-video is not loaded');
    const ctx = { taskId: 'vt_1', state: { polls: 1 }, baseUrl: vendor.url, upstreamModel: 'lv-1' };
    const body = { id: 'vt_1', model: 'lv-1', status: 'running', progress: 50 };
    const calls = opts.quick ? 2000 : 10_000;
    for (let i = 0; i < 500; i++) await plugin.call('parseTaskResult', ctx, body);
    const hook: number[] = [];
    for (let i = 0; i < calls; i++) {
      const s = process.hrtime.bigint();
      await plugin.call('parseTaskResult', ctx, body);
      hook.push(Number(process.hrtime.bigint() - s) / 1e3);
    }
    hook.sort((a, b) => a - b);
    const hookCallUs = { p50: Math.round(percentile(hook, 50)), p99: Math.round(percentile(hook, 99)), calls };
    log(`task host: hook call p50 ${hookCallUs.p50} µs, p99 ${hookCallUs.p99} µs`);

    // ---- poller ----
    const inFlight = opts.quick ? 1000 : 10_000;
    const setPollInterval = async (seconds: number) => {
      gw.core.config.taskPollIntervalSeconds = seconds;
      await gw.services.tasks.poller.stop();
      gw.services.tasks.poller.start();
    };
    const poller = async (pluginKey: string, submitBody: Record<string, unknown>) => {
      const templateId = await submit(pluginKey, submitBody);
      const ids = await cloneTasks(gw, vendor, templateId, inFlight, pluginKey);
      log(`task host: ${inFlight} ${pluginKey} tasks due, polling every 20 ms`);
      const start = process.hrtime.bigint();
      await setPollInterval(0.02);
      const deadline = Date.now() + (opts.quick ? 15_000 : 90_000);
      let done = 0;
      for (;;) {
        const r = await gw.core.h.db
          .selectFrom('tasks')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('plugin_key', '=', pluginKey)
          .where('public_id', 'like', `${ids.prefix}%`)
          .where('status', '=', 'SUCCESS')
          .where('billing_status', '!=', 'reserved')
          .executeTakeFirstOrThrow();
        done = Number(r.n);
        if (done >= inFlight || Date.now() > deadline) break;
        await new Promise((res) => setTimeout(res, 50));
      }
      const s = Number(process.hrtime.bigint() - start) / 1e9;
      await setPollInterval(3600);
      const out = { tasksPerSecond: Math.round(done / s), inFlight, seconds: round2(s) };
      log(`task host: ${pluginKey}: ${done}/${inFlight} done in ${s.toFixed(1)} s (${out.tasksPerSecond}/s)`);
      if (done < inFlight) log(`task host: ${pluginKey}: stopped at the time limit; the rate counts the finished ones`);
      return out;
    };
    const pollerPerTask = await poller('loopback-video', lvBody);
    const pollerBatch = await poller('loopback-batch', { model: 'lb-1', prompt: 'x', steps: 1 });
    return { status: 'ok', submitThroughput, pollerPerTask, pollerBatch, hookCallUs };
  } finally {
    await pool.close();
    await gw.stop();
    await vendor.close();
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * Clones a submitted task `n` times: task rows due now (new public and upstream ids), the vendor's
 * tasks (finished on their next poll) and each clone's reserve movement, as the submit would have
 * written them. Returns the public id prefix of the clones.
 */
async function cloneTasks(
  gw: import('../packages/gateway/test/harness.ts').TestGateway,
  vendor: import('../packages/gateway/test/fakes/vendor/server.ts').Vendor,
  templateId: string,
  n: number,
  tag: string,
): Promise<{ prefix: string }> {
  const db = gw.core.h.db;
  const t = await db.selectFrom('tasks').selectAll().where('public_id', '=', templateId).executeTakeFirstOrThrow();
  if (!t.upstream_task_id) throw new Error(`template task ${templateId} has no upstream id (status ${t.status})`);
  const vt = vendor.tasks.get(t.upstream_task_id);
  if (!vt) throw new Error(`the vendor does not know ${t.upstream_task_id}`);
  const prefix = `task_bench_${tag.replace(/[^a-z]/g, '')}_`;
  const now = Date.now();
  const { id: _id, ...base } = t as typeof t & { id: number };
  const reserved = Number(t.quota_reserved ?? 0);
  for (let i = 0; i < n; i += 500) {
    const rows = [];
    const moves = [];
    for (let j = i; j < Math.min(n, i + 500); j++) {
      const publicId = `${prefix}${j}`;
      const upstreamId = `vt_bench_${tag}_${j}`;
      vendor.tasks.set(upstreamId, { ...vt, id: upstreamId, polls: vt.steps });
      rows.push({
        ...base,
        public_id: publicId,
        upstream_task_id: upstreamId,
        next_poll_at: now,
        lease_owner: null,
        lease_until: null,
        created_at: now,
        updated_at: now,
      });
      moves.push({ user_id: t.user_id, key_id: t.key_id, ref: `task:${publicId}`, kind: 'reserve', amount: reserved, created_at: now });
    }
    await db.insertInto('tasks').values(rows).execute();
    await db.insertInto('ledger').values(moves).execute();
  }
  await db
    .updateTable('users')
    .set((eb) => ({ quota: eb('quota', '-', reserved * n) }))
    .where('id', '=', t.user_id)
    .execute();
  return { prefix };
}
