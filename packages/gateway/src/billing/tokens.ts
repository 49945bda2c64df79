/**
 * Token counting with gpt-tokenizer (o200k_base), loaded on first use. Counting is only needed when an
 * upstream reports no usage, so the encoding is never loaded on the common path.
 *
 * `TokenCounter` counts a stream of text pieces incrementally: pieces are gathered up to a small
 * buffer and counted, so a long output never sits in memory as a whole.
 */
type CountFn = (text: string) => number;

let counter: CountFn | null = null;
let loading: Promise<CountFn> | null = null;

export function loadTokenizer(): Promise<CountFn> {
  if (counter) return Promise.resolve(counter);
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then((m) => {
    counter = (t: string) => m.countTokens(t);
    return counter;
  });
  return loading;
}

/** Counts tokens of `text` (loads the encoding if needed). */
export async function countTokens(text: string): Promise<number> {
  if (!text) return 0;
  return (await loadTokenizer())(text);
}

/** Counts tokens of `text` when the encoding is loaded; null otherwise. */
export function countTokensSync(text: string): number | null {
  if (!text) return 0;
  return counter ? counter(text) : null;
}

/** A cheap upper-bound estimate without the tokenizer: about one token per 3 characters. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3);
}

const FLUSH_AT = 4096;

export class TokenCounter {
  private pending = '';
  private counted = 0;
  private chars = 0;

  add(text: string): void {
    if (!text) return;
    this.pending += text;
    this.chars += text.length;
    if (this.pending.length >= FLUSH_AT && counter) {
      this.counted += counter(this.pending);
      this.pending = '';
    } else if (this.pending.length >= FLUSH_AT * 4) {
      // The tokenizer is not loaded yet: count what is pending with the estimate and keep memory small.
      this.counted += estimateTokens(this.pending);
      this.pending = '';
      void loadTokenizer();
    }
  }

  /**
   * Tokens counted so far, all pending text included; null while the tokenizer is not loaded (then
   * nothing is counted: call again after `loadTokenizer()`).
   */
  exact(): number | null {
    if (!counter) return null;
    if (this.pending) {
      this.counted += counter(this.pending);
      this.pending = '';
    }
    return this.counted;
  }

  /** Adds text whose tokens were already counted (`tokens`). */
  addCounted(text: string, tokens: number): void {
    this.counted += tokens;
    this.chars += text.length;
  }

  /** Characters seen so far. */
  get length(): number {
    return this.chars;
  }

  async total(): Promise<number> {
    if (this.pending) {
      this.counted += await countTokens(this.pending);
      this.pending = '';
    }
    return this.counted;
  }
}
