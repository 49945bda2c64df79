/**
 * The settings of Vertex AI channels as administration checks them: a location, and keys that are
 * service-account JSON keys naming a project (or a `project_id` setting).
 */
import { invalid, missing, modelChannelBasics, type ChannelIssue } from '../../../channels/settings-check.ts';
import { parseServiceAccount } from '../../../platform/google-token.ts';
import type { ChannelCheck } from '../provider.ts';

export const checkVertexChannel: ChannelCheck = (c) => {
  const s = c.settings;
  const out: ChannelIssue[] = [];
  if (s.region !== undefined && (typeof s.region !== 'string' || !/^[a-z0-9-]{1,40}$/.test(s.region))) {
    out.push(invalid('settings.region', 'must be a Vertex AI location such as global or us-east5'));
  }
  c.keys.forEach((k, i) => {
    let project = '';
    try {
      project = parseServiceAccount(k).projectId;
    } catch (e) {
      out.push(invalid(`keys[${i}]`, `must be a service-account JSON key (${(e as Error).message})`));
      return;
    }
    if (!project && typeof s.project_id !== 'string') out.push(missing(`keys[${i}]`, 'has no project_id: set settings.project_id'));
  });
  return [...out, ...modelChannelBasics(c)];
};
