/**
 * The settings of OpenAI-compatible channels as administration checks them: a known `preset`, and the
 * fields a preset builds its address from when the channel gives no base URL.
 */
import { fieldError } from '../../../platform/validate.ts';
import type { ChannelCheck } from '../provider.ts';
import { OPENAI_COMPATIBLE_PRESETS, presetRoot } from './presets.ts';

export const checkOpenAIChannel: ChannelCheck = (c, field) => {
  const preset = c.settings.preset;
  if (preset === undefined) return;
  if (typeof preset !== 'string' || !(preset in OPENAI_COMPATIBLE_PRESETS)) {
    throw fieldError(field('settings.preset'), `must be one of ${Object.keys(OPENAI_COMPATIBLE_PRESETS).join(', ')}`);
  }
  const needs = OPENAI_COMPATIBLE_PRESETS[preset].needs ?? [];
  if (!c.base_url && needs.length && presetRoot(preset, c.settings) === null) {
    throw fieldError(field(`settings.${needs[0]}`), `is required for preset ${preset} (letters, digits, _ and -)`);
  }
};
