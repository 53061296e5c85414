import { useCallback, useEffect, useMemo, useState } from "react";
import { commands } from "../bindings";
import { unwrap } from "../api/call";
import type { AdOrderRow, FlightCap, FlightCapsRow } from "../api/types";
import { type Column, DataTable } from "../components/DataTable";
import { useWorkspaceChanged } from "../state/events";
import { useNavActions } from "../state/navigation";
import { localSource } from "../table/localSource";
import { count, money } from "../util/format";

type CapLine = { key: string; index: number; cap: FlightCap; row: FlightCapsRow };

const COLUMNS: Column<CapLine>[] = [
  { id: "cap", header: "Cap id", value: (l) => l.cap.id ?? null, width: 80, align: "right", sortable: true },
  { id: "flight", header: "Flight id", value: (l) => l.cap.flightId ?? null, width: 80, align: "right", sortable: true },
  { id: "max", header: "Max budget", value: (l) => l.cap.maxBudget ?? null, render: (l) => money(l.cap.maxBudget), width: 110, align: "right", sortable: true },
  { id: "daily", header: "Daily budget", value: (l) => l.cap.dailyBudget ?? null, render: (l) => money(l.cap.dailyBudget), width: 110, align: "right", sortable: true },
  { id: "lifetime", header: "Lifetime impressions", value: (l) => l.cap.lifetimeImpressions ?? null, render: (l) => count(l.cap.lifetimeImpressions), width: 150, align: "right", sortable: true },
  { id: "dailyImp", header: "Daily impressions", value: (l) => l.cap.dailyImpressions ?? null, render: (l) => count(l.cap.dailyImpressions), width: 130, align: "right", sortable: true },
];

/** The flight caps of the ad order with the cursor (one ad order's: `listFlightCaps`). */
export function FlightCapsPane({ adOrder }: { adOrder: AdOrderRow }) {
  const { openEditor } = useNavActions();
  const [row, setRow] = useState<FlightCapsRow | null>(null);
  const [changed, setChanged] = useState(0);
  const target = adOrder.target;
  useWorkspaceChanged(["flight_caps", "ad_order"], () => setChanged((n) => n + 1), [target, { kind: "flight_caps", key: target.key }]);
  useEffect(() => {
    let live = true;
    void unwrap(commands.listFlightCaps(target), { quiet: true }).then((r) => {
      if (live) setRow(r ?? null);
    });
    return () => {
      live = false;
    };
  }, [target, changed]);
  const label = adOrder.label;
  const rowLabel = useCallback((l: CapLine) => `${label} · flight ${l.cap.flightId ?? "?"}`, [label]);
  const source = useMemo(() => {
    const lines: CapLine[] = row ? row.value.map((cap, index) => ({ key: `${index}`, index, cap, row })) : [];
    return localSource(lines, COLUMNS, rowLabel, (l) => l.row.marker);
  }, [row, rowLabel]);
  const editCaps = () => openEditor({ kind: "flight_caps", adOrder, row });
  return (
    <div className="caps-pane" aria-label={`Flight caps of ${label}`}>
      <DataTable
        kind="flight_caps"
        label={`Flight caps of ${label}`}
        fetch={source.fetch}
        columns={COLUMNS}
        rowId={(l) => l.key}
        rowLabel={rowLabel}
        rowMarker={(l) => l.row.marker}
        rowPending={(l) => l.row.pending}
        onOpen={editCaps}
        selectable={false}
        timed={false}
        toolbar={
          <button type="button" onClick={editCaps}>
            Edit flight caps
          </button>
        }
        emptyText="No flight caps on this ad order."
      />
    </div>
  );
}
