// Secret detection: API keys in prompts (OpenAI-style sk-..., AWS access key ids AKIA..., GitHub
// tokens ghp_...). Setting `action`: "block" (the default) refuses the call, "mask" replaces each
// secret by [SECRET].
export const meta = {
  apiVersion: 1,
  kind: 'guardrail',
  key: 'secret-detect',
  name: 'Secret detection',
  version: '1.0.0',
  author: { name: 'Gatehouse examples' },
  description: 'Finds API keys (sk-..., AKIA..., ghp_...) in the texts of a call.',
  config: { action: 'block' },
};

const SECRETS = [
  { re: /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}/g, name: 'an API key (sk-...)' },
  { re: /\bAKIA[0-9A-Z]{16}\b/g, name: 'an AWS access key id' },
  { re: /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g, name: 'a GitHub token' },
];

export function check(ctx, input) {
  const mode = (ctx.config || {}).action === 'mask' ? 'mask' : 'block';
  const spans = [];
  const names = [];
  input.texts.forEach((t, index) => {
    for (const s of SECRETS) {
      s.re.lastIndex = 0;
      let m;
      while ((m = s.re.exec(t))) {
        spans.push({ index, start: m.index, end: m.index + m[0].length, replacement: '[SECRET]' });
        if (!names.includes(s.name)) names.push(s.name);
      }
    }
  });
  if (!spans.length) return { action: 'allow' };
  if (mode === 'mask') return { action: 'mask', spans };
  return { action: 'block', reason: 'the text contains ' + names.join(' and ') };
}
