/** The part of the `oidc-provider` package (shipped without types) the single sign-on tests use. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Account {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }

  export default class Provider {
    constructor(
      issuer: string,
      configuration: {
        findAccount?: (ctx: unknown, id: string) => Promise<Account | undefined>;
        [option: string]: unknown;
      },
    );
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
