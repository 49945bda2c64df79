/** The OpenAI model list (`{object:'list', data}`) and model detail. */

export const openaiModel = (id: string) => ({ id, object: 'model', created: 0, owned_by: 'gatehouse' });

export function openaiModelList(models: string[]) {
  return { object: 'list', data: models.map(openaiModel) };
}
