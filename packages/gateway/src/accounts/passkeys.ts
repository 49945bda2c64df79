/**
 * Passkeys (WebAuthn, @simplewebauthn/server): registration by a logged-in user, and assertions that
 * either complete a pending login as its second factor or log in without a password (discoverable
 * credentials with user verification). The relying party id and origin come from PUBLIC_URL.
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Core } from '../core.ts';
import { GatewayError, fail } from '../platform/errors.ts';
import type { TwoFactor } from './two-factor.ts';
import { PasskeyStore } from './passkey-store.ts';

/** The WebAuthn library, loaded on the first passkey ceremony (about 5 MB of heap a node without passkeys never spends). */
let webauthnLib: Promise<typeof import('@simplewebauthn/server')> | null = null;
const webauthn = () => (webauthnLib ??= import('@simplewebauthn/server'));

export type AssertionPurpose = 'passkey_login' | 'passkey_2fa';

export interface PasskeyView {
  id: number;
  name: string;
  created_at: number;
  last_used_at: number | null;
}

const RP_NAME = 'Gatehouse';

/** The challenge a browser signed, read from the response's clientDataJSON. */
function challengeOf(response: { response?: { clientDataJSON?: unknown } }): string | null {
  const raw = response?.response?.clientDataJSON;
  if (typeof raw !== 'string' || raw.length > 8192) return null;
  try {
    const c = (JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { challenge?: unknown }).challenge;
    return typeof c === 'string' && c.length <= 512 ? c : null;
  } catch {
    return null;
  }
}

function invalid(message = 'the passkey response could not be verified'): GatewayError {
  return fail('invalid_passkey', message);
}

export class Passkeys {
  constructor(
    private readonly core: Core,
    private readonly twoFactor: TwoFactor,
  ) {}

  private get passkeys() {
    return new PasskeyStore(this.core.h);
  }

  /** Relying party id and origin from PUBLIC_URL; 503 `passkeys_unavailable` without it. */
  rp(): { rpID: string; origin: string } {
    const url = this.core.config.publicUrl;
    if (!url) throw fail('passkeys_unavailable');
    const u = new URL(url);
    return { rpID: u.hostname, origin: u.origin };
  }

  available(): boolean {
    return !!this.core.config.publicUrl;
  }

  async list(userId: number): Promise<PasskeyView[]> {
    const rows = await this.passkeys.listOf(userId);
    return rows.map((r) => ({
      id: Number(r.id),
      name: r.name,
      created_at: Number(r.created_at),
      last_used_at: r.last_used_at === null ? null : Number(r.last_used_at),
    }));
  }

  async registrationOptions(user: { id: number; username: string }) {
    const { rpID } = this.rp();
    const existing = await this.passkeys.credentialsOf(user.id);
    const { generateRegistrationOptions } = await webauthn();
    const options = await generateRegistrationOptions({
      rpName: RP_NAME,
      rpID,
      userName: user.username,
      userID: new TextEncoder().encode(`gatehouse-user-${user.id}`),
      attestationType: 'none',
      excludeCredentials: existing.map((c) => ({ id: c.credential_id, transports: c.transports ? c.transports.split(',') : undefined })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    await this.twoFactor.saveChallenge(options.challenge, 'passkey_register', user.id);
    return options;
  }

  /** Verifies a registration response and stores the passkey; returns it. */
  async register(userId: number, response: unknown, name: unknown): Promise<PasskeyView> {
    const label = typeof name === 'string' && name.trim() ? name.trim().slice(0, 64) : 'Passkey';
    const r = response as RegistrationResponseJSON;
    const challenge = challengeOf(r);
    if (!challenge || (await this.twoFactor.takeChallenge(challenge, 'passkey_register')) !== userId)
      throw invalid('the registration challenge is unknown, used or expired: start again');
    const { rpID, origin } = this.rp();
    let v;
    try {
      v = await (
        await webauthn()
      ).verifyRegistrationResponse({
        response: r,
        expectedChallenge: challenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        requireUserVerification: false,
      });
    } catch (e) {
      throw invalid(`the passkey response could not be verified: ${(e as Error).message}`);
    }
    if (!v.verified) throw invalid();
    const cred = v.registrationInfo.credential;
    const now = Date.now();
    const taken = await this.passkeys.byCredential(cred.id);
    if (taken) throw fail('passkey_exists');
    await this.passkeys.insert({
      user_id: userId,
      credential_id: cred.id,
      public_key: Buffer.from(cred.publicKey).toString('base64url'),
      counter: cred.counter,
      transports: (cred.transports ?? []).join(','),
      name: label,
      created_at: now,
      last_used_at: null,
    });
    const row = (await this.passkeys.byCredential(cred.id))!;
    return { id: Number(row.id), name: row.name, created_at: Number(row.created_at), last_used_at: null };
  }

  async remove(userId: number, id: number): Promise<void> {
    if (!(await this.passkeys.remove(userId, id))) throw fail('not_found', 'no such passkey');
    await this.twoFactor.dropRecoveryCodesIfUnused(userId);
  }

  /**
   * Options of an assertion: for a second factor, the user's passkeys; for a login without a password,
   * any discoverable passkey of this site, with user verification.
   */
  async authenticationOptions(purpose: AssertionPurpose, userId: number | null) {
    const { rpID } = this.rp();
    const allow =
      userId === null
        ? undefined
        : (await this.passkeys.credentialsOf(userId)).map((c) => ({
            id: c.credential_id,
            transports: c.transports ? c.transports.split(',') : undefined,
          }));
    const { generateAuthenticationOptions } = await webauthn();
    const options = await generateAuthenticationOptions({
      rpID,
      allowCredentials: allow,
      userVerification: purpose === 'passkey_login' ? 'required' : 'preferred',
    });
    await this.twoFactor.saveChallenge(options.challenge, purpose, userId);
    return options;
  }

  /**
   * Verifies an assertion made for `purpose`; `userId` (a pending login's user) must own the passkey
   * when given. Returns the user id of the passkey.
   */
  async verifyAssertion(purpose: AssertionPurpose, response: unknown, userId: number | null): Promise<number> {
    const r = response as AuthenticationResponseJSON;
    const challenge = challengeOf(r);
    if (!challenge) throw invalid();
    const owner = await this.twoFactor.takeChallenge(challenge, purpose);
    if (owner === undefined || owner !== userId) throw invalid('the passkey challenge is unknown, used or expired: start again');
    if (typeof r.id !== 'string' || r.id.length > 191) throw invalid();
    const row = await this.passkeys.byCredential(r.id);
    if (!row || (userId !== null && Number(row.user_id) !== userId)) throw invalid('this passkey is not registered');
    const { rpID, origin } = this.rp();
    let v;
    try {
      v = await (
        await webauthn()
      ).verifyAuthenticationResponse({
        response: r,
        expectedChallenge: challenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        credential: {
          id: row.credential_id,
          publicKey: new Uint8Array(Buffer.from(row.public_key, 'base64url')),
          counter: Number(row.counter),
          transports: row.transports ? row.transports.split(',') : undefined,
        },
        requireUserVerification: purpose === 'passkey_login',
      });
    } catch (e) {
      throw invalid(`the passkey response could not be verified: ${(e as Error).message}`);
    }
    if (!v.verified) throw invalid();
    await this.passkeys.used(Number(row.id), v.authenticationInfo.newCounter, Date.now());
    return Number(row.user_id);
  }
}
