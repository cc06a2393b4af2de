/**
 * The signed-in person: tokens from POST /auth/merchant/login, kept in sessionStorage (they die with the tab and
 * are never readable by another site), the merchant memberships and the merchant being worked on.
 */
import type { Answer } from './api';

export type Membership = Answer<'getAuthMerchantMemberships'>['memberships'][number];

export interface Session {
  accessToken: string;
  refreshToken: string;
  /** Epoch milliseconds when the access token stops working. */
  expiresAt: number;
  user: { id: string; email: string; name: string | null };
  memberships: Membership[];
  merchantId: string;
}

const KEY = 'switchyard.dashboard.session';
type Listener = (session: Session | null, reason?: string) => void;
const listeners = new Set<Listener>();

function load(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

let current: Session | null = load();

export const currentSession = (): Session | null => current;

export function setSession(session: Session | null, reason?: string): void {
  current = session;
  if (session) sessionStorage.setItem(KEY, JSON.stringify(session));
  else sessionStorage.removeItem(KEY);
  for (const listener of listeners) listener(session, reason);
}

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function activeMemberships(session: Session): Membership[] {
  return session.memberships.filter((membership) => membership.status === 'active');
}
