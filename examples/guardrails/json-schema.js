// A JSON-schema check of structured outputs: at the output stage the answer's text must be JSON
// that satisfies `config.schema` (type, properties, required, additionalProperties, items, enum,
// minimum, maximum, minLength, maxLength). Otherwise the answer is blocked. Inputs are allowed.
// Bind it with stage "output" to the calls that ask for JSON; streamed answers are checked window by
// window, so bind it to calls that are not streamed.
export const meta = {
  apiVersion: 1,
  kind: 'guardrail',
  key: 'json-schema',
  name: 'JSON-schema check',
  version: '1.0.0',
  author: { name: 'Gatehouse examples' },
  description: 'Blocks structured outputs that are not JSON or do not satisfy the configured schema.',
  config: { schema: { type: 'object' } },
};

function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && Number.isInteger(v)) return 'integer';
  return typeof v;
}

function validate(s, v, path) {
  if (!s || typeof s !== 'object') return null;
  if (s.type) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    const t = typeOf(v);
    if (!types.some((x) => x === t || (x === 'number' && t === 'integer'))) return path + ' must be ' + types.join(' or ');
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v)))
    return path + ' must be one of ' + JSON.stringify(s.enum);
  if (typeof v === 'number') {
    if (typeof s.minimum === 'number' && v < s.minimum) return path + ' must be ≥ ' + s.minimum;
    if (typeof s.maximum === 'number' && v > s.maximum) return path + ' must be ≤ ' + s.maximum;
  }
  if (typeof v === 'string') {
    if (typeof s.minLength === 'number' && v.length < s.minLength) return path + ' is too short';
    if (typeof s.maxLength === 'number' && v.length > s.maxLength) return path + ' is too long';
  }
  if (typeOf(v) === 'object') {
    for (const k of s.required || []) if (!(k in v)) return path + '.' + k + ' is required';
    const props = s.properties || {};
    for (const k of Object.keys(v)) {
      if (k in props) {
        const e = validate(props[k], v[k], path + '.' + k);
        if (e) return e;
      } else if (s.additionalProperties === false) return path + '.' + k + ' is not allowed';
    }
  }
  if (Array.isArray(v) && s.items) {
    for (let i = 0; i < v.length; i++) {
      const e = validate(s.items, v[i], path + '[' + i + ']');
      if (e) return e;
    }
  }
  return null;
}

export function check(ctx, input) {
  if (input.stage !== 'output') return { action: 'allow' };
  const text = input.texts.join('').trim();
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { action: 'block', reason: 'the answer is not JSON' };
  }
  const err = validate((ctx.config || {}).schema, value, '$');
  return err ? { action: 'block', reason: 'the answer does not match the schema: ' + err } : { action: 'allow' };
}
