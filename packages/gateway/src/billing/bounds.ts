/**
 * The upper bound of a price expression (billing/expr.ts) over ranges of its facts, by interval
 * arithmetic over its tree: every number becomes the interval it may lie in, a condition whose truth
 * the ranges do not decide takes both branches, and a fact of unknown value (a request parameter or
 * header not known yet, a string) may be any number. The bound is what a reserve needs: no value the
 * expression can take with facts in their ranges exceeds it. `Infinity` when nothing bounds it.
 */
import type { Node } from './expr.ts';

/**
 * A fact's range: an interval of numbers (a fact that is present), a value known exactly (a parameter
 * of the call at hand), or `unknown` (maybe absent, maybe any value: a parameter when a price is saved).
 */
export type FactRange = readonly [number, number] | { value: number | string | boolean } | 'unknown';

type Iv = { lo: number; hi: number };
/** A known string or boolean, or an interval of numbers (booleans as [0,1], unknown as ±∞). */
type AV = { k: 'n'; lo: number; hi: number } | { k: 's'; v: string } | { k: 'any' };

const ANY_NUM: Iv = { lo: -Infinity, hi: Infinity };
const BOOL_UNKNOWN: AV = { k: 'n', lo: 0, hi: 1 };
const bool = (b: boolean): AV => ({ k: 'n', lo: b ? 1 : 0, hi: b ? 1 : 0 });

function numOf(v: AV): Iv {
  if (v.k === 'n') return v;
  return ANY_NUM;
}

/** True, false or unknown (null). */
function truth(v: AV): boolean | null {
  if (v.k === 's') return v.v !== '';
  if (v.k === 'any') return null;
  if (v.lo === 0 && v.hi === 0) return false;
  if (v.lo > 0 || v.hi < 0) return true;
  return null;
}

const mul = (a: number, b: number) => (a === 0 || b === 0 ? 0 : a * b);
const hull = (xs: number[]): AV => ({ k: 'n', lo: Math.min(...xs), hi: Math.max(...xs) });

function join(a: AV, b: AV): AV {
  if (a.k === 's' && b.k === 's' && a.v === b.v) return a;
  if (a.k !== 'n' || b.k !== 'n') return a.k === 'n' || b.k === 'n' ? { k: 'n', ...ANY_NUM } : { k: 'any' };
  return { k: 'n', lo: Math.min(a.lo, b.lo), hi: Math.max(a.hi, b.hi) };
}

function compare(op: string, a: AV, b: AV): AV {
  if (op === '==' || op === '!=') {
    let eq: boolean | null = null;
    if (a.k === 's' && b.k === 's') eq = a.v === b.v;
    else if (a.k === 'n' && b.k === 'n' && a.lo === a.hi && b.lo === b.hi) eq = a.lo === b.lo;
    else if (a.k === 'n' && b.k === 'n' && (a.hi < b.lo || b.hi < a.lo)) eq = false;
    else if ((a.k === 's' && b.k === 'n') || (a.k === 'n' && b.k === 's')) eq = false;
    if (eq === null) return BOOL_UNKNOWN;
    return bool(op === '==' ? eq : !eq);
  }
  const x = numOf(a);
  const y = numOf(b);
  const lt = x.hi < y.lo ? true : x.lo >= y.hi ? false : null;
  const le = x.hi <= y.lo ? true : x.lo > y.hi ? false : null;
  const gt = x.lo > y.hi ? true : x.hi <= y.lo ? false : null;
  const ge = x.lo >= y.hi ? true : x.hi < y.lo ? false : null;
  const r = op === '<' ? lt : op === '<=' ? le : op === '>' ? gt : ge;
  return r === null ? BOOL_UNKNOWN : bool(r);
}

function arith(op: string, a: Iv, b: Iv): AV {
  switch (op) {
    case '+':
      return { k: 'n', lo: a.lo + b.lo, hi: a.hi + b.hi };
    case '-':
      return { k: 'n', lo: a.lo - b.hi, hi: a.hi - b.lo };
    case '*':
      return hull([mul(a.lo, b.lo), mul(a.lo, b.hi), mul(a.hi, b.lo), mul(a.hi, b.hi)]);
    case '/':
      if (b.lo <= 0 && b.hi >= 0) return { k: 'n', ...ANY_NUM };
      return hull([a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi]);
    case '%': {
      const m = Math.max(Math.abs(b.lo), Math.abs(b.hi));
      return a.lo >= 0 ? { k: 'n', lo: 0, hi: Math.min(m, a.hi) } : { k: 'n', lo: -m, hi: m };
    }
  }
  return { k: 'n', ...ANY_NUM };
}

function walk(n: Node, range: (fact: string) => FactRange | undefined): AV {
  switch (n.t) {
    case 'num':
      return { k: 'n', lo: n.v, hi: n.v };
    case 'bool':
      return bool(n.v);
    case 'str':
      return { k: 's', v: n.v };
    case 'un': {
      const a = walk(n.a, range);
      if (n.op === '!') {
        const t = truth(a);
        return t === null ? BOOL_UNKNOWN : bool(!t);
      }
      const x = numOf(a);
      return { k: 'n', lo: -x.hi, hi: -x.lo };
    }
    case 'cond': {
      const t = truth(walk(n.c, range));
      if (t === true) return walk(n.a, range);
      if (t === false) return walk(n.b, range);
      return join(walk(n.a, range), walk(n.b, range));
    }
    case 'bin': {
      const a = walk(n.a, range);
      const b = walk(n.b, range);
      if (n.op === '&&' || n.op === '||') {
        const x = truth(a);
        const y = truth(b);
        if (n.op === '&&') return x === false || y === false ? bool(false) : x && y ? bool(true) : BOOL_UNKNOWN;
        return x === true || y === true ? bool(true) : x === false && y === false ? bool(false) : BOOL_UNKNOWN;
      }
      if (['==', '!=', '<', '<=', '>', '>='].includes(n.op)) return compare(n.op, a, b);
      return arith(n.op, numOf(a), numOf(b));
    }
    case 'call': {
      const args = n.args;
      switch (n.fn) {
        case 'u': {
          const r = range((args[0] as { v: string }).v);
          if (r === undefined) return { k: 'n', lo: 0, hi: 0 };
          if (r === 'unknown') return { k: 'any' };
          if (Array.isArray(r)) return { k: 'n', lo: r[0], hi: r[1] };
          const v = (r as { value: number | string | boolean }).value;
          return typeof v === 'number' ? { k: 'n', lo: v, hi: v } : typeof v === 'boolean' ? bool(v) : { k: 's', v };
        }
        case 'has': {
          const r = range((args[0] as { v: string }).v);
          return r === undefined ? bool(false) : r === 'unknown' ? BOOL_UNKNOWN : bool(true);
        }
        case 'tier':
          return { k: 'n', ...numOf(walk(args[1], range)) };
        case 'min':
        case 'max': {
          const xs = args.map((a) => numOf(walk(a, range)));
          const f = n.fn === 'min' ? Math.min : Math.max;
          return { k: 'n', lo: f(...xs.map((x) => x.lo)), hi: f(...xs.map((x) => x.hi)) };
        }
        case 'abs': {
          const x = numOf(walk(args[0], range));
          const lo = x.lo <= 0 && x.hi >= 0 ? 0 : Math.min(Math.abs(x.lo), Math.abs(x.hi));
          return { k: 'n', lo, hi: Math.max(Math.abs(x.lo), Math.abs(x.hi)) };
        }
        case 'ceil':
        case 'floor':
        case 'round': {
          const x = numOf(walk(args[0], range));
          const f = Math[n.fn];
          return { k: 'n', lo: f(x.lo), hi: f(x.hi) };
        }
      }
    }
  }
  return { k: 'n', ...ANY_NUM };
}

/**
 * The highest value the expression can take with each fact in its range (`range` returns undefined
 * for a fact that is absent: it reads as 0, as when evaluated). A fact given as `{value}` is known.
 */
export function upperBound(root: Node, range: (fact: string) => FactRange | undefined): number {
  const v = walk(root, range);
  if (v.k !== 'n') return Infinity;
  return Number.isNaN(v.hi) ? Infinity : v.hi;
}
