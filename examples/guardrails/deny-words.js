// Deny by keyword or regular expression. Settings: `keywords` (matched as whole words, ignoring
// case) and `patterns` (regular expressions, matched ignoring case). A match blocks the call.
export const meta = {
  apiVersion: 1,
  kind: 'guardrail',
  key: 'deny-words',
  name: 'Deny by keyword or pattern',
  version: '1.0.0',
  author: { name: 'Gatehouse examples' },
  description: 'Blocks calls whose text holds a listed keyword or matches a listed regular expression.',
  config: { keywords: [], patterns: [] },
};

function escape(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function check(ctx, input) {
  const cfg = ctx.config || {};
  const keywords = Array.isArray(cfg.keywords) ? cfg.keywords : [];
  const patterns = Array.isArray(cfg.patterns) ? cfg.patterns : [];
  const res = keywords
    .map((k) => ({ re: new RegExp('(^|[^\\p{L}\\p{N}_])' + escape(String(k)) + '(?![\\p{L}\\p{N}_])', 'iu'), what: 'keyword "' + k + '"' }))
    .concat(patterns.map((p) => ({ re: new RegExp(String(p), 'i'), what: 'pattern /' + p + '/' })));
  for (const t of input.texts) {
    for (const r of res) if (r.re.test(t)) return { action: 'block', reason: 'the text contains a denied ' + r.what };
  }
  return { action: 'allow' };
}
