/**
 * The settings of Amazon Bedrock channels as administration checks them: an AWS region, and keys that
 * are access key pairs or Bedrock API keys (those need the region setting).
 */
import { invalid, modelChannelBasics, type ChannelIssue } from '../../../channels/settings-check.ts';
import type { ChannelCheck } from '../provider.ts';
import { AWS_REGION, parseBedrockKey } from './endpoint.ts';

export const checkBedrockChannel: ChannelCheck = (c) => {
  const s = c.settings;
  const out: ChannelIssue[] = [];
  if (s.region !== undefined && (typeof s.region !== 'string' || !AWS_REGION.test(s.region))) {
    out.push(invalid('settings.region', 'must be an AWS region such as us-east-1'));
  }
  c.keys.forEach((k, i) => {
    try {
      parseBedrockKey(k, s.region);
    } catch (e) {
      out.push(
        invalid(
          `keys[${i}]`,
          `must be ACCESS_KEY_ID|SECRET_ACCESS_KEY|REGION[|SESSION_TOKEN] or a Bedrock API key with settings.region (${(e as Error).message})`,
        ),
      );
    }
  });
  return [...out, ...modelChannelBasics(c)];
};
