/**
 * The scopes a secret key can be given, chosen when it is issued: full access (every scope) by default, or only the
 * scopes ticked, resource by resource. The list is typed against the API's own (api-types.generated.ts), so a scope
 * the API adds fails the typecheck here until the page offers it.
 */
import { label } from '../format';
import type { operations } from '../api-types.generated';

type IssueBody = operations['postMerchantApiKeys']['requestBody']['content']['application/json'];
export type Scope = NonNullable<IssueBody['scopes']>[number];

const OFFERED = {
  'checkout:read': true,
  'checkout:write': true,
  'customers:read': true,
  'customers:write': true,
  'products:read': true,
  'products:write': true,
  'offers:read': true,
  'offers:write': true,
  'transactions:read': true,
  'transactions:write': true,
  'orders:read': true,
  'instruments:read': true,
  'instruments:write': true,
  'subscriptions:read': true,
  'subscriptions:write': true,
  'merchants:read': true,
  'merchants:write': true,
  'connectors:read': true,
  'connectors:write': true,
  'routing:read': true,
  'routing:write': true,
  'webhooks:read': true,
  'webhooks:write': true,
} satisfies Record<Scope, true>;

const ALL = Object.keys(OFFERED) as Scope[];
const RESOURCES = [...new Set(ALL.map((scope) => scope.split(':')[0]))];

/** How the key list shows a key's reach: "Full access" for every scope, else the scopes themselves. */
export function scopeText(scopes: readonly string[]): string {
  if (scopes.length === 0) return 'None (public key)';
  return ALL.every((scope) => scopes.includes(scope)) ? 'Full access' : scopes.join(', ');
}

/** Full access (chosen null) or only the scopes ticked. */
export function ScopeChoice(props: { chosen: Scope[] | null; set: (chosen: Scope[] | null) => void }) {
  const { chosen } = props;
  const toggle = (scope: Scope, on: boolean) =>
    props.set(on ? ALL.filter((s) => s === scope || chosen?.includes(s)) : (chosen ?? []).filter((s) => s !== scope));
  return (
    <fieldset>
      <legend>Access</legend>
      <div class="field checkbox">
        <input id="scope-full" type="radio" name="access" checked={!chosen} onChange={() => props.set(null)} />
        <label for="scope-full">Full access (every scope)</label>
      </div>
      <div class="field checkbox">
        <input id="scope-some" type="radio" name="access" checked={!!chosen} onChange={() => props.set([])} />
        <label for="scope-some">Only the scopes chosen</label>
      </div>
      {chosen && (
        <div class="scope-grid">
          {RESOURCES.map((resource) => (
            <fieldset key={resource}>
              <legend>{label(resource)}</legend>
              {ALL.filter((scope) => scope.startsWith(`${resource}:`)).map((scope) => (
                <div class="field checkbox" key={scope}>
                  <input
                    id={`scope-${scope}`}
                    type="checkbox"
                    checked={chosen.includes(scope)}
                    onChange={(e) => toggle(scope, e.currentTarget.checked)}
                  />
                  <label for={`scope-${scope}`}>{label(scope.split(':')[1])}</label>
                </div>
              ))}
            </fieldset>
          ))}
        </div>
      )}
    </fieldset>
  );
}
