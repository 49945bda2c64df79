// PII masking: e-mail addresses, phone numbers and payment card numbers (checked with Luhn) are
// replaced by [EMAIL], [PHONE] and [CARD]. Settings (meta.config, or the binding's config):
// `kinds` — which of email, phone, card to mask; `block` — true to refuse the call instead of masking.
export const meta = {
  apiVersion: 1,
  kind: 'guardrail',
  key: 'pii-mask',
  name: 'PII masking',
  version: '1.0.0',
  author: { name: 'Gatehouse examples' },
  description: 'Masks e-mail addresses, phone numbers and card numbers (Luhn-checked).',
  config: { kinds: ['email', 'phone', 'card'], block: false },
};

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const CARD = /\b(?:\d[ -]?){12,18}\d\b/g;
const PHONE = /(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,4}\)[ .-]?)?\d{2,4}[ .-]\d{3,4}[ .-]?\d{3,4}\b/g;

function luhn(digits) {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

function find(text, index, kinds) {
  const spans = [];
  const taken = (s, e) => spans.some((x) => s < x.end && e > x.start);
  const add = (re, label, ok) => {
    re.lastIndex = 0;
    let m;
    while ((m = re.exec(text))) {
      const s = m.index;
      const e = s + m[0].length;
      if (!taken(s, e) && (!ok || ok(m[0]))) spans.push({ index, start: s, end: e, replacement: label });
    }
  };
  if (kinds.includes('email')) add(EMAIL, '[EMAIL]');
  if (kinds.includes('card')) add(CARD, '[CARD]', (s) => luhn(s.replace(/[ -]/g, '')));
  if (kinds.includes('phone')) add(PHONE, '[PHONE]', (s) => s.replace(/\D/g, '').length >= 7);
  return spans;
}

export function check(ctx, input) {
  const cfg = ctx.config || {};
  const kinds = Array.isArray(cfg.kinds) ? cfg.kinds : ['email', 'phone', 'card'];
  let spans = [];
  input.texts.forEach((t, i) => {
    spans = spans.concat(find(t, i, kinds));
  });
  if (!spans.length) return { action: 'allow' };
  if (cfg.block) return { action: 'block', reason: 'personal data (' + spans.map((s) => s.replacement).join(', ') + ') is not allowed' };
  return { action: 'mask', spans };
}
