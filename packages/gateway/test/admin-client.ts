/** A small admin-API client for integration tests: log in, call with a bearer access token. */
import assert from 'node:assert/strict';
import { TEST_ROOT_PASSWORD } from './harness.ts';

export interface Reply<T = any> {
  status: number;
  body: { success: boolean; message: string; data: T };
  text: string;
  /** The error's catalog code (the `X-Error-Code` header of a refusal). */
  code: string | null;
}

export class AdminClient {
  constructor(
    readonly url: string,
    readonly token: string | null,
  ) {}

  static async login(url: string, username = 'root', password = TEST_ROOT_PASSWORD): Promise<AdminClient> {
    const res = await fetch(`${url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
    // The body is read only when the login failed: the answer check (api-conformance.ts) already read a clone of it,
    // and a second clone of an answer whose first clone was read can fail on Node.js 22.
    if (res.status !== 200) assert.fail(`login of ${username} failed: ${res.status} ${await res.text()}`);
    const cookie = res.headers.get('set-cookie')!.split(';')[0];
    // A new access token is confirmed with the password (docs/two-factor.md#confirming-sensitive-changes).
    const tok = await fetch(`${url}/api/user/token`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ password }),
    });
    const token = ((await tok.json()) as { data: { access_token: string } }).data.access_token;
    return new AdminClient(url, token);
  }

  async call<T = any>(method: string, path: string, body?: unknown): Promise<Reply<T>> {
    const res = await fetch(this.url + path, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text), text, code: res.headers.get('x-error-code') };
  }

  /** Calls and asserts success; returns data. */
  async ok<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await this.call<T>(method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    assert.equal(r.body.success, true);
    return r.body.data;
  }

  /** Calls and asserts a failure with `status` whose message names `field` (when given). */
  async fails(status: number, method: string, path: string, body?: unknown, field?: string): Promise<Reply> {
    const r = await this.call(method, path, body);
    assert.equal(r.status, status, `${method} ${path} expected ${status}: ${r.text}`);
    assert.equal(r.body.success, false);
    assert.equal(r.body.data, null);
    if (field) assert.ok(r.body.message.startsWith(`${field}:`), `message should name ${field}: ${r.body.message}`);
    return r;
  }
}
