// The campaign- and ad-order-scoped listings in forms: "Refresh this campaign", an ad
// order's associated creatives, and the note on a creative downloaded from a listing.
// What each says is decided in Rust (the commands' answers); these only show it.
import { useEffect, useState } from "react";
import { commands } from "../bindings";
import { unwrap } from "../api/call";
import type { AdOrderCreatives, EntityRef } from "../api/types";
import { announceDownload } from "../state/sync";
import { formatDateTime } from "../util/time";

/** Fetches one campaign's ad orders and creatives; the tables showing them refresh. */
export function RefreshCampaignButton({ campaignId }: { campaignId: number }) {
  const [busy, setBusy] = useState(false);
  const refresh = async () => {
    setBusy(true);
    const s = await unwrap(commands.refreshCampaign(campaignId));
    setBusy(false);
    if (s) announceDownload(s, "Campaign refreshed");
  };
  return (
    <button type="button" data-action="refresh-campaign" disabled={busy} onClick={() => void refresh()} title="Download this campaign's ad orders and creatives">
      {busy ? "Refreshing…" : "Refresh this campaign"}
    </button>
  );
}

/** The creatives associated with a posted ad order, read-only, with their status. */
export function AssociatedCreatives({ adOrderId, zone }: { adOrderId: number; zone: string }) {
  const [listed, setListed] = useState<AdOrderCreatives | null>(null);
  useEffect(() => {
    let live = true;
    setListed(null);
    void unwrap(commands.adOrderCreatives(adOrderId), { quiet: true }).then((l) => live && setListed(l ?? null));
    return () => {
      live = false;
    };
  }, [adOrderId]);
  return (
    <section className="form-section" aria-label="Creatives" data-testid="ad-order-creatives">
      <div className="section-head">
        <h3>Creatives{listed ? ` (${listed.creatives.length})` : ""}</h3>
      </div>
      {listed === null ? (
        <p className="muted section-note">Loading creatives…</p>
      ) : (
        <>
          {listed.stale && (
            <p className="muted section-note" data-testid="creatives-stale">
              {listed.stale}
              {listed.fetchedAt !== null ? ` Shown as fetched ${formatDateTime(listed.fetchedAt, zone)}.` : ""}
            </p>
          )}
          {listed.creatives.length === 0 ? (
            <p className="muted section-note">{listed.fetchedAt === null ? "Not fetched yet." : "No creatives are associated with this ad order."}</p>
          ) : (
            <table className="mini-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Id</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {listed.creatives.map((c, i) => (
                  <tr key={c.id ?? `i${i}`} data-testid="associated-creative" data-status={c.status}>
                    <td>{c.name}</td>
                    <td>{c.id ?? "—"}</td>
                    <td>{c.status}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}

/** What the service does not give for this creative, when it came from a listing. */
export function ListingNote({ target }: { target: EntityRef }) {
  const [note, setNote] = useState<string | null>(null);
  const key = JSON.stringify(target);
  useEffect(() => {
    let live = true;
    void unwrap(commands.creativeNote(JSON.parse(key) as EntityRef), { quiet: true }).then((n) => live && setNote(n ?? null));
    return () => {
      live = false;
    };
  }, [key]);
  if (!note) return null;
  return (
    <p className="muted section-note" data-testid="listing-note" role="note">
      {note}
    </p>
  );
}
