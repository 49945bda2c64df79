/**
 * The settings of OpenAI-compatible channels as administration checks them: a known `preset`, the
 * fields a preset builds its address from when the channel gives no base URL, and a key unless the
 * preset is a local server's (which takes none).
 */
import { invalid, missing, modelChannelBasics, type ChannelIssue } from '../../../channels/settings-check.ts';
import type { ChannelCheck } from '../provider.ts';
import { OPENAI_COMPATIBLE_PRESETS, presetRoot } from './presets.ts';

export const checkOpenAIChannel: ChannelCheck = (c) => {
  const preset = c.settings.preset;
  if (preset === undefined) return modelChannelBasics(c);
  if (typeof preset !== 'string' || !(preset in OPENAI_COMPATIBLE_PRESETS)) {
    return [invalid('settings.preset', `must be one of ${Object.keys(OPENAI_COMPATIBLE_PRESETS).join(', ')}`), ...modelChannelBasics(c)];
  }
  const out: ChannelIssue[] = [];
  const needs = OPENAI_COMPATIBLE_PRESETS[preset].needs ?? [];
  if (!c.base_url && needs.length && presetRoot(preset, c.settings) === null) {
    out.push(missing(`settings.${needs[0]}`, `is required for preset ${preset} (letters, digits, _ and -)`));
  }
  return [...out, ...modelChannelBasics(c, { keyless: OPENAI_COMPATIBLE_PRESETS[preset].local === true })];
};
