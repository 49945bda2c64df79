/**
 * Upstream stream events read from templates: the events that recur once per upstream event (a chat
 * chunk's content, an Anthropic text delta) differ from one another only in one JSON string. Once one such
 * event has been parsed whole, its text before and after that string is kept; a later event made of the
 * same text around another single string literal is the same object with another string, so its string
 * is read alone (`JSON.parse` of the literal) instead of parsing the whole event and building its
 * objects. Anything else is parsed whole as before: the mirror of the encoders' templates
 * (sse-template.ts).
 */

/**
 * A string no upstream sends, put in place of the learned string to check where it is. Its JSON text
 * holds a backslash, valid only inside a string literal: when the text around it parses, either its
 * first quote opens a string token, or that quote was escaped inside another string (whose value then
 * holds a quote before the probe, so it is not the probe). So when the place read holds exactly the
 * probe, the text before it ends at a token's start in the grammar, and any single string literal put
 * there parses to the same object with that string at that place.
 */
const PROBE = '\u0000gatehouse-probe';
const PROBE_JSON = JSON.stringify(PROBE);
/** Templates learned per stream at most (an upstream whose every event differs elsewhere is read whole). */
const MAX_LEARNED = 16;

export class EventTemplate {
  private head = '';
  private tail = '';
  private learned = 0;
  /** Whether a template is known. */
  ready = false;

  /**
   * The string of `data` when `data` is the learned event with another string in its place (the
   * object `JSON.parse(data)` gives is then the learned one with this string at the learned place);
   * undefined for anything else.
   */
  match(data: string): string | undefined {
    if (!this.ready) return undefined;
    const h = this.head.length;
    const end = data.length - this.tail.length;
    if (end - h < 2 || data.charCodeAt(h) !== 34 || data.charCodeAt(end - 1) !== 34) return undefined;
    // Equality of slices: V8's startsWith and endsWith cost several times more on these strings.
    if (data.slice(end) !== this.tail || data.slice(0, h) !== this.head) return undefined;
    let v: unknown;
    try {
      // Starting and ending with a quote and valid JSON: one string literal and nothing else.
      v = JSON.parse(data.slice(h, end));
    } catch {
      return undefined;
    }
    return typeof v === 'string' ? v : undefined;
  }

  /**
   * Learns the template of `data`, an event parsed whole whose string at the place `at` reads is
   * `value` (and whose reading depends on nothing else that varies). The text around the last
   * occurrence of `value`'s JSON is kept only when the event with a probe string there parses to an
   * object whose place `at` holds the probe: then that literal is the value at that place, and any
   * string literal put there gives the same object with that string.
   */
  learn(data: string, value: string, at: (j: any) => unknown): void {
    // The template learned before is dropped in any case: its reading may no longer be this one's.
    this.ready = false;
    if (this.learned >= MAX_LEARNED) return;
    this.learned++;
    const lit = JSON.stringify(value);
    const i = data.lastIndexOf(lit);
    if (i < 0) return;
    const head = data.slice(0, i);
    const tail = data.slice(i + lit.length);
    try {
      if (at(JSON.parse(head + PROBE_JSON + tail)) !== PROBE) return;
    } catch {
      return;
    }
    this.head = head;
    this.tail = tail;
    this.ready = true;
  }
}
