/**
 * Team: who can use this merchant's Dashboard and pending invitations. Owners and admins invite by e-mail, change
 * roles, remove members, resend or revoke invitations (only an owner touches an owner); a viewer sees the list.
 * Every change is confirmed inline before it runs; the API has the last word (403, 409 LAST_OWNER are shown).
 */
import { useState } from 'preact/hooks';
import { call, type Item, type Page } from '../api';
import { label, when } from '../format';
import { currentSession } from '../session';
import { Chip, ErrorNote, Field, Notice, PageHeader, Table, inputValue, useLoad, useSubmit } from '../ui';

type Member = Item<'getMerchantMembers'>;
type Role = Member['role'];

const ROLE_HINTS: Record<Role, string> = {
  owner: 'Everything, including the team and its owners',
  admin: 'Everything except owners: payments, refunds, connectors, webhooks, the team',
  viewer: 'Reads only; never moves money or changes settings',
};

function myRole(): Role | null {
  const session = currentSession();
  const mine = session?.memberships.find((m) => m.merchant_id === session.merchantId && m.status === 'active');
  return (mine?.role as Role | undefined) ?? null;
}

/** Roles `me` may hand out: an owner any, an admin admin and viewer. */
const grantable = (me: Role | null): Role[] => (me === 'owner' ? ['owner', 'admin', 'viewer'] : ['admin', 'viewer']);

function InviteForm(props: { me: Role | null; invited: (member: Member) => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const { busy, error, submit } = useSubmit(async () => {
    const member = await call<Member>('POST', '/merchant/members', { email, role, ...(name ? { name } : {}) });
    setEmail('');
    setName('');
    props.invited(member);
  });
  return (
    <form class="inline-form narrow" onSubmit={submit} aria-label="Invite a member">
      <h2>Invite a member</h2>
      <Field label="E-mail" hint="The invitation link goes here; it is valid for 7 days.">
        {(a) => <input {...a} type="email" required value={email} onInput={(e) => setEmail(inputValue(e))} />}
      </Field>
      <Field label="Name (optional)">
        {(a) => <input {...a} maxLength={255} value={name} onInput={(e) => setName(inputValue(e))} />}
      </Field>
      <Field label="Role" hint={ROLE_HINTS[role]}>
        {(a) => (
          <select {...a} value={role} onChange={(e) => setRole(inputValue(e) as Role)}>
            {grantable(props.me).map((r) => (
              <option key={r} value={r}>
                {label(r)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <ErrorNote error={error} />
      <button type="submit" disabled={busy}>
        {busy ? 'Sending…' : 'Send invitation'}
      </button>
    </form>
  );
}

type Action = { kind: 'role'; role: Role } | { kind: 'remove' } | { kind: 'resend' };

/** The question a change asks before it runs, its confirm button, and what the page says once it is done. */
function describe(
  action: Action,
  member: Member,
): { question: string; confirm: string; done: string; danger: boolean } {
  const who = member.name ?? member.email;
  if (action.kind === 'role') {
    const role = label(action.role).toLowerCase();
    return { question: `Make ${who} ${role}?`, confirm: 'Change role', done: `${who} is now ${role}.`, danger: false };
  }
  if (action.kind === 'resend')
    return {
      question: `Send ${member.email} a new invitation link? The previous link stops working.`,
      confirm: 'Resend invitation',
      done: `A new invitation link was sent to ${member.email}.`,
      danger: false,
    };
  return member.status === 'pending'
    ? {
        question: `Revoke the invitation of ${member.email}? Its link stops working.`,
        confirm: 'Revoke',
        done: `The invitation of ${member.email} is revoked.`,
        danger: true,
      }
    : {
        question: `Remove ${who} from this merchant? They lose access at once.`,
        confirm: 'Remove',
        done: `${who} no longer has access to this merchant.`,
        danger: true,
      };
}

function MemberActions(props: { member: Member; me: Role | null; changed: (message: string) => void }) {
  const { member, me } = props;
  const [action, setAction] = useState<Action | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const manageable = me === 'owner' || (me === 'admin' && member.role !== 'owner');
  if (!manageable) return <span class="meta">{me === 'admin' ? 'Only an owner can change an owner' : '—'}</span>;
  const run = () => {
    if (!action) return;
    setBusy(true);
    setError(null);
    const path = `/merchant/members/${member.membership_id}`;
    const request =
      action.kind === 'role'
        ? call('PATCH', path, { role: action.role })
        : action.kind === 'resend'
          ? call('POST', `${path}/resend-invitation`)
          : call('DELETE', path);
    request.then(
      () => {
        setBusy(false);
        setAction(null);
        props.changed(describe(action, member).done);
      },
      (failure: unknown) => {
        setBusy(false);
        setAction(null);
        setError(failure);
      },
    );
  };
  const asked = action && describe(action, member);
  return (
    <div class="member-actions">
      <div class="button-row">
        <select
          id={`role-${member.membership_id}`}
          // An aria-label, not a visually hidden <label>: that one is absolutely positioned and, inside the table's
          // scroll box, would widen the whole page at 360 px.
          aria-label={`Role of ${member.email}`}
          value={action?.kind === 'role' ? action.role : member.role}
          onChange={(e) => {
            const role = inputValue(e) as Role;
            setError(null);
            setAction(role === member.role ? null : { kind: 'role', role });
          }}
        >
          {grantable(me)
            .concat(grantable(me).includes(member.role) ? [] : [member.role])
            .map((r) => (
              <option key={r} value={r}>
                {label(r)}
              </option>
            ))}
        </select>
        {member.status === 'pending' && (
          <button type="button" class="secondary small" onClick={() => setAction({ kind: 'resend' })}>
            Resend
          </button>
        )}
        <button type="button" class="secondary small" onClick={() => setAction({ kind: 'remove' })}>
          {member.status === 'pending' ? 'Revoke' : 'Remove'}
        </button>
      </div>
      {asked && (
        <div class="confirm" role="group" aria-label={asked.confirm}>
          <p>{asked.question}</p>
          <div class="button-row">
            <button type="button" class={asked.danger ? 'danger small' : 'small'} disabled={busy} onClick={run}>
              {busy ? 'Working…' : asked.confirm}
            </button>
            <button
              type="button"
              class="secondary small"
              disabled={busy}
              onClick={() => {
                setAction(null);
                setError(null);
              }}
            >
              Keep as is
            </button>
          </div>
        </div>
      )}
      <ErrorNote error={error} />
    </div>
  );
}

export function Team() {
  const me = myRole();
  const canManage = me === 'owner' || me === 'admin';
  const [message, setMessage] = useState<string | null>(null);
  const members = useLoad(() => call<Page<Member>>('GET', '/merchant/members?limit=100'), []);
  const changed = (text: string) => {
    setMessage(text);
    members.reload();
  };
  return (
    <>
      <PageHeader title="Team" />
      {message && <Notice tone="success">{message}</Notice>}
      {!canManage && (
        <Notice>
          You have view-only access. Ask an owner or admin of this merchant to invite people or change roles.
        </Notice>
      )}
      <section aria-labelledby="members">
        <h2 id="members">Members and invitations</h2>
        {members.state === 'loading' && <p class="loading">Loading members…</p>}
        {members.state === 'error' && <ErrorNote error={members.error} retry={members.reload} />}
        {members.state === 'ready' && (
          <Table caption="Members" head={['Person', 'Role', 'Status', canManage ? 'Change' : '']}>
            {members.data.data.map((m) => (
              <tr key={m.membership_id} data-member={m.email}>
                <td class="break">
                  {m.name ?? m.email}
                  {m.name && <span class="meta block">{m.email}</span>}
                </td>
                <td>{label(m.role)}</td>
                <td>
                  <Chip
                    status={m.status === 'active' ? 'active' : 'pending'}
                    text={m.status === 'active' ? 'Active' : 'Invited'}
                  />
                  <span class="meta block">
                    {m.status === 'active'
                      ? `Joined ${when(m.joined_at)}`
                      : `Link valid until ${when(m.invitation_expires_at)}`}
                  </span>
                </td>
                <td>{canManage && <MemberActions member={m} me={me} changed={changed} />}</td>
              </tr>
            ))}
          </Table>
        )}
      </section>
      {canManage && (
        <InviteForm
          me={me}
          invited={(member) => changed(`Invitation sent to ${member.email} as ${label(member.role).toLowerCase()}.`)}
        />
      )}
    </>
  );
}
