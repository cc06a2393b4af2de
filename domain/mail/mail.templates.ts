/**
 * The service's e-mails, as plain text (no HTML part: nothing in them is markup). Links point at the Dashboard web
 * app (DASHBOARD_URL), or for a customer's renewal authentication at the API (PUBLIC_BASE_URL). Every name a person chose is shown through inertName, quoted, after the platform's own
 * wording, so chosen text can neither open a message sent under our name nor pass for it.
 */
import type { MailContent } from './mail.outbox';
import { inertName } from './mail.names';
import { toDecimal } from '../connectors/money';

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

/** Who sent an invitation: a Dashboard user (named by their sign-in address) or the organization's own key. */
export type Inviter = { email: string; name: string | null } | null;

export function merchantInvitationMail(input: {
  appUrl: string;
  token: string;
  merchantName: string;
  organizationName: string;
  inviter: Inviter;
  role: string;
  expiresAt: Date;
}): MailContent {
  const link = `${input.appUrl}/accept-invitation?token=${encodeURIComponent(input.token)}`;
  const merchant = `“${inertName(input.merchantName)}”`;
  const organization = `“${inertName(input.organizationName)}”`;
  const { inviter } = input;
  const invitedBy = !inviter
    ? `Invited by the organization ${organization}.`
    : `Invited by ${inviter.email}${inviter.name && inviter.name !== inviter.email ? ` (“${inertName(inviter.name)}”)` : ''}, a member of this merchant's team.`;
  return {
    subject: `You are invited to ${merchant} on Switchyard`,
    text: [
      `You are invited to the Switchyard Dashboard of the merchant ${merchant} (organization ${organization}) as ${input.role}.`,
      invitedBy,
      '',
      `Accept the invitation and choose your password here (valid until ${input.expiresAt.toISOString()}):`,
      link,
      '',
      'If you did not expect this, ignore this message or decline the invitation from the same link.',
    ].join('\n'),
  };
}

/**
 * The e-mail asking the customer to authenticate: the merchant's name (quoted, inert), the amount, the link and
 * until when. No card data: the customer knows which card they gave, and a mail is no place for its digits.
 */
export function renewalAuthenticationMail(input: {
  merchantName: string;
  amount: number;
  currency: string;
  url: string;
  expiresAt: string;
}): MailContent {
  const merchant = `“${inertName(input.merchantName)}”`;
  const amount = `${toDecimal(input.amount, input.currency)} ${input.currency}`;
  return {
    subject: 'Confirm your subscription payment',
    text: [
      `Your bank asks you to confirm the payment of ${amount} for your subscription with ${merchant}.`,
      '',
      `Confirm it here (the link works once, until ${input.expiresAt}):`,
      input.url,
      '',
      'Until you confirm, the payment is retried on schedule and may be declined again.',
    ].join('\n'),
  };
}
