/**
 * The schemas of the option routes (http/option-routes.ts): the run-time options with their values,
 * defaults, types and units (options/options.ts), and a change of one or several.
 */
import { Type } from 'typebox';

const OPTION_TYPES = [
  'string',
  'int',
  'number',
  'bool',
  'int_list',
  'text_list',
  'url',
  'group_counts',
  'secret',
  'model_limits',
  'group_model_limits',
  'guardrails',
  'routing',
  'model_fallbacks',
] as const;

const UNITS = ['seconds', 'minutes', 'hours', 'quota'] as const;

export const Option = Type.Object(
  {
    key: Type.String(),
    value: Type.String({ description: 'a secret option shows [set] when one is stored' }),
    default: Type.Boolean({ description: 'the value is the default (not in the options table)' }),
    type: Type.Unsafe<(typeof OPTION_TYPES)[number]>({ type: 'string', enum: [...OPTION_TYPES], description: 'how the value is read' }),
    unit: Type.Union([
      Type.Unsafe<(typeof UNITS)[number]>({
        type: 'string',
        enum: [...UNITS],
        description: 'of a number: seconds, minutes, hours, or quota units (an amount of money)',
      }),
      Type.Null(),
    ]),
    doc: Type.Optional(Type.String({ description: 'what the option does (options this node knows)' })),
  },
  { $id: 'Option' },
);

/** `{key, value}` sets one option; `{options: {key: value, …}}` sets several (each checked before any is saved). */
export const OptionChange = Type.Object(
  {
    key: Type.Optional(Type.String()),
    value: Type.Optional(Type.Unknown({ description: 'text, or a number, boolean or list the option reads' })),
    options: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { $id: 'OptionChange', additionalProperties: false },
);

export const OPTION_SCHEMAS = [Option, OptionChange];

export const KeyParams = Type.Object({ key: Type.String() });
