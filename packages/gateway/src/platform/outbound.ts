/**
 * The one outbound HTTP client: every upstream byte leaves through one of these undici dispatchers,
 * owned by the core and closed with it.
 *  - `pools`: model calls (relay) — one Pool per upstream origin, keep-alive, no cap on connections
 *    (streams never queue behind each other), connect, header and body timeouts (RELAY_TIMEOUT).
 *  - `agent`: plugin vendor calls (host-checked descriptors) — keep-alive;
 *    callers set per-request time-outs and size caps.
 *  - `publicOnly`: content fetched from places no channel vouches for (credentialless artifact
 *    reads and their redirects, image downloads for `b64_json`, marketplace downloads) — connections
 *    to non-public addresses, literal or resolved, are refused (platform/ssrf.ts), unless
 *    CONTENT_ALLOW_PRIVATE_ADDRESSES=true.
 */
import { Agent, type Dispatcher } from 'undici';
import { publicOnlyAgent } from './ssrf.ts';
import { GoogleTokens } from './google-token.ts';
import { UpstreamPools } from './upstream-pools.ts';

export { UpstreamPools, type UpstreamRequest, type UpstreamResponse } from './upstream-pools.ts';

export class Outbound {
  readonly pools: UpstreamPools;
  /** Access tokens of Google service accounts (Vertex AI channels, `oauth2_jwt` task plugins). */
  readonly google: GoogleTokens;
  /** undici's keep-alive defaults: an idle connection is kept 4 s (or as the server's hint says). */
  readonly agent: Dispatcher = new Agent({ connect: { timeout: 10_000 } });
  /** `publicOnly`, or `agent` when private addresses are allowed. */
  readonly content: Dispatcher;
  private readonly publicOnly: Agent | null;

  constructor(opts: { relayTimeoutMs: number; allowPrivateContent: boolean }) {
    this.pools = new UpstreamPools(opts.relayTimeoutMs);
    this.google = new GoogleTokens(this.pools);
    this.publicOnly = opts.allowPrivateContent ? null : publicOnlyAgent();
    this.content = this.publicOnly ?? this.agent;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.pools.close(), this.agent.close(), this.publicOnly?.close()]);
  }
}
