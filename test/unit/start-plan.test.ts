/**
 * Rule: `npm start` on a machine without the Jaeger binary starts the API first and builds Jaeger in the background;
 * a build never holds up the API.
 */
import { expect } from 'chai';
import { runStartPlan, type OptionalTool } from '../../scripts/lib/optional-tools';

/** A tool whose build ends only when the test says so. */
function toolBuiltOnDemand(name: string, events: string[], binary?: string) {
  let finish!: (binary: string) => void;
  const tool: OptionalTool<string> = {
    name,
    existing: () => binary,
    buildable: () => true,
    build: () =>
      new Promise<string>((resolve) => (finish = resolve)).then((built) => {
        events.push(`${name} built`);
        return built;
      }),
    start: async (path) => {
      events.push(`${name} started`);
      return path;
    },
  };
  return { tool, finish: (built: string) => finish(built) };
}

describe('npm start: optional tools never hold up the API', () => {
  it('with no Jaeger binary the plan reaches "API ready" while the Jaeger build is still running', async () => {
    const events: string[] = [];
    const jaeger = toolBuiltOnDemand('Jaeger', events);
    const mail = toolBuiltOnDemand('Mailpit', events, '/cache/mailpit');
    const started = await runStartPlan({
      required: async () => void events.push('Temporal up'),
      mail: mail.tool,
      jaeger: jaeger.tool,
      app: async () => void events.push('API ready'),
    });
    expect(events).to.deep.equal(['Temporal up', 'Mailpit started', 'API ready']);
    expect(started.mail).to.deep.equal({ state: 'running', running: '/cache/mailpit' });
    expect(started.jaeger.state).to.equal('building');

    jaeger.finish('/cache/jaeger');
    expect(started.jaeger.state === 'building' && (await started.jaeger.built)).to.equal('/cache/jaeger');
    expect(events.at(-1)).to.equal('Jaeger built');
  });

  it('without Go (nothing to build) the tool is unavailable and the API starts all the same', async () => {
    const events: string[] = [];
    const { tool } = toolBuiltOnDemand('Jaeger', events);
    const started = await runStartPlan({
      required: async () => undefined,
      mail: { ...tool, name: 'Mailpit', buildable: () => false },
      jaeger: { ...tool, buildable: () => false },
      app: async () => void events.push('API ready'),
    });
    expect(started).to.deep.equal({ mail: { state: 'unavailable' }, jaeger: { state: 'unavailable' } });
    expect(events).to.deep.equal(['API ready']);
  });
});
