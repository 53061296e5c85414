/**
 * The screen in view, loaded after the shell's first frame (`Shell` imports this module
 * lazily): the tables, their bulk actions, checks and previews are most of the app's
 * code, and a cold start paints the sidebar and toolbar without evaluating them.
 */
import { Suspense } from "react";
import { deferred } from "../util/deferred";
import type { Screen } from "../state/navigation";
import { EntityScreen } from "./EntityScreen";
import { AD_ORDERS, ADVERTISERS, CAMPAIGNS, CREATIVES, SEGMENTS, SITE_LISTS } from "./entities";

/** The pending-changes screen is loaded when it is first opened. */
const PendingScreen = deferred(() => import("./Pending").then((m) => m.PendingScreen));

export function ScreenView({ screen }: { screen: Screen }) {
  switch (screen) {
    case "advertiser":
      return <EntityScreen key={screen} config={ADVERTISERS} />;
    case "campaign":
      return <EntityScreen key={screen} config={CAMPAIGNS} />;
    case "ad_order":
      return <EntityScreen key={screen} config={AD_ORDERS} />;
    case "creative":
      return <EntityScreen key={screen} config={CREATIVES} />;
    case "site_list":
      return <EntityScreen key={screen} config={SITE_LISTS} />;
    case "audience_segment":
      return <EntityScreen key={screen} config={SEGMENTS} />;
    case "pending":
      return (
        <Suspense fallback={<ScreenLoading />}>
          <PendingScreen />
        </Suspense>
      );
  }
}

/** What a screen shows while its code loads (a frame or two). */
export function ScreenLoading() {
  return <div className="screen-loading" aria-busy="true" />;
}
