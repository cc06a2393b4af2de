/**
 * Connector health, black-box through HTTP against the real stack and the sandbox PSP: a connector whose provider
 * answers 5xx opens its circuit after config.circuit_breaker.failure_threshold consecutive failures and routing skips
 * it (circuit_open on the transaction's routing explanation and on simulate) while charges keep succeeding on the next
 * connector; after the cool-down exactly one charge probes it; a failed probe reopens it, a successful one closes it.
 * Every opening and closing is in the activity log and the events. Owners open and close circuits by hand.
 */
import { expect } from 'chai';
import { api, request } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { control, ledger } from '../helpers/sandbox';
import { cardCharge, cardToken, cascade, charge, type CascadeConnector } from '../helpers/transactions';

describe('connector health — circuit breaker, health, decline table', () => {
  let tenant: Tenant;
  let failing: CascadeConnector;
  let healthy: CascadeConnector;
  const connectorPath = (id: string) => `/merchants/${tenant.merchant_id}/connectors/${id}`;
  const key = () => tenant.merchant_secret_key;

  const health = async (id: string) => {
    const res = await api.get(connectorPath(id), { key: key() });
    expect(res.status, res.text).to.equal(200);
    return res.body.health;
  };

  const pay = async () => {
    const res = await charge(tenant, cardCharge(await cardToken(tenant)));
    expect(res.status, res.text).to.equal(201);
    return res.body.data;
  };

  const routingOf = async (txId: string) => {
    const res = await api.get(`/transactions/${txId}/routing`, { key: key() });
    expect(res.status, res.text).to.equal(200);
    return res.body.data;
  };

  const authorizeCalls = async (reference: string, connector: CascadeConnector) => {
    const account = (
      await control('POST', '/accounts/resolve', { provider: connector.slug, credentials: connector.credentials })
    ).body.account;
    return (await ledger({ reference })).filter(
      (entry) => entry.operation === 'authorize' && !entry.replayed && entry.account === account,
    );
  };

  /** Makes the connector's provider answer 5xx (without processing) until the returned function is called. */
  const outage = async (connector: CascadeConnector) => {
    const res = await control('POST', '/overrides', {
      provider: connector.slug,
      credentials: connector.credentials,
      scenario: 'processing_error',
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return async () => expect((await control('DELETE', `/overrides/${res.body.id}`)).status).to.be.oneOf([200, 204]);
  };

  /** Waits (on the condition, not a fixed time) until the open circuit's cool-down has passed. */
  const untilProbeDue = async (id: string) => {
    const { next_probe_at: nextProbeAt } = await health(id);
    expect(nextProbeAt).to.be.a('string');
    const deadline = Date.parse(nextProbeAt as string);
    while (Date.now() <= deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  };

  beforeEach(async () => {
    tenant = await createTenant();
    [failing, healthy] = await cascade(tenant, ['provider_a', 'provider_a']);
    const res = await api.patch(connectorPath(failing.id), {
      key: key(),
      body: { config: { circuit_breaker: { failure_threshold: 2, cooldown_seconds: 3 } } },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.config.circuit_breaker).to.deep.equal({ failure_threshold: 2, cooldown_seconds: 3 });
  });

  it('a connector failing with 5xx opens after the threshold and is skipped (circuit_open), charges succeed on the next; after the cool-down one charge probes it and a success closes it', async () => {
    const recover = await outage(failing);
    // Below the threshold: tried, failed, the cascade moves on; the circuit stays closed.
    const first = await pay();
    expect(first.status).to.equal('authorized');
    expect(first.timeline.map((a: any) => [a.connector_id, a.status])).to.deep.equal([
      [failing.id, 'error'],
      [healthy.id, 'success'],
    ]);
    expect(await health(failing.id)).to.include({ state: 'closed', consecutive_failures: 1 });

    // The threshold: the circuit opens.
    expect((await pay()).status).to.equal('authorized');
    const opened = await health(failing.id);
    expect(opened).to.include({ state: 'open', consecutive_failures: 2, last_failure_code: 'http_500' });
    expect(Date.parse(opened.next_probe_at) - Date.parse(opened.opened_at)).to.equal(3000);
    expect(opened.window).to.include({ attempts: 2, approved: 0, errors: 2, approval_rate: 0 });

    // While open: skipped, said so, and the charge succeeds on the next connector without calling the failing one.
    const skipped = await pay();
    expect(skipped.status).to.equal('authorized');
    expect(skipped.timeline.map((a: any) => a.connector_id)).to.deep.equal([healthy.id]);
    expect(await authorizeCalls(skipped.id, failing)).to.have.length(0);
    const routing = await routingOf(skipped.id);
    expect(routing.skipped).to.deep.include({
      connector_id: failing.id,
      node_id: routing.skipped.find((s: any) => s.connector_id === failing.id)?.node_id,
      reason: 'circuit_open',
    });
    expect(routing.attempts.map((a: any) => a.connector_id)).to.deep.equal([healthy.id]);
    const profiles = await api.get(`/merchants/${tenant.merchant_id}/routing-profiles`, { key: key() });
    const simulated = await api.post(
      `/merchants/${tenant.merchant_id}/routing-profiles/${(profiles.body.data ?? profiles.body)[0].id}/simulate`,
      {
        key: key(),
        body: { payment_method: 'credit_card', currency: 'USD', amount: 1500 },
      },
    );
    expect(simulated.status, simulated.text).to.equal(200);
    expect(simulated.body.skipped.map((s: any) => [s.merchant_connector_id, s.reason])).to.deep.include([
      failing.id,
      'circuit_open',
    ]);

    // The provider recovers; after the cool-down one charge probes the connector and its success closes the circuit.
    await recover();
    await untilProbeDue(failing.id);
    const probe = await pay();
    expect(probe.timeline.map((a: any) => [a.connector_id, a.status])).to.deep.equal([[failing.id, 'success']]);
    expect((await routingOf(probe.id)).attempts[0]).to.include({ connector_id: failing.id, probe: true });
    const closed = await health(failing.id);
    expect(closed).to.include({ state: 'closed', consecutive_failures: 0, opened_at: null, next_probe_at: null });
    expect(closed.window).to.include({ attempts: 3, approved: 1 });

    // Both moves are in the activity log and emitted as events.
    const activity = await api.get(`/merchants/${tenant.merchant_id}/activity`, {
      key: tenant.organization_secret_key,
    });
    const actions = activity.body.data.map((a: any) => a.action);
    expect(actions).to.include.members(['connector.circuit_opened', 'connector.circuit_closed']);
    const events = await api.get('/events', { key: key() });
    const circuitEvents = events.body.data.filter((e: any) => e.type.startsWith('connector.'));
    expect(circuitEvents.map((e: any) => e.type)).to.deep.equal([
      'connector.circuit_closed',
      'connector.circuit_opened',
    ]);
    expect(circuitEvents[1].data.object).to.include({ id: failing.id, reason: 'consecutive_failures' });
    expect(JSON.stringify(circuitEvents)).not.to.match(/sk_test_/);
  });

  it('after the cool-down exactly one of two simultaneous charges probes the open circuit; its failure reopens it', async () => {
    await outage(failing);
    await pay();
    await pay();
    expect((await health(failing.id)).state).to.equal('open');
    await untilProbeDue(failing.id);
    const [a, b] = await Promise.all([pay(), pay()]);
    expect(a.status).to.equal('authorized');
    expect(b.status).to.equal('authorized');
    const probed = [a, b].filter((tx) => tx.timeline.some((attempt: any) => attempt.connector_id === failing.id));
    expect(probed).to.have.length(1);
    const reopened = await health(failing.id);
    expect(reopened.state).to.equal('open');
    const events = await api.get('/events', { key: key() });
    const opened = events.body.data.filter((e: any) => e.type === 'connector.circuit_opened');
    expect(opened.map((e: any) => e.data.object.reason)).to.deep.equal(['probe_failed', 'consecutive_failures']);
  });

  it('an owner opens and closes a circuit by hand: routing skips it at once and uses it again once closed', async () => {
    const opened = await api.post(`${connectorPath(failing.id)}/circuit`, { key: key(), body: { state: 'open' } });
    expect(opened.status, opened.text).to.equal(200);
    expect(opened.body.health.state).to.equal('open');
    const skipped = await pay();
    expect(skipped.timeline.map((a: any) => a.connector_id)).to.deep.equal([healthy.id]);
    const closed = await api.post(`${connectorPath(failing.id)}/circuit`, { key: key(), body: { state: 'closed' } });
    expect(closed.body.health.state).to.equal('closed');
    expect((await pay()).timeline.map((a: any) => a.connector_id)).to.deep.equal([failing.id]);
    const activity = await api.get(`/merchants/${tenant.merchant_id}/activity`, {
      key: tenant.organization_secret_key,
    });
    const manual = activity.body.data.filter((a: any) => a.action.startsWith('connector.circuit_'));
    expect(manual.map((a: any) => a.action)).to.deep.equal(['connector.circuit_closed', 'connector.circuit_opened']);
    // Asking for the state it is already in changes nothing.
    const again = await api.post(`${connectorPath(failing.id)}/circuit`, { key: key(), body: { state: 'closed' } });
    expect(again.status).to.equal(200);
  });

  it('refuses an invalid circuit breaker config or circuit state with 400 and changes nothing', async () => {
    for (const circuit of [
      { failure_threshold: 0 },
      { cooldown_seconds: 0 },
      { failure_threshold: 'x' },
      { other: 1 },
    ]) {
      const res = await api.patch(connectorPath(failing.id), {
        key: key(),
        body: { config: { circuit_breaker: circuit } },
      });
      expect(res.status, res.text).to.equal(400);
    }
    const bad = await api.post(`${connectorPath(failing.id)}/circuit`, { key: key(), body: { state: 'half_open' } });
    expect(bad.status, bad.text).to.equal(400);
    const res = await api.get(connectorPath(failing.id), { key: key() });
    expect(res.body.config.circuit_breaker).to.deep.equal({ failure_threshold: 2, cooldown_seconds: 3 });
    expect(res.body.health.state).to.equal('closed');
  });

  it('declines never count against the circuit', async () => {
    const res = await control('POST', '/overrides', {
      provider: failing.slug,
      credentials: failing.credentials,
      scenario: 'do_not_honor',
    });
    expect(res.status).to.equal(201);
    for (let i = 0; i < 3; i += 1) expect((await pay()).status).to.equal('authorized');
    const declined = await health(failing.id);
    expect(declined).to.include({ state: 'closed', consecutive_failures: 0 });
    expect(declined.window).to.include({ attempts: 3, declined: 3, approval_rate: 0 });
  });

  it("the merchant's decline table decides which declines cascade (default: today's behaviour)", async () => {
    const settingsPath = `/merchants/${tenant.merchant_id}/routing-settings`;
    const defaults = await api.get(settingsPath, { key: key() });
    expect(defaults.status, defaults.text).to.equal(200);
    expect(defaults.body.decline_actions).to.deep.equal({
      soft_decline: 'retry_next_connector',
      hard_decline: 'stop',
      processing_error: 'retry_next_connector',
      network_error: 'retry_next_connector',
    });
    await control('POST', '/overrides', {
      provider: failing.slug,
      credentials: failing.credentials,
      scenario: 'do_not_honor',
    });
    expect((await pay()).status).to.equal('authorized');
    const put = await request('PUT', settingsPath, { key: key(), body: { decline_actions: { soft_decline: 'stop' } } });
    expect(put.status, put.text).to.equal(200);
    expect(put.body.decline_actions.soft_decline).to.equal('stop');
    const stopped = await pay();
    expect(stopped.status).to.equal('failed');
    expect(stopped.timeline).to.have.length(1);
    const invalid = await request('PUT', settingsPath, {
      key: key(),
      body: { decline_actions: { unknown: 'retry_next_connector' } },
    });
    expect(invalid.status, invalid.text).to.equal(400);
    // Found by the fuzzer: a code_actions key that is not a provider code, with a value that is not an action, was
    // let through by the key pattern (patternProperties alone) and ended in a 500.
    for (const code_actions of [{ 'not a code!': 'stop' }, { 'é,\\': { nested: [1.7976931348623157e308] } }]) {
      const odd = await request('PUT', settingsPath, {
        key: key(),
        body: { decline_actions: { network_error: 'retry_next_connector' }, code_actions },
      });
      expect(odd.status, odd.text).to.equal(400);
    }
    expect((await api.get(settingsPath, { key: key() })).body.decline_actions.soft_decline).to.equal('stop');
  });

  it('optimize approval_rate orders the plan by recent approval rate, explained on the transaction', async () => {
    const profiles = await api.get(`/merchants/${tenant.merchant_id}/routing-profiles`, { key: key() });
    const profile = (profiles.body.data ?? profiles.body)[0];
    const patched = await api.patch(`/merchants/${tenant.merchant_id}/routing-profiles/${profile.id}`, {
      key: key(),
      body: { optimize: 'approval_rate' },
    });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.optimize).to.equal('approval_rate');
    // The first connector of the rules declines everything for a while: its recent approval rate drops.
    await control('POST', '/overrides', {
      provider: failing.slug,
      credentials: failing.credentials,
      scenario: 'do_not_honor',
      times: 3,
    });
    for (let i = 0; i < 3; i += 1) expect((await pay()).status).to.equal('authorized');
    const tx = await pay();
    const routing = await routingOf(tx.id);
    expect(routing.optimize).to.equal('approval_rate');
    const scores = Object.fromEntries(routing.attempts.map((a: any) => [a.connector_id, a.approval_score]));
    expect(scores[healthy.id]).to.be.greaterThan(scores[failing.id]);
    // Best first, unless this charge was one of the exploration share (then the explored connector leads).
    const lead = routing.explored_connector_id ?? healthy.id;
    expect(routing.attempts[0].connector_id).to.equal(lead);
    expect(tx.timeline[0].connector_id).to.equal(lead);
  });
});
