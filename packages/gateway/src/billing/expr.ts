/**
 * Price expressions: a small, safe language over usage facts. Task prices yield USD per task; model
 * call prices (billing/price-rules.ts) yield USD per 1M tokens' worth, as New API's coefficients.
 *
 *   u("seconds") * 0.1
 *   u("mode") == "pro" ? tier("pro", u("seconds") * 0.4) : tier("std", u("seconds") * 0.2)
 *   max(0.05, ceil(u("seconds") / 5) * 0.1)
 *
 * Parsed once into a tree and evaluated by walking it: no `eval`, no property access, no loops, a
 * bounded size. Functions: u, has, tier, min, max, abs, ceil, floor, round, and for model calls
 * param("path.to.field") (the request body's value), header("name") and hour() (UTC hour of the
 * call), which read the facts `param:<path>`, `header:<name>` and `hour`. Operators: + - * / %,
 * comparisons, == !=, && || !, and `cond ? a : b`. `bounds.ts` gives an expression's upper bound.
 */
export type Value = number | string | boolean;
export type Facts = Record<string, Value>;

export type Node =
  | { t: 'num'; v: number }
  | { t: 'str'; v: string }
  | { t: 'bool'; v: boolean }
  | { t: 'un'; op: string; a: Node }
  | { t: 'bin'; op: string; a: Node; b: Node }
  | { t: 'cond'; c: Node; a: Node; b: Node }
  | { t: 'call'; fn: string; args: Node[] };

export class ExprError extends Error {}

const FUNCS = new Set(['u', 'has', 'tier', 'min', 'max', 'abs', 'ceil', 'floor', 'round', 'param', 'header', 'hour']);
/** The fact each request-reading function stands for. */
const FACT_OF: Record<string, (arg: string) => string> = {
  u: (a) => a,
  param: (a) => `param:${a}`,
  header: (a) => `header:${a.toLowerCase()}`,
};
const MAX_LEN = 4096;
const MAX_NODES = 512;

interface Tok {
  k: 'num' | 'str' | 'id' | 'op' | 'end';
  v: string;
  pos: number;
}

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (/[0-9.]/.test(c)) {
      const m = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(src.slice(i));
      if (!m) throw new ExprError(`bad number at ${i}`);
      out.push({ k: 'num', v: m[0], pos: i });
      i += m[0].length;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      let s = '';
      while (j < src.length && src[j] !== c) {
        if (src[j] === '\\' && j + 1 < src.length) {
          s += src[j + 1];
          j += 2;
          continue;
        }
        s += src[j++];
      }
      if (j >= src.length) throw new ExprError(`unterminated string at ${i}`);
      out.push({ k: 'str', v: s, pos: i });
      i = j + 1;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))!;
      out.push({ k: 'id', v: m[0], pos: i });
      i += m[0].length;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (['==', '!=', '<=', '>=', '&&', '||'].includes(two)) {
      if (src.slice(i, i + 3) === '|||') throw new ExprError('request rules (|||) are not supported in task prices');
      out.push({ k: 'op', v: two, pos: i });
      i += 2;
      continue;
    }
    if ('+-*/%<>!?:(),'.includes(c)) {
      out.push({ k: 'op', v: c, pos: i });
      i++;
      continue;
    }
    throw new ExprError(`unexpected character "${c}" at ${i}`);
  }
  out.push({ k: 'end', v: '', pos: src.length });
  return out;
}

class Parser {
  private i = 0;
  nodes = 0;
  constructor(private readonly toks: Tok[]) {}
  private peek(): Tok {
    return this.toks[this.i];
  }
  private next(): Tok {
    return this.toks[this.i++];
  }
  private isOp(v: string): boolean {
    const t = this.peek();
    return t.k === 'op' && t.v === v;
  }
  private expect(v: string): void {
    const t = this.next();
    if (t.k !== 'op' || t.v !== v) throw new ExprError(`expected "${v}" at ${t.pos}`);
  }
  private mk(n: Node): Node {
    if (++this.nodes > MAX_NODES) throw new ExprError('expression too large');
    return n;
  }
  parse(): Node {
    const n = this.ternary();
    if (this.peek().k !== 'end') throw new ExprError(`unexpected "${this.peek().v}" at ${this.peek().pos}`);
    return n;
  }
  private ternary(): Node {
    const c = this.binary(0);
    if (this.isOp('?')) {
      this.next();
      const a = this.ternary();
      this.expect(':');
      const b = this.ternary();
      return this.mk({ t: 'cond', c, a, b });
    }
    return c;
  }
  private static PREC: Record<string, number> = {
    '||': 1,
    '&&': 2,
    '==': 3,
    '!=': 3,
    '<': 4,
    '<=': 4,
    '>': 4,
    '>=': 4,
    '+': 5,
    '-': 5,
    '*': 6,
    '/': 6,
    '%': 6,
  };
  private binary(min: number): Node {
    let a = this.unary();
    for (;;) {
      const t = this.peek();
      const p = t.k === 'op' ? Parser.PREC[t.v] : undefined;
      if (p === undefined || p <= min) return a;
      this.next();
      const b = this.binary(p);
      a = this.mk({ t: 'bin', op: t.v, a, b });
    }
  }
  private unary(): Node {
    if (this.isOp('-') || this.isOp('!')) {
      const op = this.next().v;
      return this.mk({ t: 'un', op, a: this.unary() });
    }
    return this.primary();
  }
  private primary(): Node {
    const t = this.next();
    if (t.k === 'num') return this.mk({ t: 'num', v: Number(t.v) });
    if (t.k === 'str') return this.mk({ t: 'str', v: t.v });
    if (t.k === 'op' && t.v === '(') {
      const n = this.ternary();
      this.expect(')');
      return n;
    }
    if (t.k === 'id') {
      if (t.v === 'true' || t.v === 'false') return this.mk({ t: 'bool', v: t.v === 'true' });
      if (t.v === 'fixed') throw new ExprError('fixed() is not allowed in task prices');
      if (!FUNCS.has(t.v)) throw new ExprError(`unknown name "${t.v}" at ${t.pos}`);
      this.expect('(');
      const args: Node[] = [];
      if (!this.isOp(')')) {
        for (;;) {
          args.push(this.ternary());
          if (this.isOp(',')) {
            this.next();
            continue;
          }
          break;
        }
      }
      this.expect(')');
      checkArity(t.v, args);
      // param(), header() and hour() are reads of facts under their own names.
      if (t.v === 'param' || t.v === 'header')
        return this.mk({ t: 'call', fn: 'u', args: [{ t: 'str', v: FACT_OF[t.v]((args[0] as { v: string }).v) }] });
      if (t.v === 'hour') return this.mk({ t: 'call', fn: 'u', args: [{ t: 'str', v: 'hour' }] });
      return this.mk({ t: 'call', fn: t.v, args });
    }
    throw new ExprError(`unexpected "${t.v || 'end'}" at ${t.pos}`);
  }
}

function checkArity(fn: string, args: Node[]): void {
  const n = args.length;
  const ok =
    fn === 'u' || fn === 'has' || fn === 'param' || fn === 'header'
      ? n === 1 && args[0].t === 'str'
      : fn === 'hour'
        ? n === 0
        : fn === 'tier'
          ? n === 2
          : fn === 'min' || fn === 'max'
            ? n >= 1
            : n === 1;
  if (!ok) throw new ExprError(fn in FACT_OF || fn === 'has' ? `${fn}() takes one string literal` : `wrong number of arguments to ${fn}()`);
}

export interface Compiled {
  source: string;
  /** Fact names read with u()/has() (and param(), header(), hour()). */
  facts: string[];
  /** The parsed tree (for its bounds, billing/bounds.ts). */
  root: Node;
  eval(facts: Facts): number;
}

export function compile(source: string): Compiled {
  if (typeof source !== 'string' || !source.trim()) throw new ExprError('empty expression');
  if (source.length > MAX_LEN) throw new ExprError('expression too long');
  const root = new Parser(tokenize(source)).parse();
  const facts = new Set<string>();
  const walk = (n: Node): void => {
    if (n.t === 'call') {
      if ((n.fn === 'u' || n.fn === 'has') && n.args[0].t === 'str') facts.add(n.args[0].v);
      n.args.forEach(walk);
    } else if (n.t === 'un') walk(n.a);
    else if (n.t === 'bin') {
      walk(n.a);
      walk(n.b);
    } else if (n.t === 'cond') {
      walk(n.c);
      walk(n.a);
      walk(n.b);
    }
  };
  walk(root);
  return {
    source,
    facts: [...facts],
    root,
    eval(f: Facts): number {
      const v = evaluate(root, f);
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new ExprError('price is not a finite number');
      if (v < 0) throw new ExprError('price is negative');
      return v;
    },
  };
}

function num(v: Value): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  throw new ExprError(`"${v}" is not a number`);
}

function evaluate(n: Node, f: Facts): Value {
  switch (n.t) {
    case 'num':
    case 'str':
    case 'bool':
      return n.v;
    case 'un': {
      const a = evaluate(n.a, f);
      return n.op === '-' ? -num(a) : !truthy(a);
    }
    case 'cond':
      return truthy(evaluate(n.c, f)) ? evaluate(n.a, f) : evaluate(n.b, f);
    case 'bin': {
      if (n.op === '&&') return truthy(evaluate(n.a, f)) && truthy(evaluate(n.b, f));
      if (n.op === '||') return truthy(evaluate(n.a, f)) || truthy(evaluate(n.b, f));
      const a = evaluate(n.a, f);
      const b = evaluate(n.b, f);
      switch (n.op) {
        case '==':
          return a === b;
        case '!=':
          return a !== b;
        case '<':
          return num(a) < num(b);
        case '<=':
          return num(a) <= num(b);
        case '>':
          return num(a) > num(b);
        case '>=':
          return num(a) >= num(b);
        case '+':
          return num(a) + num(b);
        case '-':
          return num(a) - num(b);
        case '*':
          return num(a) * num(b);
        case '/': {
          const d = num(b);
          if (d === 0) throw new ExprError('division by zero');
          return num(a) / d;
        }
        case '%': {
          const d = num(b);
          if (d === 0) throw new ExprError('division by zero');
          return num(a) % d;
        }
      }
      throw new ExprError(`bad operator ${n.op}`);
    }
    case 'call': {
      const args = n.args;
      switch (n.fn) {
        case 'u': {
          const k = (args[0] as { v: string }).v;
          return Object.prototype.hasOwnProperty.call(f, k) ? f[k] : 0;
        }
        case 'has':
          return Object.prototype.hasOwnProperty.call(f, (args[0] as { v: string }).v);
        case 'tier':
          return num(evaluate(args[1], f));
        case 'min':
          return Math.min(...args.map((a) => num(evaluate(a, f))));
        case 'max':
          return Math.max(...args.map((a) => num(evaluate(a, f))));
        case 'abs':
          return Math.abs(num(evaluate(args[0], f)));
        case 'ceil':
          return Math.ceil(num(evaluate(args[0], f)));
        case 'floor':
          return Math.floor(num(evaluate(args[0], f)));
        case 'round':
          return Math.round(num(evaluate(args[0], f)));
      }
    }
  }
  throw new ExprError('bad expression');
}

function truthy(v: Value): boolean {
  return typeof v === 'boolean' ? v : typeof v === 'number' ? v !== 0 : v !== '';
}

/** Highest value a fact of each unit may take. */
export const UNIT_CEILING: Record<string, number> = { second: 3600, count: 128, token: 2_147_483_647, credit: 2_147_483_647 };

export interface SchemaField {
  type?: string;
  unit?: string;
  enum?: string[];
}

/**
 * Checks an expression when it is saved: it parses, reads only declared facts (when a schema is
 * known), and yields a finite, non-negative price at the corners of the schema (numbers at 0, 1 and
 * their ceiling, every combination of enum values up to 64 vectors).
 */
export function validateExpression(source: string, schema?: Record<string, SchemaField> | null): Compiled {
  const c = compile(source);
  if (!schema) {
    c.eval({});
    return c;
  }
  for (const k of c.facts) {
    if (!Object.prototype.hasOwnProperty.call(schema, k)) throw new ExprError(`u("${k}") is not a usage fact of this plugin/model`);
  }
  const axes: Array<[string, Value[]]> = [];
  for (const k of c.facts) {
    const fld = schema[k];
    if (fld.enum) axes.push([k, fld.enum]);
    else if (fld.type === 'boolean') axes.push([k, [false, true]]);
    else axes.push([k, [0, 1, UNIT_CEILING[fld.unit ?? 'second'] ?? 3600]]);
  }
  let vectors: Facts[] = [{}];
  for (const [k, vals] of axes) {
    const next: Facts[] = [];
    for (const v of vectors) for (const x of vals) if (next.length < 64) next.push({ ...v, [k]: x });
    vectors = next;
  }
  for (const v of vectors) c.eval(v);
  return c;
}
