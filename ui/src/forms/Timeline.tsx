import { useEffect, useState } from "react";
import { commands } from "../bindings";
import { plain } from "../api/call";
import type { CampaignFlight, Timeline, TimezoneName } from "../api/types";
import { formatDateTime } from "../util/time";

const BAR_H = 18;
const GAP_Y = 6;
const LEFT = 120;
const WIDTH = 640;
const DAY = 86_400_000;

/** The campaign's flights as bars; overlaps and gaps come from the Rust side. */
export function FlightTimeline({ flights, zone, timezone }: { flights: CampaignFlight[]; zone: string; timezone: TimezoneName | null }) {
  const [timeline, setTimeline] = useState<Timeline | null>(null);
  const key = `${timezone ?? ""}|${JSON.stringify(flights)}`;
  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      void plain(commands.flightTimeline(flights, timezone), { quiet: true }).then((r) => {
        if (live && r) setTimeline(r);
      });
    }, 200);
    return () => {
      live = false;
      clearTimeout(t);
    };
    // `key` stands for `flights` and `timezone`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  if (!timeline) return <div className="timeline empty" data-timeline="">Timeline…</div>;
  // Bars without a start cannot be placed yet.
  const bars = timeline.bars.flatMap((b) => (b.start === null ? [] : [{ ...b, start: b.start }]));
  if (bars.length === 0) return <div className="timeline empty" data-timeline="">No dated flights yet.</div>;

  const overlapping = new Set<number>();
  for (const o of timeline.overlaps) {
    overlapping.add(o.a);
    overlapping.add(o.b);
  }
  const starts = bars.map((b) => b.start);
  const ends = bars.map((b) => b.end ?? b.start + 30 * DAY);
  const min = Math.min(...starts, ...timeline.gaps.map((g) => g.from));
  let max = Math.max(...ends, ...timeline.gaps.map((g) => g.to));
  if (max <= min) max = min + DAY;
  const span = max - min;
  const x = (t: number) => LEFT + ((t - min) / span) * (WIDTH - LEFT - 10);
  const height = bars.length * (BAR_H + GAP_Y) + 30;

  return (
    <div className="timeline" data-timeline="">
      <svg viewBox={`0 0 ${WIDTH} ${height}`} width="100%" role="img" aria-label="Flight timeline">
        <title>Flight timeline</title>
        {timeline.gaps.map((g, i) => (
          <rect
            key={`gap-${i}`}
            data-gap=""
            className="tl-gap"
            x={x(g.from)}
            y={0}
            width={Math.max(2, x(g.to) - x(g.from))}
            height={height - 24}
          >
            <title>{`Gap after flight ${g.afterIndex + 1}: ${formatDateTime(g.from, zone)} – ${formatDateTime(g.to, zone)}`}</title>
          </rect>
        ))}
        {bars.map((b, row) => {
          const y = row * (BAR_H + GAP_Y) + 4;
          const end = b.end ?? max;
          const over = overlapping.has(b.index);
          return (
            <g key={b.index} data-bar={b.index} data-overlap={over ? "" : undefined} className={over ? "tl-bar overlap" : "tl-bar"}>
              <text x={4} y={y + BAR_H - 5} className="tl-label">
                {b.label}
              </text>
              <rect x={x(b.start)} y={y} width={Math.max(3, x(end) - x(b.start))} height={BAR_H} rx={3} />
              <title>{`${b.label}: ${formatDateTime(b.start, zone)} – ${b.end === null ? "open" : formatDateTime(b.end, zone)}${over ? " (overlaps)" : ""}`}</title>
            </g>
          );
        })}
        <text x={LEFT} y={height - 8} className="tl-axis">
          {formatDateTime(min, zone, false)}
        </text>
        <text x={WIDTH - 10} y={height - 8} className="tl-axis" textAnchor="end">
          {formatDateTime(max, zone, false)}
        </text>
      </svg>
      {timeline.overlaps.length > 0 && (
        <div className="tl-note overlap-note">
          Overlapping:{" "}
          {timeline.overlaps.map((o) => `flights ${o.a + 1} and ${o.b + 1}`).join("; ")}
        </div>
      )}
      {timeline.gaps.length > 0 && (
        <div className="tl-note">
          Gaps: {timeline.gaps.map((g) => `after flight ${g.afterIndex + 1} (${formatDateTime(g.from, zone, false)} – ${formatDateTime(g.to, zone, false)})`).join("; ")}
        </div>
      )}
      {timeline.errors.length > 0 && (
        <ul className="tl-errors">
          {timeline.errors.map((e, i) => (
            <li key={i}>
              <code>{e.field}</code> {e.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
