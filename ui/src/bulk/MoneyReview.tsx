import { useCallback, useEffect, useState } from "react";
import { commands } from "../bindings";
import { unwrap } from "../api/call";
import { useWorkspaceChanged } from "../state/events";
import { money, zeroAtCents } from "../util/format";
import { refKey } from "../util/refs";
import type { Budgets, MoneyRow, MoneySummary } from "./types";

const FIELDS: { key: keyof Budgets; label: string }[] = [
  { key: "lifetime", label: "Lifetime" },
  { key: "daily", label: "Daily" },
  { key: "flights", label: "Flights" },
  { key: "orderLifetime", label: "Ad-order lifetime" },
  { key: "orderDaily", label: "Ad-order daily" },
];

function delta(before: number | null, after: number | null): number | null {
  if (before === null && after === null) return null;
  return (after ?? 0) - (before ?? 0);
}

function signed(n: number | null): string {
  if (n === null) return "";
  if (zeroAtCents(n)) return money(0);
  return `${n > 0 ? "+" : "−"}${money(Math.abs(n))}`;
}

function MoneyCells({ row }: { row: MoneyRow }) {
  return (
    <>
      {FIELDS.map((f) => {
        const b = row.before[f.key];
        const a = row.after[f.key];
        const d = delta(b, a);
        return (
          <td key={f.key} className="num" data-money={f.key}>
            {b === a ? (
              money(a)
            ) : (
              <>
                <span className="before">{money(b) || "—"}</span> → <span className="after">{money(a) || "—"}</span>{" "}
                <span className={d !== null && d < 0 ? "delta down" : "delta up"} data-delta="">
                  {signed(d)}
                </span>
              </>
            )}
          </td>
        );
      })}
    </>
  );
}

function MoneyTable({ caption, rows, total, kind }: { caption: string; rows: MoneyRow[]; total: MoneyRow; kind: string }) {
  return (
    <table className="mini money" data-money-table={kind}>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th>{kind === "campaign" ? "Campaign" : "Advertiser"}</th>
          {FIELDS.map((f) => (
            <th key={f.key} className="num">
              {f.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r, i) => (
          <tr key={r.target ? refKey(r.target) : i} data-money-row={r.label}>
            <th scope="row">{r.label}</th>
            <MoneyCells row={r} />
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr data-money-row="total" className="total">
          <th scope="row">Total</th>
          <MoneyCells row={total} />
        </tr>
      </tfoot>
    </table>
  );
}

/** Before against after lifetime budget per campaign: two bars each, scaled to the largest. */
export function BudgetChart({ rows }: { rows: MoneyRow[] }) {
  const bar = 10;
  const gap = 8;
  const labelWidth = 160;
  const width = 460;
  const max = Math.max(1, ...rows.flatMap((r) => [r.before.lifetime ?? 0, r.after.lifetime ?? 0]));
  const scale = (v: number | null) => ((v ?? 0) / max) * (width - labelWidth - 90);
  const rowHeight = bar * 2 + gap;
  return (
    <svg className="money-chart" role="img" aria-label="Lifetime budget per campaign, before and after" width={width} height={rows.length * rowHeight + 20} data-money-chart="">
      {rows.map((r, i) => {
        const y = i * rowHeight + 4;
        return (
          <g key={r.target ? refKey(r.target) : i} data-chart-row={r.label}>
            <text x={0} y={y + bar + 4} fontSize={11}>
              {r.label.length > 24 ? `${r.label.slice(0, 23)}…` : r.label}
            </text>
            <rect x={labelWidth} y={y} width={scale(r.before.lifetime)} height={bar} className="bar-before">
              <title>{`Before: ${money(r.before.lifetime) || "none"}`}</title>
            </rect>
            <rect x={labelWidth} y={y + bar} width={scale(r.after.lifetime)} height={bar} className="bar-after">
              <title>{`After: ${money(r.after.lifetime) || "none"}`}</title>
            </rect>
            <text x={labelWidth + scale(Math.max(r.before.lifetime ?? 0, r.after.lifetime ?? 0)) + 4} y={y + bar + 4} fontSize={10}>
              {money(r.after.lifetime)}
            </text>
          </g>
        );
      })}
      <g transform={`translate(${labelWidth}, ${rows.length * rowHeight + 8})`} fontSize={10}>
        <rect width={10} height={8} className="bar-before" />
        <text x={14} y={8}>
          Before
        </text>
        <rect x={70} width={10} height={8} className="bar-after" />
        <text x={84} y={8}>
          After
        </text>
      </g>
    </svg>
  );
}

/**
 * What the pending changes do to money: per campaign and per advertiser, before and after,
 * with totals, bid changes and roll-up warnings (WARNING level: they never block a post).
 */
export function MoneyReview() {
  const [summary, setSummary] = useState<MoneySummary | null>(null);
  const [version, setVersion] = useState(0);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  useWorkspaceChanged("any", reload);
  useEffect(() => {
    let live = true;
    void unwrap(commands.moneySummary(), { quiet: true }).then((s) => {
      if (live && s) setSummary(s);
    });
    return () => {
      live = false;
    };
  }, [version]);

  if (!summary) return null;
  const empty =
    summary.campaigns.length === 0 && summary.advertisers.length === 0 && summary.bids.length === 0 && summary.warnings.length === 0 && summary.goingLive.length === 0;
  if (empty) return null;
  return (
    <details className="money-review" open data-money-review="">
      <summary>Money review</summary>
      {summary.warnings.length > 0 && (
        <ul className="messages money-warnings" aria-label="Budget warnings">
          {summary.warnings.map((w, i) => (
            <li key={i} className="msg-warning" data-warning={w.field}>
              <b>WARNING</b> {w.label} <code>{w.field}</code> {w.message}
            </li>
          ))}
        </ul>
      )}
      <div className="money-grid">
        {summary.campaigns.length > 0 && <MoneyTable caption="Per campaign" rows={summary.campaigns} total={summary.total} kind="campaign" />}
        {summary.campaigns.length > 0 && <BudgetChart rows={summary.campaigns} />}
      </div>
      {summary.advertisers.length > 0 && <MoneyTable caption="Per advertiser" rows={summary.advertisers} total={summary.total} kind="advertiser" />}
      {summary.goingLive.length > 0 && (
        <table className="mini money" data-money-table="going-live">
          <caption>Going live</caption>
          <thead>
            <tr>
              <th>Ad order</th>
              <th>Campaign</th>
              <th className="num">Lifetime budget</th>
            </tr>
          </thead>
          <tbody>
            {summary.goingLive.map((g) => (
              <tr key={refKey(g.target)} data-going-live-row={g.label}>
                <th scope="row">{g.label}</th>
                <td>{g.campaign}</td>
                <td className="num">{money(g.lifetimeBudget) || "—"}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colSpan={2}>
                Total
              </th>
              <td className="num" data-going-live-total="">
                {money(summary.goingLiveBudget) || "—"}
              </td>
            </tr>
          </tfoot>
        </table>
      )}
      {summary.bids.length > 0 && (
        <table className="mini money" data-money-table="bids">
          <caption>Max-bid changes</caption>
          <thead>
            <tr>
              <th>Ad order</th>
              <th>Campaign</th>
              <th className="num">Before</th>
              <th className="num">After</th>
              <th className="num">Change</th>
            </tr>
          </thead>
          <tbody>
            {summary.bids.map((b) => (
              <tr key={refKey(b.target)} data-bid-row={b.label}>
                <th scope="row">{b.label}</th>
                <td>{b.campaign}</td>
                <td className="num">{money(b.before) || "—"}</td>
                <td className="num">{money(b.after) || "—"}</td>
                <td className="num">{signed(delta(b.before, b.after))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </details>
  );
}
