/** The service's e-mails, as plain text. Links point at the Dashboard web app (DASHBOARD_URL). */
import type { MailContent } from './mail.outbox';

const DASHBOARD_NAMES = { admin: 'platform', organization: 'organization', merchant: 'merchant' } as const;

export function passwordResetMail(input: {
  appUrl: string;
  identity: keyof typeof DASHBOARD_NAMES;
  token: string;
  minutes: number;
}): MailContent {
  const link = `${input.appUrl}/reset-password?dashboard=${input.identity}&token=${encodeURIComponent(input.token)}`;
  return {
    subject: 'Reset your Switchyard password',
    text: [
      `Someone asked to reset the password of your Switchyard ${DASHBOARD_NAMES[input.identity]} Dashboard account.`,
      '',
      `Choose a new password here (the link works once, for ${input.minutes} minutes):`,
      link,
      '',
      'If it was not you, ignore this message: your password stays as it is.',
    ].join('\n'),
  };
}

export function merchantInvitationMail(input: {
  appUrl: string;
  token: string;
  merchantName: string;
  organizationName: string;
  inviterName: string | null;
  role: string;
  expiresAt: Date;
}): MailContent {
  const link = `${input.appUrl}/accept-invitation?token=${encodeURIComponent(input.token)}`;
  return {
    subject: `You are invited to ${input.merchantName} on Switchyard`,
    text: [
      `${input.inviterName ?? input.organizationName} invited you to the Switchyard Dashboard of ${input.merchantName} (${input.organizationName}) as ${input.role}.`,
      '',
      `Accept the invitation and choose your password here (valid until ${input.expiresAt.toISOString()}):`,
      link,
      '',
      'If you did not expect this, ignore this message or decline the invitation from the same link.',
    ].join('\n'),
  };
}
