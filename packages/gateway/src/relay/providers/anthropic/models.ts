/** The messages-style model list (`limit`, `after_id` / `before_id` cursors) and model detail. */
import { pageSize } from '../model-page.ts';

const EPOCH = new Date(0).toISOString();

export const anthropicModel = (id: string) => ({ type: 'model', id, display_name: id, created_at: EPOCH });

/** Messages-style list: `limit` (1–1000, default 20), `after_id` / `before_id` cursors. */
export function anthropicModelList(models: string[], q: Record<string, unknown>) {
  const limit = pageSize(q.limit, 20, 'limit');
  let start = 0;
  let end = models.length;
  if (typeof q.after_id === 'string' && q.after_id) start = models.indexOf(q.after_id) + 1;
  if (typeof q.before_id === 'string' && q.before_id) {
    end = Math.max(0, models.indexOf(q.before_id));
    start = Math.max(start, end - limit);
  }
  const page = models.slice(start, Math.min(end, start + limit));
  return {
    data: page.map(anthropicModel),
    has_more: start + page.length < end,
    first_id: page[0] ?? null,
    last_id: page[page.length - 1] ?? null,
  };
}
