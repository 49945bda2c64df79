/**
 * Code that runs inside every plugin isolate before the plugin module: it removes code generation
 * from strings and a few dangerous built-ins, installs `utils` and `console`, and returns (to the
 * host only) a factory for the dispatcher that calls hooks with JSON in and JSON out.
 *
 * The dispatcher and `utils` use built-ins captured here, before plugin code runs, so a plugin
 * that tampers with prototypes or globals only breaks itself.
 *
 * Closure arguments: $0 hmacSHA256, $1 jwtSignHS256, $2 base64, $3 base64URL, $4 base64URLDecode,
 * $5 volcSignV4, $6 unixNow, $7 uuid, $8 log, $9 capabilities (JSON string array), $10 max result chars.
 */
export const PRELUDE = String.raw`
'use strict';
const H = { hmac: $0, jwt: $1, b64: $2, b64url: $3, b64urlDecode: $4, volc: $5, now: $6, uuid: $7, log: $8 };
const CAPS = JSON.parse($9);
const MAX_RESULT = $10;
const G = globalThis;
const O = Object, A = Array, R = Reflect, S = String, N = Number, E = Error, TE = TypeError;
const JSONparse = JSON.parse, JSONstringify = JSON.stringify;
const ReflectApply = R.apply, defineProperty = O.defineProperty, getPrototypeOf = O.getPrototypeOf, freeze = O.freeze;
const objectKeys = O.keys, isArray = A.isArray, hasOwn = O.prototype.hasOwnProperty, objToString = O.prototype.toString;
const strSplit = S.prototype.split, strReplace = S.prototype.replace, strSlice = S.prototype.slice, strTrim = S.prototype.trim, fnToString = Function.prototype.toString;
const arrJoin = A.prototype.join, arrPush = A.prototype.push, arrIncludes = A.prototype.includes, regExec = RegExp.prototype.exec;
const isFinite = N.isFinite, ObjectProto = O.prototype, ErrorProto = E.prototype;

// No code generation from strings: every way to reach a Function constructor gets this stub.
const noCodegen = function Function() { throw new EvalError('code generation from strings is not allowed in plugins'); };
const FP = Function.prototype;
noCodegen.prototype = FP;
const lock = (obj, name, value) => defineProperty(obj, name, { value, writable: false, configurable: false, enumerable: false });
lock(FP, 'constructor', noCodegen);
lock(getPrototypeOf(function* () {}), 'constructor', noCodegen);
lock(G, 'Function', noCodegen);
lock(G, 'eval', noCodegen);
for (const name of ['WebAssembly', 'SharedArrayBuffer', 'Atomics', 'global']) { try { delete G[name]; } catch (_) {} }

const str = (v) => (v === null || v === undefined ? '' : S(v));
const call = (f, args) => { try { return ReflectApply(f, undefined, args); } catch (e) { throw new E(e && typeof e.message === 'string' ? e.message : 'utils call failed'); } };

// --- json.clone (json-clone@1) ---------------------------------------------------------------
const CLONE_MAX_DEPTH = 32, CLONE_MAX_NODES = 32768, CLONE_MAX_BYTES = 1048576;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/;
function wellFormed(s) {
  if (ReflectApply(regExec, LONE_SURROGATE, [s]) === null) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) { out += s[i] + s[i + 1]; i++; } else out += '\uFFFD';
    } else if (c >= 0xdc00 && c <= 0xdfff) out += '\uFFFD';
    else out += s[i];
  }
  return out;
}
function utf8Len(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1; else if (c < 0x800) n += 2; else if (c >= 0xd800 && c <= 0xdbff) { n += 4; i++; } else n += 3;
  }
  return n;
}
function jsonClone(value) {
  if (arguments.length === 0 || value === undefined) throw new TE('utils.json.clone: value is undefined');
  const st = { nodes: 0, bytes: 0 };
  const walk = (v, depth, path) => {
    if (++st.nodes > CLONE_MAX_NODES) throw new TE('utils.json.clone: more than ' + CLONE_MAX_NODES + ' nodes');
    if (v === null) { st.bytes += 4; return null; }
    const t = typeof v;
    if (t === 'boolean') { st.bytes += v ? 4 : 5; return v; }
    if (t === 'number') {
      if (!isFinite(v)) throw new TE('utils.json.clone: non-finite number at ' + path);
      st.bytes += S(v).length; return v;
    }
    if (t === 'string') { const w = wellFormed(v); st.bytes += utf8Len(w) + 2; check(); return w; }
    if (t !== 'object') throw new TE('utils.json.clone: unsupported ' + t + ' at ' + path);
    if (depth >= CLONE_MAX_DEPTH) throw new TE('utils.json.clone: deeper than ' + CLONE_MAX_DEPTH + ' levels at ' + path);
    if (isArray(v)) {
      const out = [];
      const n = v.length;
      st.bytes += 2 + (n > 0 ? n - 1 : 0);
      for (let i = 0; i < n; i++) {
        if (!ReflectApply(hasOwn, v, [i])) throw new TE('utils.json.clone: array hole at ' + path + '[' + i + ']');
        defineProperty(out, i, { value: walk(v[i], depth + 1, path + '[' + i + ']'), writable: true, enumerable: true, configurable: true });
      }
      check();
      return out;
    }
    if (ReflectApply(objToString, v, []) !== '[object Object]') throw new TE('utils.json.clone: only plain objects and arrays are allowed at ' + path);
    const p = getPrototypeOf(v);
    if (p !== ObjectProto && p !== null) throw new TE('utils.json.clone: only plain objects are allowed at ' + path);
    const out = {};
    const keys = objectKeys(v);
    st.bytes += 2 + (keys.length > 0 ? keys.length - 1 : 0);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      const wk = wellFormed(k);
      st.bytes += utf8Len(wk) + 3;
      defineProperty(out, wk, { value: walk(v[k], depth + 1, path + '.' + k), writable: true, enumerable: true, configurable: true });
    }
    check();
    return out;
  };
  const check = () => { if (st.bytes > CLONE_MAX_BYTES) throw new TE('utils.json.clone: encoded size exceeds 1 MiB'); };
  return walk(value, 0, '$');
}

// --- utils and console --------------------------------------------------------------------------
const utils = freeze({
  hasCapability: (name) => ReflectApply(arrIncludes, CAPS, [str(name)]),
  json: freeze({ clone: jsonClone }),
  unixNow: () => call(H.now, []),
  uuid: () => call(H.uuid, []),
  hmacSHA256: (message, secret) => call(H.hmac, [str(message), str(secret)]),
  jwtSignHS256: (claims, secret) => {
    if (claims !== null && claims !== undefined && (typeof claims !== 'object' || isArray(claims))) throw new TE('utils.jwtSignHS256: claims must be an object');
    return call(H.jwt, [claims === null || claims === undefined ? 'null' : JSONstringify(claims), str(secret)]);
  },
  base64: (s) => call(H.b64, [str(s)]),
  base64URL: (s) => call(H.b64url, [str(s)]),
  base64URLDecode: (s) => call(H.b64urlDecode, [str(s)]),
  volcSignV4: (req) => {
    if (req === null || typeof req !== 'object' || isArray(req)) throw new TE('utils.volcSignV4: request must be an object');
    return JSONparse(call(H.volc, [JSONstringify(req)]));
  },
});
const fmt = (a) => {
  if (typeof a === 'string') return a;
  try { const j = JSONstringify(a); return j === undefined ? S(a) : j; } catch (_) { try { return S(a); } catch (__) { return '[unprintable]'; } }
};
const logFn = function () { const parts = []; for (let i = 0; i < arguments.length; i++) ReflectApply(arrPush, parts, [fmt(arguments[i])]); ReflectApply(H.log, undefined, [ReflectApply(strSlice, ReflectApply(arrJoin, parts, [' ']), [0, 4000])]); };
const console = freeze({ log: logFn, info: logFn, warn: logFn, error: logFn, debug: logFn });
lock(G, 'utils', utils);
lock(G, 'console', console);

// --- dispatcher (returned to the host only) ------------------------------------------------------
const errText = (e) => {
  try {
    if (e !== null && typeof e === 'object') {
      const m = e.message;
      if (typeof m === 'string') return m || (typeof e.name === 'string' ? e.name : 'Error');
    }
    return S(e);
  } catch (_) { return 'plugin threw an unprintable value'; }
};
const describeValue = (v) => (v === undefined ? 'undefined' : v === null ? 'null' : isArray(v) ? 'array' : typeof v);
const membersOf = (obj) => {
  if (obj === null || (typeof obj !== 'object' && typeof obj !== 'function')) return null;
  const out = {};
  const ks = objectKeys(obj);
  for (let i = 0; i < ks.length; i++) out[ks[i]] = describeValue(obj[ks[i]]);
  return out;
};
const paramsOf = (fn) => {
  try {
    const src = ReflectApply(fnToString, fn, []);
    const m = ReflectApply(regExec, /^[^(]*\(([^)]*)\)/, [src]);
    if (!m) return [];
    return ReflectApply(strSplit, m[1], [',']).map((p) => ReflectApply(strReplace, ReflectApply(strTrim, p, []), [/[\s=].*$/, '']));
  } catch (_) { return []; }
};
return function makeDispatch(ns) {
  const describe = () => {
    const exports = {};
    const names = objectKeys(ns);
    for (let i = 0; i < names.length; i++) exports[names[i]] = describeValue(ns[names[i]]);
    const native = membersOf(ns.native);
    let protocols = null;
    if (ns.protocols !== null && typeof ns.protocols === 'object') {
      protocols = {};
      const pk = objectKeys(ns.protocols);
      for (let i = 0; i < pk.length; i++) protocols[pk[i]] = membersOf(ns.protocols[pk[i]]) || describeValue(ns.protocols[pk[i]]);
    }
    const batchParams = typeof ns.buildBatchQueryRequest === 'function' ? paramsOf(ns.buildBatchQueryRequest) : [];
    let meta = null, metaError = null;
    try { meta = JSONparse(JSONstringify(ns.meta === undefined ? null : ns.meta)); } catch (e) { metaError = errText(e); }
    let tools = null;
    if (isArray(ns.tools)) { try { tools = JSONparse(JSONstringify(ns.tools)); } catch (e) { metaError = 'tools: ' + errText(e); } }
    return { exports, native, protocols, batchParams, meta, metaError, tools };
  };
  return function dispatch(hook, argsJson) {
    let result;
    try {
      if (hook === '\u0000describe') result = describe();
      else {
        const parts = ReflectApply(strSplit, hook, ['.']);
        let target = ns, self;
        for (let i = 0; i < parts.length; i++) {
          if (target === null || target === undefined || (typeof target !== 'object' && typeof target !== 'function') || !ReflectApply(hasOwn, target, [parts[i]])) return 'N';
          self = target;
          target = target[parts[i]];
        }
        if (typeof target !== 'function') return 'N';
        result = ReflectApply(target, self === ns ? undefined : self, JSONparse(argsJson));
      }
    } catch (e) {
      return 'E' + ReflectApply(strSlice, errText(e), [0, 2000]);
    }
    let out;
    try { out = JSONstringify(result); } catch (e) {
      return 'X' + (ReflectApply(regExec, /circular/i, [errText(e)]) ? 'the result is cyclic' : 'the result is not JSON-serialisable: ' + ReflectApply(strSlice, errText(e), [0, 300]));
    }
    if (out === undefined) out = 'null';
    if (out.length > MAX_RESULT) return 'Xthe result is too large (' + out.length + ' characters, limit ' + MAX_RESULT + ')';
    return 'R' + out;
  };
};
`;
