/**
 * Outgoing e-mail: one nodemailer transport per process, made on first use from SMTP_URL, sending from
 * MAIL_FROM, closed with the core. Used by alert delivery and by sign-up (verification and password
 * reset links). `mailer(core).configured` is false when SMTP_URL is not set: callers refuse clearly.
 */
import type { Config } from './config.ts';

/** What the mailer needs of the core (core.ts): its settings and its closers. */
export interface MailCore {
  config: Pick<Config, 'smtpUrl' | 'mailFrom'>;
  onClose(fn: () => Promise<void> | void): void;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  headers?: Record<string, string>;
}

type Transport = { sendMail(m: MailMessage & { from: string }): Promise<unknown>; close(): void };

export class Mailer {
  private transport: Promise<Transport> | null = null;

  constructor(private readonly core: MailCore) {}

  /** True when SMTP_URL is set. */
  get configured(): boolean {
    return !!this.core.config.smtpUrl;
  }

  async send(m: MailMessage): Promise<void> {
    const url = this.core.config.smtpUrl;
    if (!url) throw new Error('SMTP_URL is not set');
    this.transport ??= import('nodemailer').then((n) => n.createTransport(url) as unknown as Transport);
    await (await this.transport).sendMail({ from: this.core.config.mailFrom, ...m });
  }

  close(): void {
    const t = this.transport;
    this.transport = null;
    void t?.then(
      (x) => x.close(),
      () => {},
    );
  }
}

const mailers = new WeakMap<MailCore, Mailer>();

/** The process's mailer for `core`, made on first call and closed when the core closes. */
export function mailer(core: MailCore): Mailer {
  let m = mailers.get(core);
  if (!m) {
    const made = new Mailer(core);
    mailers.set(core, made);
    core.onClose(() => made.close());
    m = made;
  }
  return m;
}
