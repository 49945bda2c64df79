/**
 * Command line and phase parameters of `npm run bench` (pure; see README.md for the flags).
 */

export interface BenchOptions {
  quick: boolean;
  /** Targets to run, in order; `direct` is always added (the added numbers are relative to it). */
  targets: string[];
  /** Install Portkey when it is missing (default: yes in full mode, no in --quick). */
  installPortkey: boolean;
  /** The targets whose numbers are checked against the performance goals (each that runs). */
  subjects: string[];
  /** Where the JSON goes; null to skip writing it. */
  outDir: string | null;
  /** Write the report into docs/benchmarks.md (between its results markers). */
  updateDocs: boolean;
  help: boolean;
}

export const KNOWN_TARGETS = [
  'direct',
  'forwarder',
  'portkey',
  'gatehouse',
  'gatehouse-allowance',
  'gatehouse-traced',
  'forwarder-workers',
  'gatehouse-workers',
];
/** Targets run only when named with --targets. */
export const OPT_IN_TARGETS = ['gatehouse-traced', 'forwarder-workers', 'gatehouse-workers'];

export function parseArgs(argv: string[]): BenchOptions {
  const o: BenchOptions = {
    quick: false,
    targets: KNOWN_TARGETS.filter((t) => !OPT_IN_TARGETS.includes(t)),
    installPortkey: false,
    subjects: ['gatehouse', 'gatehouse-allowance'],
    outDir: 'bench/results',
    updateDocs: false,
    help: false,
  };
  let portkeyFlag = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const eq = a.indexOf('=');
      if (eq >= 0) return a.slice(eq + 1);
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    const flag = a.split('=')[0];
    switch (flag) {
      case '--quick':
        o.quick = true;
        break;
      case '--portkey':
        portkeyFlag = true;
        break;
      case '--targets': {
        const list = value()
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        const unknown = list.filter((t) => !KNOWN_TARGETS.includes(t));
        if (unknown.length) throw new Error(`unknown target(s): ${unknown.join(', ')} (known: ${KNOWN_TARGETS.join(', ')})`);
        if (list.length === 0) throw new Error('--targets needs at least one target');
        o.targets = KNOWN_TARGETS.filter((t) => t === 'direct' || list.includes(t));
        break;
      }
      case '--subject':
        o.subjects = value()
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        break;
      case '--out':
        o.outDir = value();
        break;
      case '--no-json':
        o.outDir = null;
        break;
      case '--update-docs':
        o.updateDocs = true;
        break;
      case '--help':
      case '-h':
        o.help = true;
        break;
      default:
        throw new Error(`unknown option ${a}`);
    }
  }
  o.installPortkey = portkeyFlag || !o.quick;
  if (portkeyFlag && !o.targets.includes('portkey')) o.targets = KNOWN_TARGETS.filter((t) => o.targets.includes(t) || t === 'portkey');
  return o;
}

export const USAGE = `npm run bench -- [--quick] [--targets direct,forwarder,portkey,gatehouse,gatehouse-allowance,gatehouse-traced,gatehouse-workers] [--portkey] [--subject gatehouse,gatehouse-allowance] [--out DIR | --no-json] [--update-docs]`;

export interface Plan {
  /** Added latency at concurrency 1: interleaved rounds of `perRound` requests after `warmup`. */
  latency: { rounds: number; perRound: number; warmup: number };
  /**
   * Closed-loop maximum rate, no upstream delay: `rounds` interleaved rounds of `durationMs` per target,
   * after `warmupMs` in the first round and `roundWarmupMs` in the others.
   */
  maxRate: { concurrency: number; durationMs: number; warmupMs: number; rounds: number; roundWarmupMs: number };
  /** Open-loop sustained-rate search with an upstream delay, p99 and error bounds. */
  sustained: {
    delayMs: number;
    probeMs: number;
    warmupMs: number;
    precision: number;
    factor: number;
    maxProbes: number;
    p99Ms: number;
    maxErrorRatio: number;
    /** Client connections of a probe (requests beyond them queue in the client). */
    connections: number;
    /** Outstanding requests at which a probe stops offering load. */
    maxInFlight: number;
    /** Probe a failed rate again before believing it. */
    retries: number;
    /** Search the direct path too (the harness's own ceiling; no check uses it). */
    direct: boolean;
    /** Pause after a passed probe (twice as long after a failed one), and the warm-up before the search. */
    pauseMs: number;
    prewarmMs: number;
  };
  /**
   * Streams of `chunks` events `gapMs` apart. TTFB: `ttfbStreams` short streams one at a time (the first
   * byte does not depend on the stream's length). Gaps: `gapStreams` full streams at `concurrency`. Then
   * the ladder of concurrent streams, each step held if the effective gap (stream duration over the
   * number of gaps) grows by at most `tolerance`.
   */
  stream: {
    chunks: number;
    gapMs: number;
    ttfbStreams: number;
    gapStreams: number;
    concurrency: number;
    ladder: number[];
    tolerance: number;
    retries: number;
    /** Between the last step held and the first failed, counts searched by halves to this fraction (0: none). */
    resolution: number;
  };
  /** Per-request timeout (ms). */
  timeoutMs: number;
}

/** Steps of the concurrent-stream ladder: doubling to 512, then by an eighth to a quarter of 1024, to 4096. */
export const STREAM_LADDER = [8, 16, 32, 64, 128, 256, 512, 640, 768, 896, 1024, 1280, 1536, 1792, 2048, 2560, 3072, 3584, 4096];

/**
 * The calls of a ladder step arrive over this long (a step of 2,048 streams: two a millisecond), not in one
 * instant: a burst of thousands of connects in the same millisecond overflows the listen queue and is
 * retried by the kernel a second later, which would measure the kernel's SYN retry instead of the proxy.
 */
export const LADDER_RAMP_MS = 1000;

/**
 * How close the ladder's answer is searched (a thirty-second of the count held, found by halves between the
 * last step held and the first failed): the steps themselves are an eighth apart from 512, coarser than the
 * 0.9× the gateway is held to.
 */
export const LADDER_RESOLUTION = 1 / 32;

export function plan(quick: boolean): Plan {
  if (quick) {
    return {
      latency: { rounds: 3, perRound: 100, warmup: 50 },
      maxRate: { concurrency: 50, durationMs: 800, warmupMs: 200, rounds: 1, roundWarmupMs: 200 },
      sustained: {
        delayMs: 20,
        probeMs: 600,
        warmupMs: 150,
        precision: 0.25,
        factor: 1.6,
        maxProbes: 3,
        p99Ms: 1000,
        maxErrorRatio: 0.001,
        connections: 256,
        maxInFlight: 4096,
        retries: 0,
        direct: false,
        pauseMs: 100,
        prewarmMs: 200,
      },
      stream: {
        chunks: 64,
        gapMs: 20,
        ttfbStreams: 30,
        gapStreams: 4,
        concurrency: 4,
        ladder: [512],
        tolerance: 0.2,
        retries: 0,
        resolution: 0,
      },
      timeoutMs: 10_000,
    };
  }
  return {
    latency: { rounds: 7, perRound: 200, warmup: 200 },
    maxRate: { concurrency: 50, durationMs: 2500, warmupMs: 2000, rounds: 5, roundWarmupMs: 500 },
    sustained: {
      delayMs: 20,
      probeMs: 4000,
      warmupMs: 1000,
      precision: 0.1,
      factor: 1.5,
      maxProbes: 9,
      p99Ms: 1000,
      maxErrorRatio: 0.001,
      connections: 256,
      maxInFlight: 8192,
      retries: 1,
      direct: true,
      pauseMs: 300,
      prewarmMs: 500,
    },
    stream: {
      chunks: 64,
      gapMs: 20,
      ttfbStreams: 200,
      gapStreams: 20,
      concurrency: 4,
      ladder: STREAM_LADDER,
      tolerance: 0.2,
      retries: 1,
      resolution: LADDER_RESOLUTION,
    },
    timeoutMs: 15_000,
  };
}
