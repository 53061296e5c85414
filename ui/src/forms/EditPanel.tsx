import { useEditor } from "../state/navigation";
import { refKey } from "../util/refs";
import { AdOrderForm } from "./AdOrderForm";
import { AdvertiserForm } from "./AdvertiserForm";
import { AudienceSegmentForm } from "./AudienceSegmentForm";
import { CampaignForm } from "./CampaignForm";
import { CreativeForm } from "./CreativeForm";
import { FlightCapsForm } from "./FlightCapsForm";
import { SiteListForm } from "./SiteListForm";
import { LeaveGroupProvider, useLeaveGroup } from "./kit";

/**
 * The side panel with the form of what is being edited. Closing it (×, Cancel, Escape)
 * with work not saved to the workspace asks first.
 */
export function EditPanel() {
  const { editor, closeEditor } = useEditor();
  const group = useLeaveGroup();
  if (!editor) return null;
  const key = `${editor.kind}:${editor.kind === "flight_caps" ? refKey(editor.adOrder.target) : editor.row ? refKey(editor.row.target) : "new"}`;
  let body;
  switch (editor.kind) {
    case "advertiser":
      body = <AdvertiserForm key={key} row={editor.row} />;
      break;
    case "campaign":
      body = <CampaignForm key={key} row={editor.row} parent={editor.parent} />;
      break;
    case "ad_order":
      body = <AdOrderForm key={key} row={editor.row} parent={editor.parent} />;
      break;
    case "flight_caps":
      body = <FlightCapsForm key={key} adOrder={editor.adOrder.target} campaign={editor.adOrder.parent} timezone={editor.adOrder.timezone} row={editor.row} />;
      break;
    case "creative":
      body = <CreativeForm key={key} row={editor.row} parent={editor.parent} />;
      break;
    case "site_list":
      body = <SiteListForm key={key} row={editor.row} />;
      break;
    case "audience_segment":
      body = <AudienceSegmentForm key={key} row={editor.row} />;
      break;
  }
  return (
    <aside className="edit-panel" aria-label="Edit panel">
      <button type="button" className="icon-button panel-close" data-action="close-panel" aria-label="Close the edit panel" onClick={() => group.leave(closeEditor)}>
        ×
      </button>
      <LeaveGroupProvider value={group}>{body}</LeaveGroupProvider>
    </aside>
  );
}
