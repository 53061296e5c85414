import { useEffect, useRef } from "react";
import { useEditor, useNavActions } from "../state/navigation";
import { PANEL_MIN, PANEL_STEP, usePanelWidth } from "../state/panel";
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
 * The panel's left edge: dragged, or focused and moved with the arrow keys (Home and End
 * for the narrowest and widest), it sets the panel's width, remembered for the next start.
 */
function PanelResizer() {
  const { width, max, resize, remember } = usePanelWidth();
  const drag = useRef<{ x: number; width: number } | null>(null);
  const at = (clientX: number) => (drag.current ? drag.current.width + drag.current.x - clientX : width);
  const step = (next: number) => {
    resize(next);
    remember(next);
  };
  return (
    <div
      className="panel-resizer"
      role="separator"
      aria-orientation="vertical"
      aria-label="Resize the edit panel"
      aria-valuemin={PANEL_MIN}
      aria-valuemax={max}
      aria-valuenow={width}
      tabIndex={0}
      data-action="resize-panel"
      title="Drag to resize (or use the arrow keys)"
      onPointerDown={(e) => {
        e.preventDefault();
        drag.current = { x: e.clientX, width };
        e.currentTarget.setPointerCapture?.(e.pointerId);
      }}
      onPointerMove={(e) => {
        if (drag.current) resize(at(e.clientX));
      }}
      onPointerUp={(e) => {
        if (!drag.current) return;
        const final = at(e.clientX);
        drag.current = null;
        step(final);
      }}
      onPointerCancel={() => {
        drag.current = null;
      }}
      onKeyDown={(e) => {
        const next =
          e.key === "ArrowLeft" ? width + PANEL_STEP : e.key === "ArrowRight" ? width - PANEL_STEP : e.key === "Home" ? PANEL_MIN : e.key === "End" ? max : null;
        if (next === null) return;
        e.preventDefault();
        step(next);
      }}
    />
  );
}

/**
 * The side panel with the form of what is being edited. Closing it (×, Cancel, Escape)
 * with work not saved to the workspace asks first.
 */
export function EditPanel() {
  const { editor, closeEditor } = useEditor();
  const group = useLeaveGroup();
  // Another form in the panel's place (the cursor moved, a row opened) asks first too.
  const { setEditorGuard } = useNavActions();
  useEffect(() => {
    setEditorGuard(group.leave);
    return () => setEditorGuard(null);
  }, [group, setEditorGuard]);
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
      <PanelResizer />
      <div className="edit-panel-body">
        {/* In the scrolling body, so it scrolls away with the form's head rather than over its fields. */}
        <button type="button" className="icon-button panel-close" data-action="close-panel" aria-label="Close the edit panel" onClick={() => group.leave(closeEditor)}>
          ×
        </button>
        <LeaveGroupProvider value={group}>{body}</LeaveGroupProvider>
      </div>
    </aside>
  );
}
