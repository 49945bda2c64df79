/**
 * The settings of Vertex AI channels as administration checks them: a location, and keys that are
 * service-account JSON keys naming a project (or a `project_id` setting).
 */
import { parseServiceAccount } from '../../../platform/google-token.ts';
import { fieldError } from '../../../platform/validate.ts';
import type { ChannelCheck } from '../provider.ts';

export const checkVertexChannel: ChannelCheck = (c, field) => {
  const s = c.settings;
  if (s.region !== undefined && (typeof s.region !== 'string' || !/^[a-z0-9-]{1,40}$/.test(s.region))) {
    throw fieldError(field('settings.region'), 'must be a Vertex AI location such as global or us-east5');
  }
  c.keys.forEach((k, i) => {
    let project = '';
    try {
      project = parseServiceAccount(k).projectId;
    } catch (e) {
      throw fieldError(field(`keys[${i}]`), `must be a service-account JSON key (${(e as Error).message})`);
    }
    if (!project && typeof s.project_id !== 'string') throw fieldError(field(`keys[${i}]`), 'has no project_id: set settings.project_id');
  });
};
