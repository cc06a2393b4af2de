/**
 * The Overview the Dashboard opens on: the last 30 days as charts (GET /merchant/overview). Plain inline SVG, no
 * chart library: bars for money and counts, a line for rates. Every chart has a text equivalent (its figures in a
 * table folded under it) so a screen reader gets the same numbers. Test data names its test clocks with their time.
 */
import type { ComponentChildren } from 'preact';
import { call, query, type Answer } from '../api';
import { livemodeParam } from '../mode';
import { day, money } from '../format';
import { ErrorNote, Link, PageHeader, useLoad } from '../ui';
import { SetupChecklist } from './setup-checklist';
import { ClocksNote } from '../clock';

type Overview = Answer<'getMerchantOverview'>;
type OverviewConnector = Overview['connectors'][number];
type Amount = Overview['payments']['volume'][number];

const W = 600;
const H = 160;
const PAD = { top: 8, right: 0, bottom: 1, left: 0 };

const percent = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(1)}%`);
const amountIn = (amounts: Amount[], currency: string) => amounts.find((a) => a.currency === currency)?.amount ?? 0;
const moneyList = (amounts: Amount[]) =>
  amounts.length === 0 ? money(0, 'BRL') : amounts.map((a) => money(a.amount, a.currency)).join(' · ');
// A calendar day (YYYY-MM-DD, UTC) read at noon so no timezone moves it to the day before.
const dayLabel = (date: string) => day(`${date}T12:00:00Z`);

/** The currency with the most volume in the window: the one the volume chart draws (others are listed below it). */
function mainCurrency(overview: Overview): string | null {
  const sorted = [...overview.payments.volume].sort((a, b) => b.amount - a.amount);
  return sorted[0]?.currency ?? null;
}

function Card(props: { title: string; figure: ComponentChildren; note?: ComponentChildren }) {
  return (
    <div class="stat">
      <p class="stat-title">{props.title}</p>
      <p class="stat-figure">{props.figure}</p>
      {props.note && <p class="stat-note">{props.note}</p>}
    </div>
  );
}

/** The first, middle and last day under a chart, in HTML (SVG text would shrink with the chart at 360 px). */
function DayAxis(props: { days: string[] }) {
  const { days } = props;
  if (days.length === 0) return null;
  return (
    <div class="chart-axis" aria-hidden="true">
      <span>{dayLabel(days[0])}</span>
      <span>{dayLabel(days[Math.floor(days.length / 2)])}</span>
      <span>{dayLabel(days[days.length - 1])}</span>
    </div>
  );
}

/** One bar per day (stacked when a day has several series), scaled to the highest day. */
function Bars(props: { label: string; days: string[]; series: { name: string; tone: string; values: number[] }[] }) {
  const totals = props.days.map((_, index) => props.series.reduce((sum, s) => sum + s.values[index], 0));
  const max = Math.max(1, ...totals);
  const step = (W - PAD.left - PAD.right) / props.days.length;
  const height = H - PAD.top - PAD.bottom;
  return (
    <>
      <svg class="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={props.label} preserveAspectRatio="none">
        <line class="baseline" x1={PAD.left} x2={W - PAD.right} y1={H - PAD.bottom} y2={H - PAD.bottom} />
        {props.days.map((date, index) => {
          let top = H - PAD.bottom;
          return (
            <g key={date}>
              {props.series.map((s) => {
                const h = (s.values[index] / max) * height;
                top -= h;
                return h > 0 ? (
                  <rect
                    key={s.name}
                    class={`bar ${s.tone}`}
                    x={PAD.left + step * index + step * 0.15}
                    y={top}
                    width={step * 0.7}
                    height={h}
                  >
                    <title>{`${dayLabel(date)}: ${s.name} ${s.values[index]}`}</title>
                  </rect>
                ) : null;
              })}
            </g>
          );
        })}
      </svg>
      <DayAxis days={props.days} />
    </>
  );
}

/** A rate per day as a line (gaps on days with nothing decided). */
function RateLine(props: { label: string; days: string[]; rates: (number | null)[] }) {
  const step = (W - PAD.left - PAD.right) / props.days.length;
  const height = H - PAD.top - PAD.bottom;
  const points = props.rates.map((rate, index) =>
    rate === null ? null : [PAD.left + step * (index + 0.5), PAD.top + (1 - rate) * height],
  );
  // Runs of consecutive days with a rate; a lone day is drawn as a short dash so it still shows.
  const segments: string[] = [];
  let run: number[][] = [];
  const flush = () => {
    if (run.length === 1)
      run = [
        [run[0][0] - step * 0.3, run[0][1]],
        [run[0][0] + step * 0.3, run[0][1]],
      ];
    if (run.length > 0)
      segments.push(run.map(([x, y], i) => `${i ? 'L' : 'M'}${x.toFixed(1)},${y.toFixed(1)}`).join(''));
    run = [];
  };
  for (const point of points) {
    if (point) run.push(point);
    else flush();
  }
  flush();
  return (
    <>
      <svg class="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={props.label} preserveAspectRatio="none">
        {[0, 0.5, 1].map((level) => (
          <line
            key={level}
            class="grid"
            x1={PAD.left}
            x2={W - PAD.right}
            y1={PAD.top + (1 - level) * height}
            y2={PAD.top + (1 - level) * height}
          />
        ))}
        {segments.map((d) => (
          <path key={d} class="rate-line" d={d} />
        ))}
      </svg>
      <DayAxis days={props.days} />
    </>
  );
}

function Chart(props: {
  title: string;
  legend?: ComponentChildren;
  children: ComponentChildren;
  figures: ComponentChildren;
}) {
  return (
    <section class="chart-card">
      <h2>{props.title}</h2>
      {props.legend && <p class="legend">{props.legend}</p>}
      {props.children}
      <details class="chart-figures">
        <summary>Figures</summary>
        {props.figures}
      </details>
    </section>
  );
}

function DayTable(props: { head: string[]; rows: [string, ...string[]][] }) {
  return (
    <table class="compact">
      <thead>
        <tr>
          {props.head.map((heading) => (
            <th key={heading} scope="col">
              {heading}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map(([first, ...rest]) => (
          <tr key={first}>
            <th scope="row">{first}</th>
            {rest.map((cell, index) => (
              <td key={index}>{cell}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Connectors(props: { connectors: OverviewConnector[] }) {
  if (props.connectors.length === 0) return <p class="empty-note">No provider was tried in these 30 days.</p>;
  return (
    <ul class="connector-rates">
      {props.connectors.map((c) => (
        <li key={c.connector_id}>
          <div class="connector-rate-head">
            <Link to={`/connectors/${c.connector_id}`}>{c.name ?? c.connector_id}</Link>
            <strong>{percent(c.approval_rate)}</strong>
          </div>
          <div
            class="meter"
            role="img"
            aria-label={`${c.name ?? c.connector_id}: ${percent(c.approval_rate)} approved`}
          >
            <span style={{ width: `${(c.approval_rate ?? 0) * 100}%` }} />
          </div>
          <p class="meta">
            {c.attempts} attempts: {c.approved} approved, {c.declined} declined
            {c.errors > 0 ? `, ${c.errors} provider errors` : ''} · captured {moneyList(c.volume)}
          </p>
        </li>
      ))}
    </ul>
  );
}

export function Overview() {
  const loaded = useLoad(() => call<Overview>('GET', `/merchant/overview${query(livemodeParam())}`), []);
  return (
    <>
      <PageHeader title="Overview" />
      {loaded.state === 'loading' && (
        <p class="loading" role="status">
          Loading the last 30 days…
        </p>
      )}
      {loaded.state === 'error' && <ErrorNote error={loaded.error} retry={loaded.reload} />}
      {loaded.state === 'ready' && <OverviewCharts overview={loaded.data} />}
    </>
  );
}

function OverviewCharts({ overview }: { overview: Overview }) {
  const dates = overview.days.map((d) => d.date);
  const currency = mainCurrency(overview);
  const others = overview.payments.volume.filter((a) => a.currency !== currency);
  const { subscriptions: subs, payments } = overview;
  return (
    <>
      <SetupChecklist setup={overview.setup} />
      <p class="meta">
        {dayLabel(overview.from)} – {dayLabel(overview.to)} (UTC days)
      </p>
      {!overview.livemode && <ClocksNote />}
      <div class="stats">
        <Card title="Captured" figure={moneyList(payments.volume)} note={`${payments.approved} payments approved`} />
        <Card title="Approval rate" figure={percent(payments.approval_rate)} note={`${payments.declined} declined`} />
        <Card title="Active subscriptions" figure={subs.active} note={<>MRR {moneyList(subs.mrr)}</>} />
        <Card
          title="In dunning"
          figure={subs.in_dunning}
          note={`${subs.recovered} recovered · ${subs.entered_dunning} entered in 30 days`}
        />
      </div>

      <div class="charts">
        <Chart
          title={`Payment volume${currency ? ` (${currency})` : ''}`}
          legend={others.length > 0 ? <>Also captured: {moneyList(others)}</> : undefined}
          figures={
            <DayTable
              head={['Day', 'Captured', 'Approved', 'Declined']}
              rows={overview.days.map((d) => [
                dayLabel(d.date),
                moneyList(d.volume),
                String(d.approved),
                String(d.declined),
              ])}
            />
          }
        >
          <Bars
            label={`Captured per day${currency ? ` in ${currency}` : ''}`}
            days={dates}
            series={[
              {
                name: 'captured',
                tone: 'accent',
                values: overview.days.map((d) => (currency ? amountIn(d.volume, currency) : 0)),
              },
            ]}
          />
        </Chart>

        <Chart
          title="Approval rate"
          legend={<>30 days: {percent(payments.approval_rate)} · lines at 0, 50 and 100%</>}
          figures={
            <DayTable
              head={['Day', 'Approval rate', 'Approved', 'Declined']}
              rows={overview.days.map((d) => [
                dayLabel(d.date),
                percent(d.approval_rate),
                String(d.approved),
                String(d.declined),
              ])}
            />
          }
        >
          <RateLine label="Approval rate per day" days={dates} rates={overview.days.map((d) => d.approval_rate)} />
        </Chart>

        <section class="chart-card">
          <h2>Approval rate by connector</h2>
          <p class="legend">Every attempt counts against its connector, a cascade's first try too.</p>
          <Connectors connectors={overview.connectors} />
        </section>

        <Chart
          title="Active subscriptions"
          legend={
            <>
              MRR {moneyList(subs.mrr)}
              {subs.mrr_in_dunning.length > 0 && <> · {moneyList(subs.mrr_in_dunning)} a month in dunning</>}
            </>
          }
          figures={
            <DayTable
              head={['Day', 'Active at day end']}
              rows={overview.days.map((d) => [dayLabel(d.date), String(d.active_subscriptions)])}
            />
          }
        >
          <Bars
            label="Active subscriptions at each day's end"
            days={dates}
            series={[{ name: 'active', tone: 'good', values: overview.days.map((d) => d.active_subscriptions) }]}
          />
        </Chart>

        <Chart
          title="Renewals in dunning and recovered"
          legend={
            <>
              <span class="key warn" /> entered dunning ({subs.entered_dunning}) <span class="key good" /> recovered (
              {subs.recovered})
            </>
          }
          figures={
            <DayTable
              head={['Day', 'Entered dunning', 'Recovered']}
              rows={overview.days.map((d) => [dayLabel(d.date), String(d.entered_dunning), String(d.recovered)])}
            />
          }
        >
          <Bars
            label="Subscriptions entering dunning and recovered per day"
            days={dates}
            series={[
              { name: 'recovered', tone: 'good', values: overview.days.map((d) => d.recovered) },
              { name: 'entered dunning', tone: 'warn', values: overview.days.map((d) => d.entered_dunning) },
            ]}
          />
        </Chart>
      </div>
    </>
  );
}
