// An MCP tool plugin: counts the words, characters and lines of a text, and the most frequent
// words. Served at /mcp as the tools `wordcount__count` and `wordcount__top_words`.
export const meta = {
  apiVersion: 1,
  kind: 'mcp_tool',
  key: 'wordcount',
  name: 'Word counter',
  version: '1.0.0',
  author: { name: 'Gatehouse examples' },
  description: 'Counts words, characters and lines of a text; lists its most frequent words.',
  config: { maxTop: 20 },
};

export const tools = [
  {
    name: 'count',
    description: 'Counts the words, characters and lines of a text.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', description: 'The text to count' } },
      required: ['text'],
    },
  },
  {
    name: 'top_words',
    description: 'The most frequent words of a text (ignoring case), most frequent first.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' }, n: { type: 'integer', minimum: 1, default: 3 } },
      required: ['text'],
    },
  },
];

function words(text) {
  return text.match(/[\p{L}\p{N}'’-]+/gu) || [];
}

export function call(ctx, input) {
  const args = input.arguments || {};
  if (typeof args.text !== 'string') return { content: [{ type: 'text', text: 'text must be a string' }], isError: true };
  const text = args.text;
  if (input.name === 'count') {
    return { words: words(text).length, characters: [...text].length, lines: text === '' ? 0 : text.split('\n').length };
  }
  if (input.name === 'top_words') {
    const max = Number((ctx.config && ctx.config.maxTop) || 20);
    const n = Math.min(max, Math.max(1, Math.floor(Number(args.n) || 3)));
    const counts = new Map();
    for (const w of words(text)) {
      const k = w.toLowerCase();
      counts.set(k, (counts.get(k) || 0) + 1);
    }
    const top = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n);
    return top.map(([w, c]) => w + ' ' + c).join('\n');
  }
  throw new Error('unknown tool ' + input.name);
}
