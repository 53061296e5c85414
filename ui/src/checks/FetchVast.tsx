// "Fetch and check" beside a VAST URL field: only on the buyer's click, the Rust side
// fetches the tag and the wrappers it leads to (no credentials, a timeout and a size cap)
// and checks each document. Each hop shows its status, why the chain stopped, and its findings.
import { useState } from "react";
import { commands, type VastHop } from "../bindings";
import { unwrap } from "../api/call";
import { useField } from "../forms/frame";
import { FindingList } from "./Findings";
import { VastSummaryView } from "./VastSummaryView";

export function FetchVast({ path }: { path: string }) {
  const { get } = useField();
  const url = get(path);
  const [hops, setHops] = useState<VastHop[] | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    if (typeof url !== "string" || url.trim() === "") return;
    setBusy(true);
    const r = await unwrap(commands.fetchVast(path, url));
    setBusy(false);
    if (r) setHops(r);
  };
  return (
    <div className="fetch-vast wide" data-fetch-vast={path}>
      <button type="button" data-action="fetch-vast" disabled={busy || typeof url !== "string" || url.trim() === ""} onClick={() => void run()}>
        {busy ? "Fetching…" : "Fetch and check"}
      </button>
      {hops && (
        <ol className="vast-hops">
          {hops.map((h, i) => (
            <li key={i} data-hop={i}>
              <code>{h.url}</code> {h.status !== null ? `HTTP ${h.status}` : "no answer"}
              {h.problem && <div className="finding finding-warning">Stopped: {h.problem}</div>}
              <FindingList findings={h.findings} label={`Findings of document ${i + 1}`} />
              {h.summary && <VastSummaryView path={`document ${i + 1}`} summary={h.summary} />}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
