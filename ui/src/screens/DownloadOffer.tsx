// The offer to download the account at once after its first sign-in (the Rust side says
// when one is due: `download_offer`), with its size where the service tells it cheaply.
import { commands } from "../bindings";
import { call } from "../api/call";
import type { DownloadOffer } from "../api/types";
import { Modal } from "../bulk/Modal";
import { useSync } from "../state/sync";
import { plural } from "../util/format";

/** What the offer says of the account's size: the count it has, or that none is known. */
function sizeText(offer: DownloadOffer): string {
  if (offer.advertisers === null) return "The service does not say how large the account is before it downloads.";
  if (offer.advertisers === 0) return "The service lists no advertisers for it yet.";
  return `The service lists ${plural(offer.advertisers, "advertiser")}; their campaigns, ad orders and creatives are counted as they download.`;
}

/** Download or Later: either answer is remembered, so the offer is made once per account. */
export function DownloadOfferDialog({ offer, onDone }: { offer: DownloadOffer; onDone: () => void }) {
  const { startDownload } = useSync();
  const answer = (download: boolean) => {
    onDone();
    void call(commands.answerDownloadOffer(), { quiet: true });
    if (download) void startDownload();
  };
  return (
    <Modal label="Download the account?" onClose={() => answer(false)}>
      <div data-offer="download">
        <p>
          Flightdeck works on a copy of the account on this computer. Download <b>{offer.account}</b> now?
        </p>
        <p className="muted" data-offer-size="">
          {sizeText(offer)}
        </p>
        <p className="muted small">Your drafts and pending changes are kept. Later, the Download button in the toolbar does the same.</p>
        <div className="modal-actions">
          <button type="button" className="primary" data-action="offer-download" autoFocus onClick={() => answer(true)}>
            Download
          </button>
          <button type="button" data-action="offer-later" onClick={() => answer(false)}>
            Later
          </button>
        </div>
      </div>
    </Modal>
  );
}
