/**
 * Who did something, by name: records name their actor by id (usr_… for a member, ak_… for an API key); the page
 * shows the member's name (or e-mail) and the key's name next to its id, from the merchant's members and keys.
 */
import { call, type Item, type Page } from './api';
import { currentSession } from './session';
import { useLoad } from './ui';

type Member = Item<'getMerchantMembers'>;
type Key = Item<'getMerchantApiKeys'>;

export interface Actor {
  type: 'api_key' | 'dashboard_user' | 'system';
  id: string | null;
}

/** A function naming an actor; ids show only while the names load or for someone no longer listed. */
export function useActorNames(): (actor: Actor | null) => string {
  const loaded = useLoad(
    () =>
      Promise.all([
        call<Page<Member>>('GET', '/merchant/members?limit=100'),
        call<Page<Key>>('GET', '/merchant/api-keys?limit=100'),
      ]),
    [],
  );
  const [members, keys] = loaded.state === 'ready' ? loaded.data : [null, null];
  return (actor) => {
    if (!actor || actor.type === 'system') return actor ? 'Switchyard' : '—';
    if (actor.type === 'api_key') {
      const name = keys?.data.find((k) => k.id === actor.id)?.name;
      return `API key ${actor.id}${name ? ` (${name})` : ''}`;
    }
    const me = currentSession()?.user;
    if (actor.id === me?.id) return `${me.name ?? me.email} (you)`;
    const member = members?.data.find((m) => m.user_id === actor.id);
    return member ? (member.name ?? member.email) : `A former member (${actor.id})`;
  };
}
